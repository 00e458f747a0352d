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
only floating or complex values; it checks no shapes (the rewrite keeps broadcasting). Its
arithmetic optimizer then reorders Add and Mul trees whose operands broadcast
(MinimizeBroadcasts), which is not repeated here: an Add/Add or Mul/Mul pair is rewritten
only where that leaves it as it is, when its operands' static shapes are known and equal, or
when the child's other operand is a constant too and both constants hold one value
(x * 3.1 * 0.7, which folds to x * 2.17 either way). "Div"
is the only division it moves: RealDiv (Python's `/`) by a constant has become a product
with the reciprocal before (constant_folding._division_by_constant_to_product). One pass
visits the nodes in graph order, each rewrite seeing the earlier ones; the caller folds
constants again and passes again until nothing changes, as TF's constant folding loops.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

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
    shapes = _StaticShapes(lambda name: current.get(name) or nodes[name])

    def node_of(name: str) -> Node:
        return current.get(name) or nodes[name]

    def constant(src: str, index: int) -> bool:
        return node_of(src).op == "Const" and f"{src}:{index}" not in fed

    for name in needed:
        parent = node_of(name)
        family = _family(parent.op)
        if family is None or len(parent.inputs) != 2:
            continue
        rewritten = _push_down(parent, family, node_of, constant, shapes.of, kept, fed, consumers)
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
    shape_of: Callable[[str, int], tuple[int, ...] | None],
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
    if (
        symmetric
        and child_symmetric
        and not _left_as_is_by_minimize_broadcasts(const_input, x, y, constant, shape_of)
    ):
        return None
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


def _left_as_is_by_minimize_broadcasts(
    const_input: tuple[str, int],
    x: tuple[str, int],
    y: tuple[str, int],
    constant: Callable[[str, int], bool],
    shape_of: Callable[[str, int], tuple[int, ...] | None],
) -> bool:
    """Whether TF's arithmetic optimizer leaves the pushed-down pair as it is (see above)."""
    shapes = {shape_of(*const_input), shape_of(*x), shape_of(*y)}
    if len(shapes) == 1 and None not in shapes:
        return True
    if not constant(*y):
        return False
    c_shape, y_shape = shape_of(*const_input), shape_of(*y)
    return c_shape is not None and y_shape is not None and _size(c_shape) == _size(y_shape) == 1


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


# Ops whose output has their one input's shape, and binary ops that broadcast two inputs.
_SAME_SHAPE = frozenset(
    {"Identity", "Neg", "Square", "Sqrt", "Exp", "Log", "Abs", "Relu", "Tanh", "Sigmoid"}
)
_BROADCASTING = frozenset(
    {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "SquaredDifference"}
)


class _StaticShapes:
    """Fully known static shapes, from what the master's nodes say (constants' values,
    variables' and placeholders' shape attrs) through element-wise ops; None where unknown."""

    def __init__(self, node_of: Callable[[str], Node]) -> None:
        self._node_of = node_of

    def of(self, name: str, index: int, depth: int = 0) -> tuple[int, ...] | None:
        node = self._node_of(name)
        if index != 0 or depth > 32:
            return None
        if node.op == "Const":
            value = node.attrs.get("value")
            return tuple(value.shape) if isinstance(value, np.ndarray) else None
        if node.op in ("VariableV2", "Placeholder", "VarHandleOp"):
            shape = node.attrs.get("shape")
            if shape is None or not shape.is_fully_defined():
                return None
            return tuple(shape.as_list())
        if node.op == "ReadVariableOp" or node.op in _SAME_SHAPE:
            return self.of(*node.inputs[0], depth + 1) if len(node.inputs) == 1 else None
        if node.op in _BROADCASTING and len(node.inputs) == 2:
            a, b = self.of(*node.inputs[0], depth + 1), self.of(*node.inputs[1], depth + 1)
            return None if a is None or b is None else _broadcast(a, b)
        return None


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    width = max(len(a), len(b))
    a, b = (1,) * (width - len(a)) + a, (1,) * (width - len(b)) + b
    out = []
    for da, db in zip(a, b, strict=True):
        if da != db and 1 not in (da, db):
            return None
        out.append(db if da == 1 else da)
    return tuple(out)
