"""Pairs of an involution f (f(f(x)) = x: Neg, Reciprocal, Conj, Invert, LogicalNot) around a
chain of value-preserving ops removed as TF 1.15's arithmetic optimizer (grappler's
RemoveInvolution stage) removes them before a step runs, its fetched-node quirk included.

TF follows input 0 of f up a chain of ops that only move values (Reshape, ExpandDims,
Squeeze, Transpose, ReverseV2, ...; also a reduction over an empty list of axes, which its
constant folding has just made an Identity: `tf.reduce_mean` of a scalar), each read by one
node only and none fetched, fed or targeted. Where the chain starts at another f, the chain's
last op reads the inner f's input instead and f's readers read f's input (next to each
other, f(f(x)): f's readers read x). A fetched outer f cannot be removed, so it stays and
now computes f of the chain of x: `-tf.reduce_mean(-m)` for a scalar m, fetched, prints
-m in TF 1.15 (a printed loss with the wrong sign); 1/(1/x) read by another op is x exactly.

TF visits the nodes from the graph's end backwards; its RemoveNegation stage has then already
rewired an Add or Sub reading a Neg (a + -b as a - b, -a + b as b - a, exact in floating
point), so such a reader counts as reading the Neg's input. Identity, StopGradient and a
one-input AddN are removed by TF's model pruner before (dependency optimization here), so
they do not count as chain links. Only in graphs of at least four nodes (TF's meta optimizer
leaves smaller ones alone).
"""

from __future__ import annotations

from collections import ChainMap, Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from tfcluster.runtime.graph_ir import Node, split_tensor_name

# TF's meta optimizer skips graphs with fewer nodes (kDefaultMinGraphNodes).
MIN_GRAPH_NODES = 4

INVOLUTIONS = frozenset({"Conj", "Invert", "LogicalNot", "Neg", "Reciprocal"})

# grappler's IsValuePreserving, less what its model pruner removes first (Identity,
# StopGradient) and the frame ops (Enter, Exit) kept out of rewrites here.
_VALUE_PRESERVING = frozenset(
    {
        "BatchToSpace",
        "BatchToSpaceND",
        "CheckNumerics",
        "DebugGradientIdentity",
        "DeepCopy",
        "DepthToSpace",
        "ExpandDims",
        "InvertPermutation",
        "PreventGradient",
        "Print",
        "Reshape",
        "Reverse",
        "ReverseV2",
        "Roll",
        "Snapshot",
        "SpaceToBatch",
        "SpaceToBatchND",
        "SpaceToDepth",
        "Squeeze",
        "Transpose",
    }
)

# grappler's IsReduction: over a constant empty list of axes, constant folding makes it an
# Identity (value preserving) before the arithmetic optimizer runs.
_REDUCTIONS = frozenset({"All", "Any", "Max", "Mean", "Min", "Prod", "Sum"})

_ADDS = frozenset({"Add", "AddV2"})


def _negation_sources(nodes: Mapping[str, Node], node: Node) -> list[tuple[str, int]]:
    """The inputs an Add or Sub reads once TF's RemoveNegation stage has rewritten it
    (a + -b -> a - b, a - -b -> a + b, -a + b -> b - a, again while it applies)."""
    op, inputs = node.op, list(node.inputs)
    if (op not in _ADDS and op != "Sub") or len(inputs) != 2:
        return inputs
    for _ in range(4):  # each rewrite removes a Neg; two inputs, so two at most
        x, y = (nodes.get(src) for src, _ in inputs)
        if y is not None and y.op == "Neg" and y.inputs:
            inputs[1] = y.inputs[0]
            op = "Sub" if op in _ADDS else "Add"
        elif op in _ADDS and x is not None and x.op == "Neg" and x.inputs:
            inputs = [inputs[1], x.inputs[0]]
            op = "Sub"
        else:
            break
    return inputs


def _empty_axes(nodes: Mapping[str, Node], node: Node, fed: Collection[str]) -> bool:
    """A reduction whose axes input is a constant with no elements."""
    if node.op not in _REDUCTIONS or len(node.inputs) < 2:
        return False
    src, index = node.inputs[1]
    axes = nodes.get(src)
    if axes is None or axes.op != "Const" or f"{src}:{index}" in fed:
        return False
    value = axes.attrs.get("value")
    return value is not None and np.asarray(value).size == 0


def remove_involutions(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
    folds_reductions: bool,
) -> dict[str, Node]:
    """The rewired nodes (chain tails and the readers of removed involutions), by name.
    folds_reductions: TF's constant folding runs (it turns empty-axes reductions into
    Identities the chain may go through)."""
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    fed_nodes = {split_tensor_name(t)[0] for t in feeds} - set(needed)
    if len(needed) + len(fed_nodes) < MIN_GRAPH_NODES:
        return {}
    fed = set(feeds)
    current: dict[str, Node] = {}
    view = ChainMap(current, dict(nodes))  # the nodes with this pass's rewrites over them
    readers = _count_readers(view, needed)
    for name in reversed(needed):
        node = view[name]
        if node.op not in INVOLUTIONS or not node.inputs:
            continue
        tail = node
        while True:
            src = view.get(tail.inputs[0][0])
            if (
                src is None
                or not src.inputs
                or src.name in pinned
                or readers[src.name] != 1
                or not (
                    src.op in _VALUE_PRESERVING
                    or (folds_reductions and _empty_axes(view, src, fed))
                )
            ):
                break
            tail = src
        inner = view.get(tail.inputs[0][0])
        if inner is None or inner.op != node.op or not inner.inputs:
            continue
        if tail is node:
            new_source = inner.inputs[0]  # f(f(x)): f's readers read x
        else:
            current[tail.name] = replace(tail, inputs=[inner.inputs[0], *tail.inputs[1:]])
            new_source = node.inputs[0]
        for reader_name in needed:
            reader = view[reader_name]
            if (name, 0) in reader.inputs:
                inputs = [new_source if t == (name, 0) else t for t in reader.inputs]
                current[reader_name] = replace(reader, inputs=inputs)
        readers = _count_readers(view, needed)
    return current


def _count_readers(nodes: Mapping[str, Node], needed: Sequence[str]) -> Counter[str]:
    """How many data inputs of the needed nodes read each node (grappler's
    NumNonControlOutputs), with Adds and Subs read as RemoveNegation leaves them."""
    return Counter(src for name in needed for src, _ in _negation_sources(nodes, nodes[name]))
