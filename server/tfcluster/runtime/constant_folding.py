"""Constant folding of a step's graph before it is placed and partitioned.

TF's graph optimizer (OptimizerOptions L1, the default) folds every node whose inputs are all
constants into a Const before a graph runs: the shape arithmetic gradients and library code
build (Pack, ConcatV2, Reshape, Fill, StridedSlice ... of constant shapes) then costs nothing
per step, and a folded value another task needs is no longer sent every step (see
runtime/partition.py, which copies small constants into the partitions that read them).

A node folds when its op is pure (FOLDABLE_OPS), it has no control inputs (a constant inside
a cond or loop branch waits for its pivot: its deadness must still reach its consumers), none
of its outputs is fed, every input is output 0 of a constant (a Const without control inputs,
or a node folded before it), and its value is numeric and at most MAX_FOLDED_BYTES. The value
is what the node's own CPU kernel computes; a kernel that raises leaves the node as it is, so
the step raises as it would have, naming the node.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.runtime import float_errors, kernel_table
from tfcluster.runtime.graph_ir import Node, split_tensor_name

# Single-output ops whose value depends only on their inputs and attrs.
FOLDABLE_OPS = frozenset(
    {
        "Abs",
        "Add",
        "AddN",
        "AddV2",
        "BroadcastArgs",
        "BroadcastTo",
        "Cast",
        "Concat",
        "ConcatV2",
        "Equal",
        "ExpandDims",
        "Fill",
        "FloorDiv",
        "FloorMod",
        "GatherV2",
        "Greater",
        "GreaterEqual",
        "Identity",
        "Less",
        "LessEqual",
        "LogicalAnd",
        "LogicalNot",
        "LogicalOr",
        "MatMul",
        "Max",
        "Maximum",
        "Min",
        "Minimum",
        "Mul",
        "Neg",
        "NotEqual",
        "OnesLike",
        "Pack",
        # Before the arithmetic optimizer's Pow rewrite: a power of a constant is powf's.
        "Pow",
        "Prod",
        "Range",
        "Rank",
        "RealDiv",
        "Reciprocal",
        "Reshape",
        "Select",
        "SelectV2",
        "Shape",
        "Size",
        "Slice",
        "Square",
        # Before a division by it becomes a product by its reciprocal (TF folds Sqrt with
        # its kernel, whose float32 values are Eigen's packet square root).
        "Sqrt",
        "Squeeze",
        "StridedSlice",
        "Sub",
        "Sum",
        "Tile",
        "Transpose",
        "ZerosLike",
    }
)
# TF's limit for a folded constant (grappler's kMaxConstantSize).
MAX_FOLDED_BYTES = 10 << 20


def fold_constants(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    fed: Collection[str],
    dtype_of: Mapping[str, dtypes.DType],
    reciprocals: bool = True,
) -> dict[str, Node]:
    """Const nodes standing for the `needed` nodes that fold, by name (the node's name,
    device and colocation kept). `fed` holds the step's fed tensor names. With
    `reciprocals`, divisions by a constant become products (grappler's part: TF's graph
    optimizer folds without grappler's constant folding, which the session may turn off)."""
    fed_nodes = {split_tensor_name(t)[0] for t in fed}
    values: dict[str, np.ndarray] = {}
    folded: dict[str, Node] = {}
    needed_set = set(needed)
    for name in inputs_first(nodes, needed):
        node = nodes[name]
        if node.control_inputs or name in fed_nodes:
            continue
        if node.op == "Const":
            value = _numeric(node.attrs.get("value"))
            if value is not None:
                values[name] = value
            continue
        if node.op not in FOLDABLE_OPS or not node.inputs:
            continue
        if any(idx != 0 or src not in values for src, idx in node.inputs):
            continue
        want = dtype_of.get(f"{name}:0")
        if want is None:
            continue
        value = _evaluate(node, [values[src] for src, _ in node.inputs], want)
        if value is None:
            continue
        values[name] = value
        attrs: dict[str, Any] = {"value": value, "dtype": dtype_of[f"{name}:0"]}
        if "_class" in node.attrs:
            attrs["_class"] = node.attrs["_class"]
        folded[name] = Node(name, "Const", [], [], node.device, attrs)
    out = {name: n for name, n in folded.items() if name in needed_set}
    for name in needed if reciprocals else ():
        if name not in out and name not in fed_nodes:
            out.update(_division_by_constant_to_product(nodes[name], values))
    return out


# Division ops TF's constant folding strength-reduces when the denominator is a constant.
_DIVISIONS = frozenset({"RealDiv", "Div"})
_RECIPROCAL_DTYPES = frozenset(
    {dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128}
)


def _division_by_constant_to_product(
    node: Node, values: Mapping[str, np.ndarray]
) -> dict[str, Node]:
    """x / c with a constant c becomes x * (1 / c), as TF's constant folding rewrites it
    (ReduceDivToReciprocalMul, floating and complex types): the reciprocal is folded into a
    Const ("ConstantFolding/<name>_recip") beside the node, which becomes a Mul. The product
    rounds differently from the quotient (x / 255. in image programs), so TF's bits need it."""
    if node.op not in _DIVISIONS or len(node.inputs) != 2:
        return {}
    src, index = node.inputs[1]
    dtype = node.attrs.get("T")
    if index != 0 or src not in values or dtype not in _RECIPROCAL_DTYPES:
        return {}
    with np.errstate(all="ignore"):
        recip = np.reciprocal(values[src].astype(dtype.as_numpy_dtype))
    recip_name = f"ConstantFolding/{node.name}_recip"
    colocation = node.attrs.get("_class") or [f"loc:@{node.name}"]
    const = Node(
        recip_name,
        "Const",
        [],
        [],
        node.device,
        {"value": recip, "dtype": dtype, "_class": list(colocation)},
    )
    product = Node(
        node.name,
        "Mul",
        [node.inputs[0], (recip_name, 0)],
        list(node.control_inputs),
        node.device,
        dict(node.attrs),
    )
    return {recip_name: const, node.name: product}


# Ops whose value is their input's static shape, rank or size (with the out_type attr, if any).
_SHAPE_OPS = frozenset({"Shape", "Rank", "Size"})


def fold_function_body(nodes: Sequence[Node], arg_shapes: Mapping[str, TensorShape]) -> list[Node]:
    """A function body's nodes (a loop's cond or body, a cond's branch) with those that fold
    replaced by Const nodes, so that a loop does not compute them again in every iteration:
    as fold_constants does, and Shape, Rank and Size of an argument whose static shape (or,
    for Rank, rank) the body declares (a loop's gradient takes the shapes of the forward
    values it reads apart again in every iteration: concat's gradient). arg_shapes: the
    body's value arguments by node name."""
    by_name = {n.name: n for n in nodes}
    values: dict[str, np.ndarray] = {}
    out: list[Node] = []
    for node in inputs_first(by_name, [n.name for n in nodes]):
        n = by_name[node]
        value: np.ndarray | None = None
        if n.control_inputs:
            pass
        elif n.op == "Const":
            value = _numeric(n.attrs.get("value"))
        elif n.op in _SHAPE_OPS and len(n.inputs) == 1 and n.inputs[0][1] == 0:
            shape = arg_shapes.get(n.inputs[0][0])
            if shape is not None:
                value = _static_shape_value(n, shape)
        elif (
            n.op in FOLDABLE_OPS
            and n.inputs
            and all(idx == 0 and src in values for src, idx in n.inputs)
        ):
            value = _evaluate(n, [values[src] for src, _ in n.inputs], None)
            if value is not None:
                value.flags.writeable = False
        if value is None:
            # TF's optimizers strength-reduce x / c in function bodies (a cond's branches, a
            # loop's body, a dataset's map function) as in the main graph.
            rewritten = _division_by_constant_to_product(n, values)
            out.extend([rewritten[k] for k in sorted(rewritten)] if rewritten else [n])
            continue
        values[node] = value
        if n.op == "Const":
            out.append(n)
            continue
        attrs: dict[str, Any] = {"value": value, "dtype": dtypes.as_dtype(value.dtype)}
        out.append(Node(n.name, "Const", [], [], n.device, attrs))
    return out


def _static_shape_value(node: Node, shape: TensorShape) -> np.ndarray | None:
    out_type = node.attrs.get("out_type", dtypes.int32)
    np_type = np.dtype(dtypes.as_dtype(out_type).as_numpy_dtype)
    if node.op == "Rank":
        return None if shape.ndims is None else np.asarray(shape.ndims, np.int32)
    if not shape.is_fully_defined():
        return None
    dims = [int(d) for d in shape.as_list() if d is not None]  # all known (checked above)
    if node.op == "Shape":
        return np.asarray(dims, np_type)
    return np.asarray(math.prod(dims), np_type)


def inputs_first(nodes: Mapping[str, Node], needed: Sequence[str]) -> list[str]:
    """The needed nodes, each after the needed nodes it reads (iterative DFS)."""
    wanted = set(needed)
    order: list[str] = []
    done: set[str] = set()
    entered: set[str] = set()  # a TF1 loop's back edge leads back to a node on the stack
    for root in needed:
        if root in done:
            continue
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if name in done:
                continue
            if expanded:
                done.add(name)
                order.append(name)
                continue
            if name in entered:
                continue
            entered.add(name)
            stack.append((name, True))
            node = nodes[name]
            for src, _ in node.inputs:
                if src in wanted and src not in done:
                    stack.append((src, False))
    return order


# Element-wise ops whose output is the broadcast of their inputs' shapes.
_BROADCASTING_OPS = frozenset(
    {
        "Add",
        "AddV2",
        "Sub",
        "Mul",
        "RealDiv",
        "FloorDiv",
        "FloorMod",
        "Maximum",
        "Minimum",
        "Equal",
        "NotEqual",
        "Greater",
        "GreaterEqual",
        "Less",
        "LessEqual",
        "LogicalAnd",
        "LogicalOr",
        "Select",
        "SelectV2",
    }
)


def _would_be_too_big(op: str, inputs: list[np.ndarray], itemsize: int) -> bool:
    """Whether the value would exceed MAX_FOLDED_BYTES, told from the inputs before computing
    it: `tf.ones([16 << 20])` (a Fill of two small constants) must not make the master build,
    and throw away, 64 MiB at every plan, nor a hostile graph's Fill make it run out of memory."""
    if any(x.nbytes > MAX_FOLDED_BYTES for x in inputs):
        return True
    try:
        if op == "Fill":
            elements = math.prod(int(d) for d in inputs[0].reshape(-1))
        elif op == "Tile":
            elements = inputs[0].size * math.prod(int(m) for m in inputs[1].reshape(-1))
        elif op == "BroadcastTo":
            elements = math.prod(int(d) for d in inputs[1].reshape(-1))
        elif op == "Range":
            start, limit, delta = (float(x) for x in inputs[:3])
            elements = math.ceil(abs((limit - start) / delta)) if delta else 0
        elif op in _BROADCASTING_OPS:
            elements = math.prod(np.broadcast_shapes(*(x.shape for x in inputs)))
        else:
            return False
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        return True  # left to the step, which raises naming the node
    return elements < 0 or elements * itemsize > MAX_FOLDED_BYTES


def _numeric(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    arr = np.asarray(value)
    return arr if arr.dtype.kind in "biufc" else None


def _evaluate(node: Node, inputs: list[np.ndarray], want: dtypes.DType | None) -> np.ndarray | None:
    """The node's value by its CPU kernel, or None when it does not fold. want: the dtype
    the graph gives its output (None: whatever the kernel makes)."""
    op_def = op_def_registry.lookup(node.op)
    if op_def is None or op_def.stateful or op_def.ref_outputs:
        return None
    if not kernel_table.has_kernel(node.op, "CPU"):
        return None
    try:
        want_np = None if want is None else np.dtype(want.as_numpy_dtype)
        itemsize = 8 if want_np is None else want_np.itemsize
        if _would_be_too_big(node.op, inputs, itemsize):
            return None
        kdef = kernel_table.lookup(node.op, "CPU")
        if kdef.is_async:
            return None
        # Quietly, as in a step (TF folds an overflow into inf without a word).
        outs = float_errors.call_silenced(kdef.factory(node), None, list(inputs))
        if len(outs) != 1:
            return None
        value = np.array(outs[0])  # a copy: outputs may view (read-only) inputs
    except Exception:
        return None  # the step raises it, naming the node, as it would have
    if (want_np is not None and value.dtype != want_np) or value.dtype.kind not in "biufc":
        return None
    if value.nbytes > MAX_FOLDED_BYTES:
        return None
    return value
