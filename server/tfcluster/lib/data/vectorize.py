"""Batched versions of map functions: `map(f).batch(n)` computed as one call of f's batched
form on n stacked elements (TF's map_vectorization rewrite, done here when the map is traced).

The batched function has f's arguments and results with a leading batch dimension (a sparse
result, boxed in variant form, is [batch, 3]: one boxed SparseTensor per element), and takes
f's captured tensors unchanged. It is made op by op from f's function graph: an op none of
whose inputs is batched is copied; one that reads batched values needs a rule here
(elementwise ops, parse_single_example -> parse_example, decode_raw, reshape, reductions,
...), and so does a random op (one draw per element). A function with an op that has no
rule, another stateful op or control dependencies is not vectorized: the kernel then maps
element by element. The kernel also maps a batch element by element when its batched call
fails, so errors are the ones TF gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.func_graph import ARG_OPS, RETVAL_OP, FuncGraph
from tfcluster.framework.graph import Graph, Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, constant_op

UNBATCHED, BATCHED = "unbatched", "batched"
SPARSE_INDICES, SPARSE_VALUES, SPARSE_SHAPE = "sparse_indices", "sparse_values", "sparse_shape"


class NotVectorizable(Exception):
    """The function has an op that cannot run on a batch of elements at once."""


_ELEMENTWISE_UNARY = {
    "Identity",
    "Cast",
    "Neg",
    "Abs",
    "Sign",
    "Square",
    "Sqrt",
    "Rsqrt",
    "Exp",
    "Log",
    "Log1p",
    "Expm1",
    "Floor",
    "Ceil",
    "Round",
    "Rint",
    "Sigmoid",
    "Tanh",
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "LogicalNot",
    "IsNan",
    "IsInf",
    "IsFinite",
    "Reciprocal",
    "Inv",
    "StopGradient",
    "StringToNumber",
    "ZerosLike",
    "OnesLike",
    "Sin",
    "Cos",
    "Erf",
    "PreventGradient",
    "CheckNumerics",
}
_ELEMENTWISE_BINARY = {
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "RealDiv",
    "Div",
    "DivNoNan",
    "FloorDiv",
    "FloorMod",
    "TruncateDiv",
    "TruncateMod",
    "Maximum",
    "Minimum",
    "Pow",
    "SquaredDifference",
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "Atan2",
    "Mod",
}
_REDUCTIONS = {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any"}
# Ops whose batched form is the same op on the batch (their leading dimension is free).
_SAME_OP = {"DecodeRaw", "DecodeCSV"}

Converted = list[tuple[Tensor, str]]
Rule = Callable[["_Converter", Operation, list[tuple[Tensor, str]]], Converted]


def _rank(t: Tensor) -> int:
    n = t.shape.ndims
    if n is None:
        raise NotVectorizable(f"the rank of {t.name} is not known")
    return n


def _const(value: Any) -> np.ndarray:
    v = tensor_util.constant_value(value)
    if v is None:
        raise NotVectorizable(f"{value.name} is not a constant")
    return np.asarray(v)


class _Converter:
    def __init__(self, graph: FuncGraph) -> None:
        self.graph = graph
        self.batched_args: list[Tensor] = []

    def batch_size(self, dtype: dtypes.DType) -> Tensor:
        """The batch's size as a [1] vector of `dtype` (from the first batched argument)."""
        if not self.batched_args:
            raise NotVectorizable("no argument gives the batch size")
        with self.graph.as_default():
            return array_ops.shape(self.batched_args[0], out_type=dtype)[:1]

    def op(
        self, op: Operation, inputs: Sequence[Tensor], attrs: dict[str, Any] | None = None
    ) -> Operation:
        a = {k: v for k, v in op.attrs.items() if k != "_class"} if attrs is None else attrs
        return Graph.create_op(self.graph, op.type, list(inputs), a, name=op.name)

    def const(self, value: Any, dtype: dtypes.DType) -> Tensor:
        with self.graph.as_default():
            return constant_op.constant(np.asarray(value), dtype=dtype)

    def expand(self, t: Tensor, times: int) -> Tensor:
        """t with `times` dimensions of 1 inserted after its batch dimension."""
        with self.graph.as_default():
            for _ in range(times):
                t = array_ops.expand_dims(t, 1)
        return t


def _shift_axes(axes: np.ndarray) -> np.ndarray:
    a = np.asarray(axes)
    return np.where(a >= 0, a + 1, a).astype(a.dtype)


# ---- rules -----------------------------------------------------------------------------------
def _unary(c: _Converter, op: Operation, ins: Converted) -> Converted:
    new = c.op(op, [t for t, _ in ins])
    return [(o, BATCHED) for o in new.outputs]


def _binary(c: _Converter, op: Operation, ins: Converted) -> Converted:
    (a, ka), (b, kb) = ins
    ra, rb = _rank(op.inputs[0]), _rank(op.inputs[1])
    # numpy broadcasting aligns trailing dimensions: the batched operand keeps its batch
    # dimension in front of the other's by gaining size-1 dimensions as needed.
    if ka == BATCHED and kb == BATCHED:
        if ra < rb:
            a = c.expand(a, rb - ra)
        elif rb < ra:
            b = c.expand(b, ra - rb)
    elif ka == BATCHED and rb > ra:
        a = c.expand(a, rb - ra)
    elif kb == BATCHED and ra > rb:
        b = c.expand(b, ra - rb)
    return [(c.op(op, [a, b]).outputs[0], BATCHED)]


def _same_op(c: _Converter, op: Operation, ins: Converted) -> Converted:
    if any(k == BATCHED for _, k in ins[1:]):
        raise NotVectorizable(f"{op.type} with batched arguments other than its first")
    return [(o, BATCHED) for o in c.op(op, [t for t, _ in ins]).outputs]


def _parse_single_example(c: _Converter, op: Operation, ins: Converted) -> Converted:
    if any(k == BATCHED for _, k in ins[1:]):
        raise NotVectorizable("batched parse_single_example defaults")
    a = op.attrs
    for shape in a["dense_shapes"]:
        if not TensorShape(shape).is_fully_defined():
            # A variable first dimension: ParseExample pads where batching would refuse.
            raise NotVectorizable("parse_single_example of a FixedLenSequenceFeature")
    serialized = ins[0][0]
    with c.graph.as_default():
        names = constant_op.constant(np.zeros(0, dtype=object), dtype=dtypes.string)
        sparse_keys = [constant_op.constant(k, dtype=dtypes.string) for k in a["sparse_keys"]]
        dense_keys = [constant_op.constant(k, dtype=dtypes.string) for k in a["dense_keys"]]
    attrs = {
        "Nsparse": len(a["sparse_keys"]),
        "Ndense": len(a["dense_keys"]),
        "sparse_types": list(a["sparse_types"]),
        "Tdense": list(a["Tdense"]),
        "dense_shapes": list(a["dense_shapes"]),
    }
    inputs = [serialized, names, *sparse_keys, *dense_keys, *[t for t, _ in ins[1:]]]
    new = Graph.create_op(c.graph, "ParseExample", inputs, attrs, name=op.name)
    n = len(a["sparse_keys"])
    kinds = [SPARSE_INDICES] * n + [SPARSE_VALUES] * n + [SPARSE_SHAPE] * n
    kinds += [BATCHED] * len(a["dense_keys"])
    return list(zip(new.outputs, kinds))


def _serialize_sparse(c: _Converter, op: Operation, ins: Converted) -> Converted:
    """A parsed sparse feature boxed per element: the batch's rows boxed at once."""
    if [k for _, k in ins] != [SPARSE_INDICES, SPARSE_VALUES, SPARSE_SHAPE]:
        raise NotVectorizable("a sparse result that is not a parsed feature")
    new = Graph.create_op(
        c.graph, "SerializeManySparse", [t for t, _ in ins], dict(op.attrs), name=op.name
    )
    return [(new.outputs[0], BATCHED)]


def _first_only(c: _Converter, op: Operation, ins: Converted) -> None:
    if any(k == BATCHED for _, k in ins[1:]):
        raise NotVectorizable(f"{op.type} with a batched shape or axis")


def _reshape(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    shape = _const(op.inputs[1]).reshape(-1)
    if (shape < 0).any():
        out = op.outputs[0].shape
        if not out.is_fully_defined():
            raise NotVectorizable("reshape to a shape with an unknown dimension")
        shape = np.array(out.as_list())
    new_shape = c.const(np.concatenate([[-1], shape]).astype(np.int32), dtypes.int32)
    return [
        (
            c.op(op, [ins[0][0], new_shape], {**_plain_attrs(op), "Tshape": dtypes.int32}).outputs[
                0
            ],
            BATCHED,
        )
    ]


def _plain_attrs(op: Operation) -> dict[str, Any]:
    return {k: v for k, v in op.attrs.items() if k != "_class"}


def _expand_dims(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    axis = c.const(_shift_axes(_const(op.inputs[1])), op.inputs[1].dtype.base_dtype)
    return [(c.op(op, [ins[0][0], axis]).outputs[0], BATCHED)]


def _reduction(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    axes = c.const(_shift_axes(_const(op.inputs[1])), op.inputs[1].dtype.base_dtype)
    return [(c.op(op, [ins[0][0], axes]).outputs[0], BATCHED)]


def _arg_reduction(c: _Converter, op: Operation, ins: Converted) -> Converted:
    return _reduction(c, op, ins)


def _squeeze(c: _Converter, op: Operation, ins: Converted) -> Converted:
    dims = [int(d) for d in op.attrs.get("squeeze_dims") or []]
    if not dims:
        shape = op.inputs[0].shape
        if not shape.is_fully_defined():
            raise NotVectorizable("squeeze of a shape not fully known")
        dims = [i for i, d in enumerate(shape.as_list()) if d == 1]
    attrs = {**_plain_attrs(op), "squeeze_dims": [d + 1 if d >= 0 else d for d in dims]}
    return [(c.op(op, [ins[0][0]], attrs).outputs[0], BATCHED)]


def _transpose(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    perm = _const(op.inputs[1]).reshape(-1)
    perm = np.concatenate([[0], np.where(perm >= 0, perm + 1, perm + len(perm) + 1)])
    new = c.const(perm.astype(np.int32), dtypes.int32)
    return [
        (
            c.op(op, [ins[0][0], new], {**_plain_attrs(op), "Tperm": dtypes.int32}).outputs[0],
            BATCHED,
        )
    ]


def _one_hot(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    axis = int(op.attrs.get("axis", -1))
    attrs = {**_plain_attrs(op), "axis": axis + 1 if axis >= 0 else axis}
    return [(c.op(op, [t for t, _ in ins], attrs).outputs[0], BATCHED)]


def _pack(c: _Converter, op: Operation, ins: Converted) -> Converted:
    if any(k != BATCHED for _, k in ins):
        raise NotVectorizable("stack of batched and unbatched values")
    axis = int(op.attrs.get("axis", 0))
    attrs = {**_plain_attrs(op), "axis": axis + 1 if axis >= 0 else axis}
    return [(c.op(op, [t for t, _ in ins], attrs).outputs[0], BATCHED)]


def _concat(c: _Converter, op: Operation, ins: Converted) -> Converted:
    values, axis_kind = ins[:-1], ins[-1][1]
    if axis_kind == BATCHED or any(k != BATCHED for _, k in values):
        raise NotVectorizable("concat of batched and unbatched values")
    axis = c.const(_shift_axes(_const(op.inputs[-1])), op.inputs[-1].dtype.base_dtype)
    return [(c.op(op, [*[t for t, _ in values], axis]).outputs[0], BATCHED)]


def _strided_slice(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    begin, end, strides = (_const(t).reshape(-1) for t in op.inputs[1:4])
    dt = op.inputs[1].dtype.base_dtype
    new_inputs = [
        ins[0][0],
        c.const(np.concatenate([[0], begin]).astype(dt.as_numpy_dtype), dt),
        c.const(np.concatenate([[0], end]).astype(dt.as_numpy_dtype), dt),
        c.const(np.concatenate([[1], strides]).astype(dt.as_numpy_dtype), dt),
    ]
    a = _plain_attrs(op)
    for mask in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        a[mask] = int(a.get(mask, 0)) << 1
    a["begin_mask"] = (int(a.get("begin_mask", 0)) << 1) | 1
    a["end_mask"] = (int(a.get("end_mask", 0)) << 1) | 1
    return [(c.op(op, new_inputs, a).outputs[0], BATCHED)]


def _slice(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    begin, size = (_const(t).reshape(-1) for t in op.inputs[1:3])
    dt = op.inputs[1].dtype.base_dtype
    new_inputs = [
        ins[0][0],
        c.const(np.concatenate([[0], begin]).astype(dt.as_numpy_dtype), dt),
        c.const(np.concatenate([[-1], size]).astype(dt.as_numpy_dtype), dt),
    ]
    return [(c.op(op, new_inputs).outputs[0], BATCHED)]


def _pad(c: _Converter, op: Operation, ins: Converted) -> Converted:
    _first_only(c, op, ins)
    paddings = _const(op.inputs[1])
    dt = op.inputs[1].dtype.base_dtype
    new = c.const(np.concatenate([[[0, 0]], paddings]).astype(dt.as_numpy_dtype), dt)
    rest = [t for t, _ in ins[2:]]
    return [(c.op(op, [ins[0][0], new, *rest]).outputs[0], BATCHED)]


def _random(c: _Converter, op: Operation, ins: Converted) -> Converted:
    """A draw of the element's shape becomes one draw of [batch] + that shape: the same
    numbers a draw per element takes from the generator's stream, in the same order."""
    if any(k == BATCHED for _, k in ins):
        raise NotVectorizable(f"{op.type} with batched arguments")
    shape_t = op.inputs[0]
    dt = shape_t.dtype.base_dtype
    shape = c.const(_const(shape_t).reshape(-1).astype(dt.as_numpy_dtype), dt)
    with c.graph.as_default():
        new_shape = array_ops.concat([c.batch_size(dt), shape], 0)
    return [(c.op(op, [new_shape, *[t for t, _ in ins[1:]]]).outputs[0], BATCHED)]


# Random ops whose draws are independent of each other (not TruncatedNormal, whose redraws
# would come in another order).
_RANDOM = {"RandomUniform", "RandomStandardNormal", "RandomUniformInt"}


def _gather(c: _Converter, op: Operation, ins: Converted) -> Converted:
    kp = ins[0][1]
    if kp == BATCHED or (len(ins) > 2 and ins[2][1] == BATCHED):
        raise NotVectorizable("gather from batched params")
    if len(op.inputs) > 2 and int(_const(op.inputs[2])) != 0:
        raise NotVectorizable("gather along an axis other than 0")
    return [(c.op(op, [t for t, _ in ins]).outputs[0], BATCHED)]


RULES: dict[str, Rule] = {
    **{t: _unary for t in _ELEMENTWISE_UNARY},
    **{t: _binary for t in _ELEMENTWISE_BINARY},
    **{t: _reduction for t in _REDUCTIONS},
    **{t: _same_op for t in _SAME_OP},
    "ParseSingleExample": _parse_single_example,
    "SerializeSparse": _serialize_sparse,
    "Reshape": _reshape,
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "Transpose": _transpose,
    "OneHot": _one_hot,
    "Pack": _pack,
    "ConcatV2": _concat,
    "StridedSlice": _strided_slice,
    "Slice": _slice,
    "Pad": _pad,
    "PadV2": _pad,
    "GatherV2": _gather,
    **{t: _random for t in _RANDOM},
    "ArgMax": _arg_reduction,
    "ArgMin": _arg_reduction,
}


# ---- the whole function --------------------------------------------------------------------
def vectorize(
    fg: FuncGraph,
    args: Sequence[Tensor],
    outputs: Sequence[Tensor],
    captured_args: Sequence[Tensor],
) -> Any:
    """The func attr of f's batched form, or None when f cannot be vectorized.

    `args` are f's element arguments, `captured_args` its arguments for captured tensors,
    `outputs` its flat results.
    """
    try:
        return _vectorize(fg, args, outputs, captured_args)
    except NotVectorizable:
        return None


def _vectorize(
    fg: FuncGraph,
    args: Sequence[Tensor],
    outputs: Sequence[Tensor],
    captured_args: Sequence[Tensor],
) -> Any:
    vg = FuncGraph(f"{fg.name}_vectorized", fg.outer_graph)
    conv = _Converter(vg)
    values: dict[Tensor, tuple[Tensor, str]] = {}
    with vg.as_default(), vg.name_scope(None):
        new_args = [
            vg.add_arg(a.dtype, TensorShape([None]).concatenate(a.shape), f"batched_{i}")
            for i, a in enumerate(args)
        ]
        for a, n in zip(args, new_args):
            values[a] = (n, BATCHED)
        conv.batched_args = new_args
        new_captured = [
            vg.add_arg(a.dtype, a.shape, f"captured_{i}") for i, a in enumerate(captured_args)
        ]
        for a, n in zip(captured_args, new_captured):
            values[a] = (n, UNBATCHED)
        for op in fg.get_operations():
            if op.type in ARG_OPS or op.type == RETVAL_OP:
                continue
            if op.control_inputs:
                raise NotVectorizable(f"{op.name} has control dependencies")
            op_def = op_def_registry.lookup(op.type)
            random = op.type in _RANDOM
            if op_def is None or (op_def.stateful and not random):
                raise NotVectorizable(f"{op.name} ({op.type}) is stateful")
            ins = [values[t] for t in op.inputs]
            if op.type != "SerializeSparse" and any(k not in (UNBATCHED, BATCHED) for _, k in ins):
                raise NotVectorizable(f"{op.name} reads a sparse result")
            if all(k == UNBATCHED for _, k in ins) and not random:
                new = conv.op(op, [t for t, _ in ins])
                out: Converted = [(o, UNBATCHED) for o in new.outputs]
            else:
                rule = RULES.get(op.type)
                if rule is None:
                    raise NotVectorizable(f"no batched form of {op.type}")
                out = rule(conv, op, ins)
            for old, new_value in zip(op.outputs, out):
                values[old] = new_value
        results = _results(conv, outputs, values, new_args)
    return vg.to_function([*new_args, *new_captured], results)


def _results(
    conv: _Converter,
    outputs: Sequence[Tensor],
    values: dict[Tensor, tuple[Tensor, str]],
    batched_args: Sequence[Tensor],
) -> list[Tensor]:
    results: list[Tensor] = []
    for output in outputs:
        t, kind = values[output]
        if kind == UNBATCHED:
            t = _broadcast(conv, t, batched_args)
        elif kind != BATCHED:
            raise NotVectorizable("a part of a sparse result returned as a dense one")
        results.append(t)
    return results


def _broadcast(conv: _Converter, t: Tensor, batched_args: Sequence[Tensor]) -> Tensor:
    """An unbatched result repeated for each element of the batch."""
    if not batched_args:
        raise NotVectorizable("no argument gives the batch size")
    rank = _rank(t)
    with conv.graph.as_default():
        size = array_ops.shape(batched_args[0])[:1]
        multiples = array_ops.concat([size, np.ones(rank, np.int32)], 0)
        return array_ops.tile(array_ops.expand_dims(t, 0), multiples)
