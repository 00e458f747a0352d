"""x / tf.sqrt(y) computed as x * Rsqrt(y), as TensorFlow 1.15's arithmetic optimizer
(grappler's SqrtDivToRsqrtMulStage) rewrites it before a step runs.

A hand-written normalisation, (x - mean) / (variance + eps) ** 0.5 (the Pow becomes a Sqrt
first: pow_rewrite.py) or (x - mean) / tf.sqrt(variance + eps), prints values TF computed with
its Rsqrt kernel and a product, not with a division by the rounded square root: the two
differ in the last bit for about half of the values (an instance-normalised network's losses
then drift apart in their fourth digit within a few Adam steps). TF rewrites a Div or RealDiv
whose divisor is a Sqrt that is read by that one input only (no other data reader, nor the
division's other input) and is not fetched, fed or targeted: the division becomes a Mul and
keeps its name (it may be fetched itself), the Sqrt becomes an Rsqrt. A training step, where
the gradient reads the Sqrt too, keeps its division. Only in graphs of at least four nodes,
counted over the whole graph (TF's meta optimizer leaves smaller ones alone).

A Sqrt computed from constants alone is folded into a constant by TF's constant folding
first, so its division stays (tfcluster's folding does not fold every op TF's does: the
division is left as it is wherever the Sqrt's inputs come from constants only).

TF's optimizer first merges identical nodes (common subgraph elimination), so two copies of
the same Sqrt count as one Sqrt with two readers there; tfcluster does not merge them, and
rewrites each copy that has one reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from tfcluster.framework import op_def_registry
from tfcluster.runtime.constant_folding import inputs_first
from tfcluster.runtime.graph_ir import Node, split_tensor_name

# TF's meta optimizer skips graphs with fewer nodes (kDefaultMinGraphNodes).
MIN_GRAPH_NODES = 4

# The divisions TF's stage takes (IsAnyDiv, less DivNoNan and FloorDiv); the integer ones
# never divide by a Sqrt.
_DIVISIONS = frozenset({"Div", "RealDiv"})


def rsqrt_divisions(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
) -> dict[str, Node]:
    """The rewritten divisions (now Mul) and their divisors (now Rsqrt), by name."""
    # Counted over the whole graph, as TF's meta optimizer counts the graph it is given.
    if len(nodes) < MIN_GRAPH_NODES:
        return {}
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    # Data edges out of each node (TF's NumNonControlOutputs counts edges, not readers).
    edges = Counter(src for name in needed for src, _ in nodes[name].inputs)
    fed_nodes = {split_tensor_name(t)[0] for t in feeds}
    constant: set[str] | None = None
    out: dict[str, Node] = {}
    for name in needed:
        division = nodes[name]
        if division.op not in _DIVISIONS or len(division.inputs) != 2:
            continue
        src, index = division.inputs[1]
        sqrt = out.get(src, nodes[src])
        if sqrt.op != "Sqrt" or index != 0 or src in pinned or edges[src] != 1:
            continue
        if constant is None:
            constant = _from_constants(nodes, needed, fed_nodes)
        if src in constant:
            continue
        out[name] = replace(division, op="Mul")
        out[src] = replace(sqrt, op="Rsqrt")
    return out


def _from_constants(
    nodes: Mapping[str, Node], needed: Sequence[str], fed_nodes: Collection[str]
) -> set[str]:
    """The needed nodes whose value comes from Const nodes alone (none fed, no control
    inputs, no stateful op on the way): what TF's constant folding turns into constants."""
    constant: set[str] = set()
    for name in inputs_first(nodes, needed):
        node = nodes[name]
        if name in fed_nodes or node.control_inputs:
            continue
        if node.op == "Const":
            constant.add(name)
            continue
        op_def = op_def_registry.lookup(node.op)
        if op_def is None or op_def.stateful or op_def.ref_outputs or not node.inputs:
            continue
        if all(src in constant for src, _ in node.inputs):
            constant.add(name)
    return constant
