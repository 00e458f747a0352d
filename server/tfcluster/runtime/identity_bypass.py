"""Identity nodes that TensorFlow's dependency optimizer (grappler) removes, their readers
rewired to the Identity's own input.

Why it matters for values: tf.gradients puts a tf.tuple Identity between every gradient op
and the next (`.../tuple/control_dependency`), and TF's constant push-down only moves a
constant into a child read once. Once TF's dependency optimizer has bypassed those
Identities (and made the gradients nobody reads NoOps), its second round of constant
folding sees `Mul(x_data, Mul(sub, C))` for the gradient of a regression over numpy data and
folds `x_data * C` into one constant: the gradient rounds as TF's only that way.

TF bypasses an Identity (DependencyOptimizer::SafeToRemoveIdentity and
BypassingNodeIsBeneficial) that is not fetched, fed or targeted, has a reader of its value,
does not read a variable or a Recv, and where rewiring adds no edges: inputs * readers <=
inputs + readers, control inputs counted. Readers of its value read its input instead and
wait on its control inputs; readers waiting on it wait on its inputs. Kept here besides:
anything touching control flow (Switch, Merge, frames: deadness and frames must stay) and an
Identity whose inputs or readers are on other devices (TF weighs device crossings; keeping
them is always safe). TF visits the nodes from the graph's end backwards, each bypass
changing the counts of the next; so does this pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from tfcluster.runtime.graph_ir import Node, split_tensor_name
from tfcluster.runtime.loop_frames import CONTROL_FLOW_OPS

# Inputs TF never bypasses an Identity of (IsVariable, IsRecv), and control-flow ops on
# either side of it.
_VARIABLE_OR_RECV = frozenset(
    {"Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp", "_Recv"}
)


def bypass_identities(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
) -> dict[str, Node]:
    """The `needed` nodes rewired past the Identities TF's dependency optimizer removes, by
    name (the bypassed Identities themselves are then read by nobody)."""
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    current: dict[str, Node] = {}

    def node_of(name: str) -> Node:
        return current.get(name) or nodes[name]

    readers: dict[str, set[str]] = defaultdict(set)
    for name in needed:
        node = nodes[name]
        for src, _ in node.inputs:
            readers[src].add(name)
        for src in node.control_inputs:
            readers[src].add(name)
    bypassed: set[str] = set()
    for name in reversed(needed):
        node = node_of(name)
        if node.op != "Identity" or name in pinned or len(node.inputs) != 1:
            continue
        outs = sorted(readers.get(name, ()))
        if not any((name, 0) in node_of(r).inputs for r in outs):
            continue  # nothing reads its value
        (src, src_index) = node.inputs[0]
        sources = [src, *node.control_inputs]
        if node_of(src).op in _VARIABLE_OR_RECV or f"{src}:{src_index}" in feeds:
            continue
        if any(node_of(n).op in CONTROL_FLOW_OPS for n in (*sources, *outs)):
            continue
        if any(node_of(n).device != node.device for n in (*sources, *outs)):
            continue
        if len(sources) * len(outs) > len(sources) + len(outs):
            continue
        for reader_name in outs:
            reader = node_of(reader_name)
            inputs = [(src, src_index) if t == (name, 0) else t for t in reader.inputs]
            reads_value = inputs != reader.inputs
            controls = [c for c in reader.control_inputs if c != name]
            waits_on = node.control_inputs if reads_value else sources
            controls += [c for c in waits_on if c not in controls and c != reader_name]
            if reads_value:
                # A control input on a node it now reads is redundant, as TF drops it.
                controls = [c for c in controls if c not in {s for s, _ in inputs}]
            current[reader_name] = replace(reader, inputs=inputs, control_inputs=controls)
            for s in sources:
                readers[s].add(reader_name)
        for s in sources:
            readers[s].discard(name)
        readers.pop(name, None)
        bypassed.add(name)
    return {k: v for k, v in current.items() if k not in bypassed}
