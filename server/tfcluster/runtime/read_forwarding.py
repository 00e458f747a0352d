"""A variable's read Identity, when consumers on its device are all it feeds, is read by each
consumer itself, when it runs.

In TF, `var/read` is an Identity whose output shares the variable's buffer: a sparse update
(ScatterSub, SparseApply*) writes the rows in place and a consumer that runs later, such as the
embedding Gather waiting for its ids from a worker, sees them. Here a value an Identity handed
on is an array that the step holds until its consumer runs, and an array held by anyone but
its variable is one a sparse update must copy whole first (kernels/in_place.py): with several
workers, one step's `read` would be waiting for its ids whenever another step updates the same
embedding, and every update would copy the table. Letting the consumer read the variable
(the executor dereferences reference inputs when a kernel runs) holds the array only while the
consumer's kernel runs. With several consumers this is also what TF computes: the read's
output aliases the variable's buffer, and an Assign of the same size copies into that buffer,
so a consumer that runs after an Assign of the same step sees the assigned value (a gradient
of a MatMul over an LSTM's saved state, assigned under control_dependencies before the loss,
takes the new state, as in the Udacity 6_lstm assignment). An Identity of such a read
(`tf.identity(v)`, `v.read_value()`) aliases the buffer too: its consumers read the variable
as well, so `old = tf.identity(v)` taken before an Assign gives the assigned value to an op
that runs after it, as in TF. The read is only moved later within what the graph already
allowed: the Identity has no control inputs, feeds nothing else and is not fed; one that is
fetched or orders other ops (control edges out of it) stays in the graph. A fetched one gives
the variable's value at the end of the step, as TF's fetch of the aliased buffer does
(`fetched_variable_reads`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from tfcluster.framework import op_def_registry
from tfcluster.runtime.graph_ir import Node


def forward_variable_reads(
    order: Sequence[Node], fed: set[str], fetches: Sequence[str], targets: Sequence[str]
) -> list[Node]:
    """`order` (inputs before consumers) with such Identities gone and their consumers wired
    to the variable; the nodes given are not changed (a rewired consumer is a copy)."""
    by_name = {n.name: n for n in order}
    consumers: dict[str, list[tuple[Node, int]]] = {}
    for n in order:
        for i, (src, idx) in enumerate(n.inputs):
            consumers.setdefault(f"{src}:{idx}", []).append((n, i))
    ordered_by = {c for n in order for c in n.control_inputs}
    kept = set(fed) | set(fetches) | {f"{t}:0" for t in targets}
    rewired: dict[str, dict[int, tuple[str, int]]] = {}  # consumer -> input index -> variable
    # An Identity's output -> the variable it reads (through a chain of such Identities).
    reads: dict[str, tuple[str, int]] = {}
    dropped: set[str] = set()
    for n in order:
        if n.op != "Identity" or len(n.inputs) != 1 or n.control_inputs:
            continue
        src, idx = n.inputs[0]
        edge = reads.get(f"{src}:{idx}")
        if edge is None:
            var = by_name.get(src)
            if var is None or f"{src}:{idx}" in fed or not _has_ref_outputs(var):
                continue
            edge = (src, idx)
        out = f"{n.name}:0"
        readers = consumers.get(out, [])
        if (
            by_name[edge[0]].device != n.device
            or out in fed
            or not readers
            or any(r.device != n.device or i in _ref_inputs(r) for r, i in readers)
        ):
            continue
        reads[out] = edge
        for reader, i in readers:
            rewired.setdefault(reader.name, {})[i] = edge
        if n.name not in ordered_by and out not in kept:
            dropped.add(n.name)
    if not rewired:
        return list(order)
    result = []
    for n in order:
        if n.name in dropped:
            continue
        moves = rewired.get(n.name)
        if moves:
            inputs = [moves.get(i, edge) for i, edge in enumerate(n.inputs)]
            n = dataclasses.replace(n, inputs=inputs)
        result.append(n)
    return result


def fetched_variable_reads(
    order: Sequence[Node], fed: set[str], fetches: Sequence[str]
) -> dict[str, tuple[str, int]]:
    """Fetch -> the variable output it reads: a fetched Identity (no control inputs) of a
    variable on its device, in the order forward_variable_reads made."""
    by_name = {n.name: n for n in order}
    out: dict[str, tuple[str, int]] = {}
    for t in fetches:
        name, _, index = t.partition(":")
        n = by_name.get(name)
        if (
            n is None
            or index != "0"
            or t in fed
            or n.op != "Identity"
            or len(n.inputs) != 1
            or n.control_inputs
        ):
            continue
        src, idx = n.inputs[0]
        var = by_name.get(src)
        if (
            var is not None
            and f"{src}:{idx}" not in fed
            and var.device == n.device
            and _has_ref_outputs(var)
        ):
            out[t] = (src, idx)
    return out


def _has_ref_outputs(node: Node) -> bool:
    op_def = op_def_registry.lookup(node.op)
    return bool(op_def and op_def.ref_outputs)


def _ref_inputs(node: Node) -> frozenset[int]:
    op_def = op_def_registry.lookup(node.op)
    return op_def.ref_inputs if op_def else frozenset()


def forwarded_reads(before: Mapping[str, Node], after: Sequence[Node]) -> dict[str, dict[int, str]]:
    """Consumer -> input index -> the read Identity forwarded there (TF's error about an
    uninitialized variable names that Identity, `v/read`, as the node that failed)."""
    out: dict[str, dict[int, str]] = {}
    for n in after:
        old = before.get(n.name)
        if old is None or old.inputs == n.inputs:
            continue
        for i, (edge, was) in enumerate(zip(n.inputs, old.inputs)):
            if edge != was:
                out.setdefault(n.name, {})[i] = was[0]
    return out
