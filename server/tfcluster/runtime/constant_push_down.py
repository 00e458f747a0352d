"""Constants pushed down a tree of additions or multiplications, as TF 1.15's constant
folding does (grappler's ConstantPushDown) before a step's graph runs.

A node `op(C, child)` with a constant C and a child of the same family (Add/AddV2/Sub or
Mul/Div) whose inputs X, Y are not both constant becomes `op'(X, child')` with `child' =
op''(C, Y)`: (W * x + b) - y becomes (b - y) + W * x, (v * 3) * 0.5 becomes v * (0.5 * 3)
and C1 * C2 then folds. The signs move as TF moves them (Sub(C, X + Y) becomes (C - Y) - X,
(X - Y) - C becomes X - (C + Y), ...). The sums and products round differently, so a TF1
program whose model adds or multiplies numpy constants (a linear regression over its data)
drifts from TF in the last bits without it.

TF 1.15 rewrites only where the child is used once, is not fetched or fed, shares the
parent's device (with the leaves), and, for a subtraction or division anywhere in the pair,
only floating or complex values; it checks no shapes (the rewrite keeps broadcasting), so
an Add/Add or Mul/Mul pair whose operands broadcast moves as any other: a gradient's
Mul(grad, Mul(x, 2.0)) through a [3] grad and a scalar 2 becomes x * (grad * 2), folded.
TF's arithmetic optimizer then reorders some trees of two non-constant leaves whose shapes
differ (MinimizeBroadcasts), which is not repeated here. "Div"
is the only division it moves: RealDiv (Python's `/`) by a constant has become a product
with the reciprocal before (constant_folding._division_by_constant_to_product). One pass
visits the nodes in graph order, each rewrite seeing the earlier ones; the caller folds
constants again and passes again until nothing changes, as TF's constant folding loops.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from tfcluster.framework import dtypes
from tfcluster.runtime.graph_ir import Node, split_tensor_name

_ADD_FAMILY = frozenset({"Add", "AddV2", "Sub"})
_MUL_FAMILY = frozenset({"Mul", "Div"})
_SYMMETRIC = frozenset({"Add", "AddV2", "Mul"})
_NOT_MOVED_DTYPES = frozenset({dtypes.bfloat16, dtypes.float16})


def _numeric(dtype: dtypes.DType) -> bool:
    return dtype.is_floating or dtype.is_complex or dtype.is_integer


def _family(op: str) -> frozenset[str] | None:
    if op in _ADD_FAMILY:
        return _ADD_FAMILY
    if op in _MUL_FAMILY:
        return _MUL_FAMILY
    return None


def push_constants_down(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
) -> dict[str, Node]:
    """One pass of TF's constant push-down over the `needed` nodes: the rewritten nodes, by
    name (a parent and its child each time)."""
    fed = set(feeds)
    kept = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    needed_set = set(needed)
    consumers: dict[str, int] = {}
    for name in needed:
        for src, _ in nodes[name].inputs:
            consumers[src] = consumers.get(src, 0) + 1
    current: dict[str, Node] = {}

    def node_of(name: str) -> Node:
        return current.get(name) or nodes[name]

    def constant(src: str, index: int) -> bool:
        return node_of(src).op == "Const" and f"{src}:{index}" not in fed

    for name in needed:
        parent = node_of(name)
        family = _family(parent.op)
        if family is None or len(parent.inputs) != 2:
            continue
        rewritten = _push_down(parent, family, node_of, constant, kept, fed, consumers)
        if rewritten is not None:
            new_parent, new_child = rewritten
            if new_child.name in needed_set:
                current[new_parent.name] = new_parent
                current[new_child.name] = new_child
    return current


def _push_down(
    parent: Node,
    family: frozenset[str],
    node_of: Callable[[str], Node],
    constant: Callable[[str, int], bool],
    kept: set[str],
    fed: set[str],
    consumers: Mapping[str, int],
) -> tuple[Node, Node] | None:
    (left, left_i), (right, right_i) = parent.inputs
    left_const, right_const = constant(left, left_i), constant(right, right_i)
    if left_const == right_const:
        return None
    child_name, child_i = (right, right_i) if left_const else (left, left_i)
    const_input = parent.inputs[0] if left_const else parent.inputs[1]
    child = node_of(child_name)
    if child.op not in family or len(child.inputs) != 2 or child_i != 0:
        return None
    if child_name in kept or f"{child_name}:0" in fed or consumers.get(child_name, 0) > 1:
        return None
    if node_of(const_input[0]).control_inputs:
        # A constant that waits for something could wait for the child (TF checks that edge
        # alone): moving it into the child could make a cycle.
        return None
    dtype = parent.attrs.get("T")
    if dtype is None or dtype in _NOT_MOVED_DTYPES or not _numeric(dtype):
        return None  # strings concatenate: their order stays
    symmetric, child_symmetric = parent.op in _SYMMETRIC, child.op in _SYMMETRIC
    if not (symmetric and child_symmetric) and not (dtype.is_floating or dtype.is_complex):
        return None
    (l_leaf, l_i), (r_leaf, r_i) = child.inputs
    left_leaf_const = constant(l_leaf, l_i)
    if left_leaf_const and constant(r_leaf, r_i):
        return None  # the child folds as it is
    devices = {parent.device, child.device, node_of(const_input[0]).device}
    devices |= {node_of(l_leaf).device, node_of(r_leaf).device}
    if len(devices) != 1:
        return None
    x = child.inputs[1] if left_leaf_const else child.inputs[0]
    y = child.inputs[0] if left_leaf_const else child.inputs[1]
    op_input = (child_name, child_i)
    if symmetric and child_symmetric:  # the ops stay: only the operands move
        return replace(parent, inputs=[x, op_input]), replace(child, inputs=[const_input, y])
    # A subtraction or division in the pair: which operands end up negated (or inverted).
    symmetric_op, inverse_op = ("Add", "Sub") if family is _ADD_FAMILY else ("Mul", "Div")

    def leaf_negated(is_right_leaf: bool) -> bool:
        return (not child_symmetric and is_right_leaf) != (not symmetric and left_const)

    neg_c = not symmetric and not left_const
    neg_x = leaf_negated(left_leaf_const)
    neg_y = leaf_negated(not left_leaf_const)
    new_parent = replace(
        parent,
        op=inverse_op if neg_x or (neg_c and neg_y) else symmetric_op,
        inputs=[op_input, x] if neg_x else [x, op_input],
    )
    new_child = replace(
        child,
        op=inverse_op if neg_c != neg_y else symmetric_op,
        inputs=[y, const_input] if neg_c else [const_input, y],
    )
    return new_parent, new_child
