"""The nodes of a while loop's body whose values are the same in every iteration of one run
of the loop, so that they are computed once per run instead of once per iteration.

A node is invariant when each of its data inputs is an invariant argument of the body (a
capture: the loop hands the same value to every iteration), a constant, or another invariant
node's output, when it waits on no control edge, and when running it again could not give
another value: its op is not stateful, or it reads a variable (ReadVariableOp) in a body
that writes none (no stateful op but reads and TensorArray/stack traffic). A Keras LSTM's
body reads its kernel, bias and recurrent kernel and slices them into the four gates' parts
in every iteration: eleven kernels of its forty-nine.

The body then runs with the invariant values its other nodes read (and the invariant values
it returns) fed in, computed by a small executor of their own when the loop's first
iteration starts; a loop that never iterates computes none. The kernels and their inputs
are the same, so are the values; a failing invariant node fails the first iteration, as it
did.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tfcluster.framework import op_def_registry
from tfcluster.runtime.graph_ir import Node, split_tensor_name

# Stateful ops that write no variable: a body holding only these (and stateless ops) reads
# each variable's same value in every iteration.
_NO_VARIABLE_WRITES = frozenset(
    {
        "ReadVariableOp",
        "TensorArrayV3",
        "TensorArrayReadV3",
        "TensorArrayWriteV3",
        "TensorArrayGatherV3",
        "TensorArrayScatterV3",
        "TensorArraySizeV3",
        "TensorArrayGradV3",
        "TensorArrayConcatV3",
        "TensorArraySplitV3",
        "StackV2",
        "StackPushV2",
        "StackPopV2",
    }
)
_ARG_OPS = frozenset({"_Arg", "_RefArg"})


@dataclass(frozen=True)
class Hoisted:
    """The invariant nodes (by name) and the tensors of theirs that the rest of the body, or
    the body's fetches, read: what the per-iteration run is fed."""

    nodes: frozenset[str]
    boundary: tuple[str, ...]


def _stateful(op: str) -> bool:
    op_def = op_def_registry.lookup(op)
    return op_def is None or bool(op_def.stateful)


def find_invariants(
    nodes: Sequence[Node],
    invariant_args: Collection[str],
    fetches: Sequence[str],
    targets: Sequence[str],
) -> Hoisted | None:
    """The body's invariant nodes that its fetches and targets need, or None where there are
    none. invariant_args: the names of the argument nodes whose values every iteration
    shares."""
    by_name = {n.name: n for n in nodes}
    nodes = _needed(by_name, fetches, targets)
    reads_variables_only = all(
        n.op in _ARG_OPS or not _stateful(n.op) or n.op in _NO_VARIABLE_WRITES for n in nodes
    )
    invariant: set[str] = set(invariant_args)
    hoisted: set[str] = set()
    # Invariance follows data edges: settle nodes in an order where inputs come first.
    for n in _topological(nodes, by_name):
        if n.name in invariant or n.op in _ARG_OPS or n.control_inputs:
            continue
        if not all(src in invariant for src, _ in n.inputs):
            continue
        if n.op == "Const" and not n.inputs:
            invariant.add(n.name)  # a source, not hoisted: the run plan holds it already
            continue
        if _stateful(n.op) and not (n.op == "ReadVariableOp" and reads_variables_only):
            continue
        invariant.add(n.name)
        hoisted.add(n.name)
    if not hoisted:
        return None
    boundary: dict[str, None] = {}
    for n in nodes:
        if n.name in hoisted:
            continue
        for src, idx in n.inputs:
            if src in hoisted:
                boundary[f"{src}:{idx}"] = None
    for t in fetches:
        if split_tensor_name(t)[0] in hoisted:
            boundary[t] = None
    return Hoisted(frozenset(hoisted), tuple(boundary))


def _needed(by_name: dict[str, Node], fetches: Sequence[str], targets: Sequence[str]) -> list[Node]:
    """The nodes the fetches and targets need (a loop whose sums are taken after it leaves
    the body's own sum nodes unread: runtime/loop_sums.py)."""
    seen: set[str] = set()
    stack = [split_tensor_name(t)[0] for t in fetches] + list(targets)
    while stack:
        name = stack.pop()
        node = by_name.get(name)
        if node is None or name in seen:
            continue
        seen.add(name)
        stack += [src for src, _ in node.inputs] + list(node.control_inputs)
    return [n for n in by_name.values() if n.name in seen]


def _topological(nodes: Sequence[Node], by_name: dict[str, Node]) -> list[Node]:
    """The nodes with each one after the nodes whose outputs it reads."""
    out: list[Node] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for root in nodes:
        if root.name in state:
            continue
        stack = [(root, False)]
        while stack:
            n, expanded = stack.pop()
            if expanded:
                state[n.name] = 2
                out.append(n)
                continue
            if state.get(n.name):
                continue
            state[n.name] = 1
            stack.append((n, True))
            for src in [s for s, _ in n.inputs] + list(n.control_inputs):
                dep = by_name.get(src)
                if dep is not None and not state.get(src):
                    stack.append((dep, False))
    return out


__all__ = ["Hoisted", "find_invariants"]
