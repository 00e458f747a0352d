"""Math ops (TF1's math_ops): element-wise arithmetic with broadcasting, unary math, casts,
comparisons and logic, matmul, reductions, scans, and the Python operator overloads of Tensor
and Variable.

Op types, attr names and default node names follow TF1; each function only adds nodes.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import (
    dispatch,
    dtypes,
    indexed_slices,
    internal_deprecations,
    op_def_registry,
    sparse_tensor,
    tensor_util,
)
from tfcluster.framework.graph import (
    Tensor,
    convert_to_tensor,
    get_graph_from_inputs,
    is_tensor_like,
    name_scope,
)
from tfcluster.framework.inferred_values import inferred_value
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import (
    Outputs,
    binary_broadcast,
    binary_broadcast_bool,
    broadcast_shape,
    check_dtype,
    make_op,
    unary_same,
)

# ---- dtype families (TF's op-def type lists, restricted to the dtypes tfcluster has) ------
_FLOAT = (dtypes.float16, dtypes.float32, dtypes.float64)
_COMPLEX = (dtypes.complex64, dtypes.complex128)
_INT32_64 = (dtypes.int32, dtypes.int64)
_SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_REAL = (*_FLOAT, *_SIGNED, dtypes.uint8, dtypes.uint16)
_NUMBER = (*_REAL, *_COMPLEX)
_FLOAT_COMPLEX = (*_FLOAT, *_COMPLEX)
_UNARY_ARITH = (*_FLOAT, *_INT32_64, *_COMPLEX)
_ALL_TYPES = (*_NUMBER, dtypes.bool_, dtypes.string)

# Binary element-wise ops: op type -> the dtypes its T attr allows.
_BINARY_TYPES: dict[str, tuple[dtypes.DType, ...]] = {
    "Add": (*_NUMBER, dtypes.string),
    "AddV2": _NUMBER,
    "Sub": _NUMBER,
    "Mul": _NUMBER,
    "RealDiv": _NUMBER,
    "Div": _NUMBER,
    "DivNoNan": _FLOAT_COMPLEX,
    "FloorDiv": _NUMBER,
    "TruncateDiv": _NUMBER,
    "FloorMod": (*_INT32_64, *_FLOAT),
    "TruncateMod": (*_INT32_64, *_FLOAT),
    "Pow": _UNARY_ARITH,
    # TF 2.x's lists (1.15's lacked the 8/16-bit integers saturate_cast needs).
    "Maximum": _REAL,
    "Minimum": _REAL,
    "SquaredDifference": _UNARY_ARITH,
}
_COMPARISON_TYPES: dict[str, tuple[dtypes.DType, ...]] = {
    "Less": _REAL,
    "LessEqual": _REAL,
    "Greater": _REAL,
    "GreaterEqual": _REAL,
    "Equal": _ALL_TYPES,
    "NotEqual": _ALL_TYPES,
}
_UNARY_TYPES: dict[str, tuple[dtypes.DType, ...]] = {
    "Neg": (*_FLOAT, *_SIGNED, *_COMPLEX),
    "Abs": (*_FLOAT, *_SIGNED),
    "Square": _UNARY_ARITH,
    "Reciprocal": _UNARY_ARITH,
    "Sign": _UNARY_ARITH,
    "Round": _UNARY_ARITH,
    "Floor": _FLOAT,
    "Ceil": _FLOAT,
    "Conj": _COMPLEX,
    **{
        op: _FLOAT_COMPLEX
        for op in (
            "Sqrt",
            "Rsqrt",
            "Exp",
            "Log",
            "Log1p",
            "Expm1",
            "Tanh",
            "Sigmoid",
            "Sin",
            "Cos",
            "Tan",
            "Asin",
            "Acos",
            "Atan",
        )
    },
}
# Gradient helper ops of TF (y, dy) -> dx, used by math_grad.
_GRAD_HELPER_OPS = ("TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad")


# ---- shape inference ----------------------------------------------------------------------
def _is_finite_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.bool_, inputs[0].shape)]


def _logical_not_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.bool_, inputs[0].shape)]


def _grad_helper_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape.merge_with(inputs[1].shape))]


def _rank_error(want: int, got: int, what: str, shapes: Sequence[TensorShape]) -> ValueError:
    listed = ", ".join(str(s) for s in shapes)
    return ValueError(
        f"Shape must be rank {want} but is rank {got} for '{what}' with input shapes: {listed}."
    )


def _matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a, b = inputs
    # Graph.create_op adds the node's name, op type and input shapes, as TF's errors do.
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims != 2:
            raise op_def_registry.NodeShapeError(
                f"Shape must be rank 2 but is rank {t.shape.ndims}"
            )
    ad = a.shape.as_list() if a.shape.ndims is not None else [None, None]
    bd = b.shape.as_list() if b.shape.ndims is not None else [None, None]
    if attrs.get("transpose_a"):
        ad = ad[::-1]
    if attrs.get("transpose_b"):
        bd = bd[::-1]
    if ad[1] is not None and bd[0] is not None and ad[1] != bd[0]:
        raise op_def_registry.NodeShapeError(
            f"Dimensions must be equal, but are {ad[1]} and {bd[0]}"
        )
    return [(a.dtype.base_dtype, TensorShape([ad[0], bd[1]]))]


def _batch_matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a, b = inputs
    dtype = a.dtype.base_dtype
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims < 2:
            raise ValueError(
                f"Shape must be at least rank 2 but is rank {t.shape.ndims} for 'BatchMatMul' "
                f"with input shapes: {a.shape}, {b.shape}."
            )
    if a.shape.ndims is None or b.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    ad, bd = a.shape.as_list(), b.shape.as_list()
    if len(ad) != len(bd):
        raise ValueError(
            f"Shapes must be equal rank, but are {len(ad)} and {len(bd)} for 'BatchMatMul' "
            f"with input shapes: {a.shape}, {b.shape}."
        )
    batch = TensorShape(ad[:-2]).merge_with(TensorShape(bd[:-2])).as_list()
    m, ka = (ad[-1], ad[-2]) if attrs.get("adj_x") else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if attrs.get("adj_y") else (bd[-2], bd[-1])
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(
            f"Dimensions must be equal, but are {ka} and {kb} for 'BatchMatMul' with input "
            f"shapes: {a.shape}, {b.shape}."
        )
    return [(dtype, TensorShape([*batch, m, n]))]


def _cast_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["DstT"], inputs[0].shape)]


def _select_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    cond, x, y = inputs
    try:
        data = x.shape.merge_with(y.shape)
    except ValueError:
        raise ValueError(
            f"Shapes must be equal for 'then' and 'else' of 'Select', but are {x.shape} and "
            f"{y.shape}."
        ) from None
    if cond.shape.ndims is None or data.ndims is None or cond.shape.ndims == 0:
        return [(x.dtype.base_dtype, data)]
    try:
        if cond.shape.ndims == 1 and data.ndims > 1:
            TensorShape([data.as_list()[0]]).merge_with(cond.shape)
        else:
            data = data.merge_with(cond.shape)
    except ValueError:
        raise ValueError(
            f"The condition of 'Select' must be a scalar, a vector matching the first dimension "
            f"of 'then', or have the shape of 'then'; got {cond.shape} for {data}."
        ) from None
    return [(x.dtype.base_dtype, data)]


def _select_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    cond, x, y = inputs
    shape = broadcast_shape(broadcast_shape(cond.shape, x.shape), y.shape)
    return [(x.dtype.base_dtype, shape)]


def _reduction_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, axes_t = inputs
    dtype = x.dtype.base_dtype if "T" in attrs else dtypes.bool_
    if axes_t.shape.ndims is not None and axes_t.shape.ndims > 1:
        raise _rank_error(1, axes_t.shape.ndims, "reduction_indices", [x.shape, axes_t.shape])
    axes = inferred_value(axes_t)
    keep = attrs.get("keep_dims", False)
    if x.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    rank = x.shape.ndims
    if axes is None:
        return [(dtype, TensorShape([None] * rank if keep else None))]
    reduced = set()
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        reduced.add(a % rank)
    dims = x.shape.as_list()
    if keep:
        return [(dtype, TensorShape([1 if i in reduced else d for i, d in enumerate(dims)]))]
    return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in reduced]))]


def _arg_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, dim_t = inputs
    out_type = attrs["output_type"]
    if dim_t.shape.ndims is not None and dim_t.shape.ndims != 0:
        raise _rank_error(0, dim_t.shape.ndims, "dimension", [x.shape, dim_t.shape])
    if x.shape.ndims is None:
        return [(out_type, TensorShape(None))]
    rank = x.shape.ndims
    dim = tensor_util.constant_value(dim_t)
    if dim is None:
        return [(out_type, TensorShape([None] * builtins.max(rank - 1, 0)))]
    d = int(dim)
    if not -rank <= d < rank:
        raise ValueError(
            f"Dimension ({d}) must be in the range [{-rank}, {rank}), where {rank} is the number "
            "of dimensions in the input."
        )
    dims = x.shape.as_list()
    del dims[d % rank]
    return [(out_type, TensorShape(dims))]


def _scan_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, axis_t = inputs
    if axis_t.shape.ndims is not None and axis_t.shape.ndims != 0:
        raise _rank_error(0, axis_t.shape.ndims, "axis", [x.shape, axis_t.shape])
    axis = tensor_util.constant_value(axis_t)
    rank = x.shape.ndims
    if axis is not None and rank is not None and not -rank <= int(axis) < rank:
        raise ValueError(f"axis {int(axis)} is out of range for a tensor of rank {rank}")
    return [(x.dtype.base_dtype, x.shape)]


def _add_n_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = inputs[0].dtype.base_dtype
    shape = TensorShape(None)
    for i, t in enumerate(inputs):
        if t.dtype.base_dtype != dtype:
            raise TypeError(
                f"Input 'inputs[{i}]' of 'AddN' Op has type {t.dtype.base_dtype.name} that does "
                f"not match type {dtype.name} of argument 'inputs[0]'."
            )
        try:
            shape = shape.merge_with(t.shape)
        except ValueError:
            raise ValueError(
                f"Shapes must be equal for all inputs of 'AddN', but input {i} has shape "
                f"{t.shape} and the others {shape}."
            ) from None
    if "shape" in attrs:
        shape = shape.merge_with(attrs["shape"])
    return [(dtype, shape)]


def _bcast_args_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, TensorShape([None])), (dtype, TensorShape([None]))]


def _range_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    for t, what in zip(inputs, ("start", "limit", "delta")):
        if t.shape.ndims is not None and t.shape.ndims != 0:
            raise _rank_error(0, t.shape.ndims, f"Range ({what})", [t.shape])
    vals = [inferred_value(t) for t in inputs]
    dtype = inputs[0].dtype.base_dtype
    if any(v is None for v in vals):
        return [(dtype, TensorShape([None]))]
    start, limit, delta = (np.asarray(v).item() for v in vals)
    _check_range(start, limit, delta, ValueError)
    return [(dtype, TensorShape([_range_size(start, limit, delta)]))]


def _check_range(start: Any, limit: Any, delta: Any, error: Callable[[str], Exception]) -> None:
    if delta == 0:
        raise error(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise error(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise error(f"Requires start >= limit when delta < 0: {start}/{limit}")


def _range_size(start: Any, limit: Any, delta: Any) -> int:
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        return builtins.abs(limit - start + delta - (1 if delta > 0 else -1)) // builtins.abs(delta)
    return math.ceil(builtins.abs((limit - start) / delta))


for _op in _BINARY_TYPES:
    op_def_registry.register(_op, binary_broadcast)
for _op in _COMPARISON_TYPES:
    op_def_registry.register(_op, binary_broadcast_bool)
for _op in _UNARY_TYPES:
    op_def_registry.register(_op, unary_same)
for _op in ("IsFinite", "IsNan", "IsInf"):
    op_def_registry.register(_op, _is_finite_infer)
for _op in _GRAD_HELPER_OPS:
    op_def_registry.register(_op, _grad_helper_infer)
for _op in ("Sum", "Prod", "Mean", "Max", "Min", "All", "Any"):
    op_def_registry.register(_op, _reduction_infer)
op_def_registry.register("LogicalAnd", binary_broadcast_bool)
op_def_registry.register("LogicalOr", binary_broadcast_bool)
op_def_registry.register("LogicalNot", _logical_not_infer)
op_def_registry.register("MatMul", _matmul_infer)


def _fused_matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """_FusedMatMul (a, b, bias): the product's shape (the graph optimizer makes it from
    MatMul -> BiasAdd, runtime/kernel_fusion.py)."""
    return _matmul_infer(inputs[:2], attrs)


op_def_registry.register("_FusedMatMul", _fused_matmul_infer)


def _fused_matmuls_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [_matmul_infer([inputs[0], b], {})[0] for b in inputs[1:]]


# Products of one matrix by several others, fused inside a function body
# (runtime/body_fusion.py): inputs a, b1, ..., bn; output j is a @ bj.
op_def_registry.register("_FusedMatMuls", _fused_matmuls_infer)
op_def_registry.register("BatchMatMul", _batch_matmul_infer)
op_def_registry.register("Cast", _cast_infer)
op_def_registry.register("Select", _select_infer)
# Two Selects of two comparisons' masks, fused inside a function body (runtime/body_fusion.py):
# inputs a1, k1, a2, k2, then, else; the result has the then's dtype and shape.
op_def_registry.register("_FusedSelectOfCompares", op_def_registry.same_as_input(4))
op_def_registry.register("SelectV2", _select_v2_infer)
op_def_registry.register("ArgMax", _arg_infer)
op_def_registry.register("ArgMin", _arg_infer)
op_def_registry.register("Cumsum", _scan_infer)
op_def_registry.register("Cumprod", _scan_infer)
op_def_registry.register("AddN", _add_n_infer)
op_def_registry.register("AccumulateNV2", _add_n_infer)
op_def_registry.register("BroadcastGradientArgs", _bcast_args_infer)
op_def_registry.register("Range", _range_infer)


# ---- conversion helpers -------------------------------------------------------------------
def _dtype_of(value: Any) -> dtypes.DType | None:
    """The dtype of a tensor-like value (Tensor, Variable), None for Python/numpy values."""
    if is_tensor_like(value) or hasattr(value, "_as_graph_element"):
        dtype = getattr(value, "dtype", None)
        if isinstance(dtype, dtypes.DType):
            return dtype.base_dtype
    return None


def _input_name(name: str) -> str:
    """TF's name of an input's converted tensor: "inputs[1]" is "inputs_1"."""
    return name.replace("[", "_").strip("]")


def _convert(value: Any, dtype: dtypes.DType | None, name: str) -> Tensor:
    """A tensor for `value`; Python and numpy values take `dtype` (TF's dtype hint)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, indexed_slices.IndexedSlices):
        # As TF's op_def_library: made dense in the op's name scope, named after the input
        # (a gradient function's every use of a sparse gradient converts it once).
        return convert_to_tensor(value, name=_input_name(name))
    if _dtype_of(value) is not None:
        return convert_to_tensor(value)
    try:
        return convert_to_tensor(value, dtype=dtype, name=_input_name(name))
    except ValueError as e:
        # As TF's op_def_library: a value no tensor can hold at all (None) is a ValueError
        # naming the input; one that only misses the dtype, a TypeError.
        try:
            convert_to_tensor(value)
        except ValueError as err:
            raise ValueError(
                f"Tried to convert '{name.split('[')[0]}' to a tensor and failed. Error: {err}"
            ) from None
        raise TypeError(str(e)) from None


def _convert_input(value: Any, dtype: dtypes.DType | None, name: str, op_type: str) -> Tensor:
    """_convert, with TF's op_def_library message when a Python value is not of the dtype."""
    try:
        return _convert(value, dtype, name)
    except TypeError as e:
        if dtype is None or _dtype_of(value) is not None or isinstance(value, Tensor):
            raise
        raise TypeError(
            f"Expected {dtype.name} passed to parameter '{_input_name(name)}' of op "
            f"'{op_type}', got {value!r} of type '{type(value).__name__}' instead. Error: {e}"
        ) from None


def _convert_same(
    values: Sequence[Any], op_type: str, names: Sequence[str] = ("x", "y")
) -> list[Tensor]:
    """Converts the inputs of an op whose inputs share one dtype attr as TF 1.15's
    op_def_library does: in order, the first input fixing the dtype and each later Python or
    numpy value converted to it (a numpy array is cast: tf.pow(float64_array, 2.0) is float64,
    tf.maximum(3, float64_array) int32); a later tensor of another dtype is a TypeError."""
    tensors: list[Tensor] = []
    hint = None
    for v, n in zip(values, names):
        t = _convert_input(v, hint, n, op_type)
        if hint is None:
            hint = t.dtype.base_dtype
        tensors.append(t)
    base = tensors[0].dtype.base_dtype
    for t, n in zip(tensors[1:], names[1:]):
        if t.dtype.base_dtype != base:
            raise TypeError(
                f"Input '{n}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that does not "
                f"match type {base.name} of argument '{names[0]}'."
            )
    return tensors


def _convert_bool(value: Any, op_type: str, name: str) -> Tensor:
    t = _convert(value, dtypes.bool_, name)
    if t.dtype.base_dtype != dtypes.bool_:
        raise TypeError(
            f"Input '{name}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that does not "
            "match expected type of bool."
        )
    return t


def _binary(
    op_type: str,
    x: Any,
    y: Any,
    name: str | None,
    default_name: str | None = None,
    attrs: dict[str, Any] | None = None,
) -> Tensor:
    with name_scope(name, default_name or op_type, [x, y]) as scope:
        a, b = _convert_same([x, y], op_type)
        check_dtype(a, _BINARY_TYPES.get(op_type) or _COMPARISON_TYPES[op_type], op_type)
        attrs = {"T": a.dtype.base_dtype, **(attrs or {})}
        return make_op(op_type, [a, b], attrs, name=scope).outputs[0]


def _unary(op_type: str, x: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [x]) as scope:
        t = _convert(x, None, "x")
        check_dtype(t, _UNARY_TYPES[op_type], op_type)
        return make_op(op_type, [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0]


def _deprecated_lookup(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


# ---- binary element-wise math -------------------------------------------------------------
def add(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Add", x, y, name)


def _add_dispatch(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The `+` operator: AddV2 (TF 1.15 builds it for `+`, while tf.add stays Add), except for
    strings, which only Add concatenates (x's dtype decides, as TF's: float + string is an
    AddV2 that refuses the string)."""
    if _dtype_of(x) == dtypes.string:
        return _binary("Add", x, y, name)
    return _binary("AddV2", x, y, name)


def subtract(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Sub", x, y, name)


def multiply(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Mul", x, y, name)


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("RealDiv", x, y, name)


# TF's truediv table: integers become floats wide enough to hold them.
_TRUEDIV_TABLE = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.int32: dtypes.float64,
    dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None,
    dtypes.float16: None,
    dtypes.float32: None,
    dtypes.float64: None,
    dtypes.complex64: None,
    dtypes.complex128: None,
}


def truediv_target(dtype: dtypes.DType) -> dtypes.DType | None:
    """The dtype Python 3 division casts operands of `dtype` to first (None: divide as they
    are); TypeError for a dtype it does not divide."""
    if dtype not in _TRUEDIV_TABLE:
        raise TypeError(f"Invalid dtype {dtype!r} in __truediv__")
    return _TRUEDIV_TABLE[dtype]


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Python 3 division: integer operands are cast to floats first (int32 -> float64)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        # As TF's _truediv_python3: each converted on its own, then the dtypes compared.
        a = convert_to_tensor(x, name="x")
        b = convert_to_tensor(y, name="y")
        if a.dtype.base_dtype != b.dtype.base_dtype:
            raise TypeError(
                f"x and y must have the same dtype, got {a.dtype.base_dtype!r} != "
                f"{b.dtype.base_dtype!r}"
            )
        target = truediv_target(a.dtype.base_dtype)
        if target is not None:
            a, b = cast(a, target), cast(b, target)
        return make_op("RealDiv", [a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """tf.divide: `x / y` (true division), through the operator as TF does (the other
    operand converted to the tensor's dtype); with a name, truediv itself."""
    if name is not None:
        return truediv(x, y, name=name)
    return x / y  # type: ignore[no-any-return]


def div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's tf.div (Python 2 division): RealDiv for floats, FloorDiv for integers."""
    with name_scope(name, "div", [x, y]) as scope:
        a, b = _convert_same([x, y], "div")
        dtype = a.dtype.base_dtype
        op_type = "RealDiv" if dtype.is_floating or dtype.is_complex else "FloorDiv"
        check_dtype(a, _BINARY_TYPES[op_type], op_type)
        return make_op(op_type, [a, b], {"T": dtype}, name=scope).outputs[0]


def div_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, and 0 wherever y is 0."""
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        a, b = _convert_same([x, y], "DivNoNan")
        check_dtype(a, _BINARY_TYPES["DivNoNan"], "DivNoNan")
        return make_op("DivNoNan", [a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("FloorDiv", x, y, name, default_name="floordiv")


def floor_div(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("FloorDiv", x, y, name)


def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("TruncateDiv", x, y, name)


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("FloorMod", x, y, name)


mod = floormod


def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("TruncateMod", x, y, name)


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Pow", x, y, name)


def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Maximum", x, y, name)


def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Minimum", x, y, name)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("SquaredDifference", x, y, name)


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    t = convert_to_tensor(x)
    s = _convert(scalar, t.dtype.base_dtype, "scalar")
    if s.shape.ndims is not None and s.shape.ndims != 0:
        raise ValueError(f"Only scalar multiply works, got shape {s.shape}")
    # TF 1.15 makes the one Mul op, in no scope of its own.
    return multiply(s, t, name=name)


# ---- comparisons and logic ----------------------------------------------------------------
def less(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Less", x, y, name)


def less_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("LessEqual", x, y, name)


def greater(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Greater", x, y, name)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("GreaterEqual", x, y, name)


# TF 1.15's wrappers pass Equal's and NotEqual's incompatible_shape_error (True) explicitly,
# so their NodeDefs carry it.
def equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("Equal", x, y, name, attrs={"incompatible_shape_error": True})


def not_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("NotEqual", x, y, name, attrs={"incompatible_shape_error": True})


def _logical_binary(op_type: str, x: Any, y: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [x, y]) as scope:
        a = _convert_bool(x, op_type, "x")
        b = _convert_bool(y, op_type, "y")
        return make_op(op_type, [a, b], {}, name=scope).outputs[0]


def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _logical_binary("LogicalAnd", x, y, name)


def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _logical_binary("LogicalOr", x, y, name)


def logical_not(x: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "LogicalNot", [x]) as scope:
        t = _convert_bool(x, "LogicalNot", "x")
        return make_op("LogicalNot", [t], {}, name=scope).outputs[0]


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Tensor:
    """(x | y) & ~(x & y), as TF1 builds it: the last LogicalAnd carries `name`."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def is_finite(x: Any, name: str | None = None) -> Tensor:
    return _float_predicate("IsFinite", x, name)


def is_nan(x: Any, name: str | None = None) -> Tensor:
    return _float_predicate("IsNan", x, name)


def is_inf(x: Any, name: str | None = None) -> Tensor:
    return _float_predicate("IsInf", x, name)


def _float_predicate(op_type: str, x: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [x]) as scope:
        t = _convert(x, None, "x")
        check_dtype(t, _FLOAT, op_type)
        return make_op(op_type, [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0]


# ---- unary math ---------------------------------------------------------------------------
def negative(x: Any, name: str | None = None) -> Tensor:
    return _unary("Neg", x, name)


neg = negative


def abs(x: Any, name: str | None = None) -> Tensor:
    """|x|; a complex x gives its real modulus (TF's ComplexAbs op, still named Abs)."""
    if x is None:  # TF's abs converts x itself before its op: convert_to_tensor's error
        raise ValueError("None values not supported.")
    t = x if isinstance(x, Tensor) else None
    if t is not None and t.dtype.is_complex:
        with name_scope(name, "Abs", [t]) as scope:
            attrs = {"T": t.dtype.base_dtype, "Tout": t.dtype.real_dtype}
            return make_op("ComplexAbs", [t], attrs, name=scope).outputs[0]
    return _unary("Abs", x, name)


def square(x: Any, name: str | None = None) -> Tensor:
    return _unary("Square", x, name)


def sqrt(x: Any, name: str | None = None) -> Tensor:
    return _unary("Sqrt", x, name)


def rsqrt(x: Any, name: str | None = None) -> Tensor:
    return _unary("Rsqrt", x, name)


def exp(x: Any, name: str | None = None) -> Tensor:
    return _unary("Exp", x, name)


def log(x: Any, name: str | None = None) -> Tensor:
    return _unary("Log", x, name)


def log1p(x: Any, name: str | None = None) -> Tensor:
    return _unary("Log1p", x, name)


def expm1(x: Any, name: str | None = None) -> Tensor:
    return _unary("Expm1", x, name)


def sign(x: Any, name: str | None = None) -> Tensor:
    return _unary("Sign", x, name)


def reciprocal(x: Any, name: str | None = None) -> Tensor:
    return _unary("Reciprocal", x, name)


def floor(x: Any, name: str | None = None) -> Tensor:
    return _unary("Floor", x, name)


def ceil(x: Any, name: str | None = None) -> Tensor:
    return _unary("Ceil", x, name)


def round(x: Any, name: str | None = None) -> Tensor:
    """Rounds half to even; integers come back unchanged (as in TF)."""
    t = convert_to_tensor(x)
    if t.dtype.base_dtype.is_integer:
        return t
    return _unary("Round", t, name)


def sin(x: Any, name: str | None = None) -> Tensor:
    return _unary("Sin", x, name)


def cos(x: Any, name: str | None = None) -> Tensor:
    return _unary("Cos", x, name)


def tan(x: Any, name: str | None = None) -> Tensor:
    return _unary("Tan", x, name)


def asin(x: Any, name: str | None = None) -> Tensor:
    return _unary("Asin", x, name)


def acos(x: Any, name: str | None = None) -> Tensor:
    return _unary("Acos", x, name)


def atan(x: Any, name: str | None = None) -> Tensor:
    return _unary("Atan", x, name)


def tanh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Tanh", x, name)


def sigmoid(x: Any, name: str | None = None) -> Tensor:
    return _unary("Sigmoid", x, name)


def conj(x: Any, name: str | None = None) -> Tensor:
    """Complex conjugate; real tensors come back unchanged (as in TF)."""
    t = convert_to_tensor(x)
    if not t.dtype.base_dtype.is_complex:
        if t.dtype.base_dtype in _NUMBER:
            return t
        raise TypeError(f"Expected numeric or variant tensor, got dtype {t.dtype.name}")
    return _unary("Conj", t, name)


def _grad_helper(op_type: str, y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    """TF's fused gradient ops (TanhGrad, ...): dx from the forward output y and dy."""
    with name_scope(name, op_type, [y, dy]) as scope:
        # An IndexedSlices dy is made dense here, as "<op>/dy" (TF's op_def_library).
        dy = convert_to_tensor(dy, dtype=y.dtype.base_dtype, name="dy")
        attrs = {"T": y.dtype.base_dtype}
        return make_op(op_type, [y, dy], attrs, name=scope).outputs[0]


def tanh_grad(y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    return _grad_helper("TanhGrad", y, dy, name)


def sigmoid_grad(y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    return _grad_helper("SigmoidGrad", y, dy, name)


def sqrt_grad(y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    return _grad_helper("SqrtGrad", y, dy, name)


def rsqrt_grad(y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    return _grad_helper("RsqrtGrad", y, dy, name)


def reciprocal_grad(y: Tensor, dy: Tensor, name: str | None = None) -> Tensor:
    return _grad_helper("ReciprocalGrad", y, dy, name)


# ---- casts --------------------------------------------------------------------------------
def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """x as `dtype`; a tensor already of that dtype is returned as it is (as in TF). An
    IndexedSlices or SparseTensor keeps its indices and casts its values."""
    dst = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and x.dtype.base_dtype == dst:
        return x
    if getattr(x, "_is_resource_variable", False) and x.dtype.base_dtype == dst:
        # A resource variable stays itself: its consumer reads it (TF's cast).
        return x  # type: ignore[no-any-return]
    if isinstance(x, indexed_slices.IndexedSlices | sparse_tensor.SparseTensor):
        with name_scope(name, "Cast", [x]) as scope:
            values = cast(x.values, dst, name=scope)
            if isinstance(x, sparse_tensor.SparseTensor):
                return sparse_tensor.SparseTensor(x.indices, values, x.dense_shape)  # type: ignore[return-value]
            return indexed_slices.IndexedSlices(values, x.indices, x.dense_shape)  # type: ignore[return-value]
    with name_scope(name, "Cast", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        src = t.dtype.base_dtype
        if src == dst:
            return t
        if dtypes.string in (src, dst) or dtypes.resource in (src, dst):
            raise TypeError(f"Cast from {src.name} to {dst.name} is not supported")
        attrs = {"SrcT": src, "DstT": dst, "Truncate": False}
        return make_op("Cast", [t], attrs, name=scope).outputs[0]


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Casts, clamping values to the range of `dtype` first so they cannot wrap around."""
    dst = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "saturate_cast", [value]) as scope:
        t = convert_to_tensor(value, name="value")
        src = t.dtype.base_dtype
        if src.is_floating and dst.is_integer:
            # The representable floats nearest the integer range (TF 2.x's limits; a float
            # rounded up past dst.max, or inf, would wrap in the cast).
            lo, hi = _float_limits(src.as_numpy_dtype, dst.as_numpy_dtype)
            t = maximum(t, _convert(lo, src, "min"))
            t = minimum(t, _convert(hi, src, "max"))
        elif (src.is_integer or src.is_floating) and (dst.is_integer or dst.is_floating):
            if src.min < dst.min:
                t = maximum(t, _convert(np.asarray(dst.min).astype(src.as_numpy_dtype), src, "min"))
            if src.max > dst.max:
                t = minimum(t, _convert(np.asarray(dst.max).astype(src.as_numpy_dtype), src, "max"))
        return cast(t, dst, name=scope)


def _float_limits(src: Any, dst: Any) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest values of float dtype src that lie within integer dtype dst."""
    info, finfo = np.iinfo(dst), np.finfo(src)
    with np.errstate(over="ignore"):
        lo, hi = np.asarray(info.min, dtype=src), np.asarray(info.max, dtype=src)
    zero = np.asarray(0, src)
    lo = np.asarray(-finfo.max, src) if not np.isfinite(lo) else lo
    hi = np.asarray(finfo.max, src) if not np.isfinite(hi) else hi
    if float(lo) < info.min:
        lo = np.nextafter(lo, zero)
    if float(hi) > info.max:
        hi = np.nextafter(hi, zero)
    return lo, hi


def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    return cast(x, dtypes.float32, name=name)


def to_double(x: Any, name: str = "ToDouble") -> Tensor:
    return cast(x, dtypes.float64, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    return cast(x, dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x: Any, name: str = "ToBFloat16") -> Tensor:
    return cast(x, dtypes.bfloat16, name=name)


def to_complex64(x: Any, name: str = "ToComplex64") -> Tensor:
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x: Any, name: str = "ToComplex128") -> Tensor:
    return cast(x, dtypes.complex128, name=name)


# ---- select -------------------------------------------------------------------------------
def select(condition: Any, x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elements of x where condition is true, else of y (TF1's Select)."""
    with name_scope(name, "Select", [condition, x, y]) as scope:
        c = _convert_bool(condition, "Select", "condition")
        a, b = _convert_same([x, y], "Select", ("t", "e"))
        return make_op("Select", [c, a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


def select_v2(condition: Any, t: Any, e: Any, name: str | None = None) -> Tensor:
    """Elements of t where condition is true, else of e, all three broadcast together
    (SelectV2: what tf.where_v2 and TF 2's tf.where build)."""
    with name_scope(name, "SelectV2", [condition, t, e]) as scope:
        c = _convert_bool(condition, "SelectV2", "condition")
        a, b = _convert_same([t, e], "SelectV2", ("t", "e"))
        return make_op("SelectV2", [c, a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


# ---- matmul -------------------------------------------------------------------------------
def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """a @ b for matrices (MatMul) or batches of them (BatchMatMul: rank > 2 or unknown)."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    with name_scope(name, "MatMul", [a, b]) as scope:
        mixed = _bfloat16_mixed(a, b)
        if mixed is not None:
            x, y = mixed
        else:
            # TF 1.15's matmul converts a and b each on its own before MatMul checks them: a
            # Python or numpy operand takes its own dtype, not the other operand's.
            x = _convert(a, None, "a")
            y = _convert(b, None, "b")
            x, y = _convert_same([x, y], "MatMul", ("a", "b"))
            check_dtype(x, (*_UNARY_ARITH, dtypes.bfloat16), "MatMul", "a")
        dtype = x.dtype.base_dtype
        ranks = (x.shape.ndims, y.shape.ndims)
        sparse = a_is_sparse or b_is_sparse
        if not sparse and any(r is None or r > 2 for r in ranks):
            # BatchMatMul has only adjoint flags: a transpose is the adjoint of the conjugate.
            if transpose_a:
                x, adjoint_a = conj(x), True
            if transpose_b:
                y, adjoint_b = conj(y), True
            attrs = {"T": dtype, "adj_x": bool(adjoint_a), "adj_y": bool(adjoint_b)}
            # TF 1.15 emits BatchMatMulV2 (batch dimensions broadcast) for batched operands.
            return make_op("BatchMatMulV2", [x, y], attrs, name=scope).outputs[0]
        if adjoint_a:
            x, transpose_a = conj(x), True
        if adjoint_b:
            y, transpose_b = conj(y), True
        kinds = {x.dtype.base_dtype, y.dtype.base_dtype}
        # TF's choice: float32/bfloat16 operands marked sparse, or bfloat16 mixed with another
        # type, make a SparseMatMul (float32; bfloat16 again when both operands are).
        if (sparse and kinds <= {dtypes.float32, dtypes.bfloat16}) or mixed is not None:
            from tfcluster.ops.misc_ops import sparse_matmul

            out = sparse_matmul(x, y, transpose_a, transpose_b, a_is_sparse, b_is_sparse, scope)
            return cast(out, dtypes.bfloat16) if kinds == {dtypes.bfloat16} else out
        attrs = {"T": dtype, "transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
        return make_op("MatMul", [x, y], attrs, name=scope).outputs[0]


def _bfloat16_mixed(a: Any, b: Any) -> tuple[Tensor, Tensor] | None:
    """Both operands as tensors when one is bfloat16 and the other is not (each converted on
    its own, as TF does): TF multiplies such a pair with SparseMatMul."""
    kinds = [_dtype_of(v) for v in (a, b)]
    if dtypes.bfloat16 not in kinds:
        return None
    x = convert_to_tensor(a, name="a")
    y = convert_to_tensor(b, name="b")
    if x.dtype.base_dtype == y.dtype.base_dtype:
        return None
    return x, y


# ---- reductions ---------------------------------------------------------------------------
def _all_axes(x: Any) -> Tensor:
    """TF 1.15's _ReductionDims for axis=None, made before the reduction's name scope: a Const
    of every axis for a Tensor of known rank, made in the default graph (so a tensor of
    another graph fails as TF's does, naming that Const), else range(0, rank(x)) in x's graph
    (also for variables and Python values, whose rank TF does not look at here)."""
    if isinstance(x, Tensor) and x.shape.ndims is not None:
        return convert_to_tensor(np.arange(x.shape.ndims, dtype=np.int32), name="Const")
    with get_graph_from_inputs([x]).as_default():
        return range(0, array_ops.rank(x), 1)


def _reduction_dims(x: Tensor, axis: Any) -> Tensor:
    """Reduction axes given by the caller as an int tensor, named in the op's scope."""
    t = _convert(axis, dtypes.int32, "reduction_indices")
    if t.dtype.base_dtype not in _INT32_64:
        raise TypeError(
            f"Value passed to parameter 'reduction_indices' has DataType {t.dtype.name} not in "
            "list of allowed values: int32, int64"
        )
    return t


def _reduce(
    op_type: str,
    input_tensor: Any,
    axis: Any,
    keepdims: Any,
    name: str | None,
    reduction_indices: Any,
    keep_dims: Any,
    allowed: tuple[dtypes.DType, ...] | None,
) -> Tensor:
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keep = bool(keepdims) if keepdims is not None else False
    all_axes = _all_axes(input_tensor) if axis is None else None
    if isinstance(all_axes, Tensor) and all_axes.graph is not get_graph_from_inputs([input_tensor]):
        # TF's op helper finds the op's graph before opening its name scope: axes made in
        # another graph fail without using up the op's name there. (A function body being
        # built takes both, capturing the tensor.)
        raise ValueError(f"{all_axes} must be from the same graph as {input_tensor}.")
    with name_scope(name, op_type, [input_tensor]) as scope:
        if allowed is None:
            x = _convert_bool(input_tensor, op_type, "input")
        else:
            x = _convert(input_tensor, None, "input")
            check_dtype(x, allowed, op_type, "input")
        dims = all_axes if all_axes is not None else _reduction_dims(x, axis)
        attrs: dict[str, Any] = {"keep_dims": keep, "Tidx": dims.dtype.base_dtype}
        if allowed is not None:
            attrs["T"] = x.dtype.base_dtype
        out = make_op(op_type, [x, dims], attrs, name=scope).outputs[0]
    if not keep and axis is None:
        out.set_shape([])  # all axes reduced: a scalar even when the rank is unknown
    return out


def reduce_sum(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, _NUMBER)


def reduce_mean(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce(
        "Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, _NUMBER
    )


def reduce_prod(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce(
        "Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, _NUMBER
    )


def reduce_max(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, _REAL)


def reduce_min(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, _REAL)


def reduce_all(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, None)


def reduce_any(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims, None)


def reduce_logsumexp(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    """log(sum(exp(x))), computed stably by shifting with the (finite) maximum, as TF does."""
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keep = bool(keepdims) if keepdims is not None else False
    x = convert_to_tensor(input_tensor)  # as TF, before its scope
    with name_scope(name, "ReduceLogSumExp", [x]):
        raw_max = reduce_max(x, axis=axis, keepdims=True)
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        my_max = array_ops.stop_gradient(
            select(is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max))
        )
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keep))
        if not keep:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        # As TF: the result is the scope's "Add" op (gradients name it ReduceLogSumExp/Add_grad).
        out = add(result, my_max)
    if not keep and axis is None:
        out.set_shape([])
    return out


def count_nonzero(
    input_tensor: Any = None,
    axis: Any = None,
    keepdims: Any = None,
    dtype: Any = dtypes.int64,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
    input: Any = None,
) -> Tensor:
    input_tensor = _deprecated_lookup("input", input, "input_tensor", input_tensor)
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        zero = convert_to_tensor(np.zeros((), dtype=x.dtype.as_numpy_dtype), name="zero")
        nonzero = cast(not_equal(x, zero), dtypes.int64)
        return cast(reduce_sum(nonzero, axis=axis, keepdims=keepdims), dtype=dtype)


def _arg_reduce(
    op_type: str, input: Any, axis: Any, name: str | None, dimension: Any, output_type: Any
) -> Tensor:
    axis = _deprecated_lookup("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    out_type = dtypes.as_dtype(output_type).base_dtype
    if out_type not in _INT32_64:
        raise TypeError(
            f"Value passed to parameter 'output_type' has DataType {out_type.name} not in list "
            "of allowed values: int32, int64"
        )
    with name_scope(name, op_type, [input]) as scope:
        x = _convert(input, None, "input")
        check_dtype(x, _NUMBER, op_type, "input")
        d = _convert(axis, dtypes.int32, "dimension")
        check_dtype(d, _INT32_64, op_type, "dimension")
        attrs = {"T": x.dtype.base_dtype, "Tidx": d.dtype.base_dtype, "output_type": out_type}
        return make_op(op_type, [x, d], attrs, name=scope).outputs[0]


def argmax(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = dtypes.int64,
) -> Tensor:
    return _arg_reduce("ArgMax", input, axis, name, dimension, output_type)


def argmin(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = dtypes.int64,
) -> Tensor:
    return _arg_reduce("ArgMin", input, axis, name, dimension, output_type)


def arg_max(
    input: Any, dimension: Any, output_type: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    return _arg_reduce("ArgMax", input, None, name, dimension, output_type)


def arg_min(
    input: Any, dimension: Any, output_type: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    return _arg_reduce("ArgMin", input, None, name, dimension, output_type)


def _scan(
    op_type: str, x: Any, axis: Any, exclusive: bool, reverse: bool, name: str | None
) -> Tensor:
    with name_scope(name, op_type, [x]) as scope:
        t = _convert(x, None, "x")
        check_dtype(t, _NUMBER, op_type)
        a = _convert(axis, dtypes.int32, "axis")
        check_dtype(a, _INT32_64, op_type, "axis")
        attrs = {
            "T": t.dtype.base_dtype,
            "Tidx": a.dtype.base_dtype,
            "exclusive": bool(exclusive),
            "reverse": bool(reverse),
        }
        return make_op(op_type, [t, a], attrs, name=scope).outputs[0]


def cumsum(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


# ---- n-ary sums, range, broadcast args ----------------------------------------------------
def _convert_n(inputs: Any, op_type: str, allowed: Sequence[Any] = _NUMBER) -> list[Tensor]:
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(
            "inputs must be a list of at least one Tensor/IndexedSlices with the same dtype "
            "and shape"
        )
    names = [f"inputs[{i}]" for i in builtins.range(len(inputs))]
    if op_type == "AddN":
        # Terms are tensors by now (_add_n_terms): op_def_library checks them as one list.
        tensors = [_convert(v, None, n) for v, n in zip(inputs, names)]
        _check_list_dtypes(tensors, "inputs", op_type)
    else:
        tensors = _convert_same(list(inputs), op_type, names)
    check_dtype(tensors[0], allowed, op_type, "inputs")
    return tensors


def _add_n_terms(inputs: Any) -> Any:
    """TF 1.15's add_n converts its terms each on its own before its name scope
    (convert_n_to_tensor_or_indexed_slices): a Python or numpy term keeps its own dtype (a
    float64 array beside a float32 tensor is a mismatch) and its Const is named outside AddN."""
    if not isinstance(inputs, (list, tuple)):
        return inputs
    return [
        v
        if isinstance(v, (Tensor, indexed_slices.IndexedSlices)) or _dtype_of(v) is not None
        else convert_to_tensor(v)
        for v in inputs
    ]


def _check_list_dtypes(tensors: Sequence[Tensor], arg: str, op_type: str) -> None:
    """TF's op_def_library message for list inputs of one type attr that differ."""
    kinds = [t.dtype.base_dtype for t in tensors]
    if any(k != kinds[0] for k in kinds):
        raise TypeError(
            f"Tensors in list passed to '{arg}' of '{op_type}' Op have types "
            f"[{', '.join(k.name for k in kinds)}] that don't all match."
        )


def add_n(inputs: Sequence[Any], name: str | None = None) -> Tensor:
    """Element-wise sum of same-shaped tensors."""
    inputs = _add_n_terms(inputs)
    # As TF's AddN, variants too: tf.gradients sums TensorList gradients with it.
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
        tensors = _convert_n(inputs, "AddN", (*_NUMBER, dtypes.variant))
        if name:
            return array_ops.identity(tensors[0], name=name)
        return tensors[0]
    # As TF's op_def_library: IndexedSlices among the terms are made dense inside the op's
    # name scope ("AddN/inputs_1").
    with name_scope(name, "AddN", inputs) as scope:
        tensors = _convert_n(inputs, "AddN", (*_NUMBER, dtypes.variant))
        attrs = {"N": len(tensors), "T": tensors[0].dtype.base_dtype}
        return make_op("AddN", tensors, attrs, name=scope).outputs[0]


def accumulate_n(
    inputs: Sequence[Any],
    shape: Any = None,
    tensor_dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """add_n that may check the shape and dtype it is given (TF's AccumulateNV2)."""
    tensors = _convert_n(inputs, "AccumulateNV2")
    dtype = tensors[0].dtype.base_dtype
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype).base_dtype != dtype:
        raise TypeError(
            f"tensor_dtype is {dtypes.as_dtype(tensor_dtype).name}, inputs are {dtype.name}"
        )
    want = TensorShape(shape)
    for t in tensors:
        if not want.is_compatible_with(t.shape):
            raise ValueError(f"Input tensor {t.name} must have shape {want}, got {t.shape}")
    if len(tensors) == 1 and name is None:
        return tensors[0]
    if len(tensors) == 1:
        return array_ops.identity(tensors[0], name=name)
    attrs = {"N": len(tensors), "T": dtype, "shape": want}
    return make_op("AccumulateNV2", tensors, attrs, name=name or "AccumulateNV2").outputs[0]


def range(
    start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range"
) -> Tensor:
    """[start, start + delta, ...) up to limit. With a dtype each argument is converted to
    it (no casts: an int32 tensor asked for as int64 is ValueError, as in TF 1.15); without
    one the arguments are cast to the widest of them."""
    if limit is None:
        start, limit = 0, start
    order_names = ("start", "limit", "delta")
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        values = [
            convert_to_tensor(v, dtype=dtype, name=n)
            for v, n in zip((start, limit, delta), order_names)
        ]
        if dtype is None:
            # TF asserts the arguments' dtypes (an `assert` statement).
            if not builtins.all(v.dtype in order for v in values):
                raise AssertionError()
            want = builtins.max((v.dtype for v in values), key=order.index)
            values = [cast(v, want) for v in values]
        tidx = values[0].dtype.base_dtype
        if tidx not in (dtypes.bfloat16, *order):
            allowed = "bfloat16, float32, float64, int32, int64"
            raise TypeError(
                f"Value passed to parameter 'start' has DataType {tidx.name} not in list of "
                f"allowed values: {allowed}"
            )
        return make_op("Range", values, {"Tidx": tidx}, name=scope).outputs[0]


def range_cast_to(
    start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range"
) -> Tensor:
    """tf.range for the library's own graphs: the arguments, of any integer or float dtype,
    cast to `dtype` (the widest of theirs without one)."""
    if limit is None:
        start, limit = 0, start
    order_names = ("start", "limit", "delta")
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        values = [convert_to_tensor(v, name=n) for v, n in zip((start, limit, delta), order_names)]
        if dtype is not None:
            want = dtypes.as_dtype(dtype).base_dtype
        else:
            want = builtins.max((v.dtype.base_dtype for v in values), key=order.index)
        ts = [cast(v, want) for v in values]
        return make_op("Range", ts, {"Tidx": want}, name=scope).outputs[0]


def broadcast_gradient_args(
    s0: Tensor, s1: Tensor, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The axes to sum over to reduce a broadcast result's gradient to shapes s0 and s1."""
    op = make_op(
        "BroadcastGradientArgs",
        [s0, s1],
        {"T": s0.dtype.base_dtype},
        name=name or "BroadcastGradientArgs",
    )
    return op.outputs[0], op.outputs[1]


# ---- operator overloads -------------------------------------------------------------------
def _binary_overload(fn: Callable[..., Tensor], op_name: str) -> tuple[Any, Any]:
    """TF's binary_op_wrapper / r_binary_op_wrapper: a name scope named after the operator
    ("add", "mul", ...) and the other operand converted to this tensor's dtype."""

    def forward(x: Any, y: Any) -> Any:
        with name_scope(None, op_name, [x, y]) as scope:
            if _dtype_of(y) is None and not isinstance(y, Tensor):
                try:
                    # TF's dtype_hint: a Dimension (int32 only) still converts, and the op
                    # then reports the mismatch.
                    y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
                except (TypeError, ValueError):
                    if hasattr(type(y), f"__r{op_name}__"):
                        return NotImplemented
                    raise
            return fn(x, y, name=scope)

    def reverse(y: Any, x: Any) -> Any:
        with name_scope(None, op_name, [x, y]) as scope:
            x = _convert(x, y.dtype.base_dtype, "x")
            return fn(x, y, name=scope)

    return forward, reverse


def _getitem(self: Any, key: Any) -> Tensor:
    if hasattr(self, "_strided_slice_assign"):
        # A variable: its value sliced, the slice assignable (TF's _SliceHelperVar).
        return array_ops.strided_slice_from_key(self.value(), key, var=self)
    return array_ops.strided_slice_from_key(self, key)


def _build_overloads() -> dict[str, Callable[..., Any]]:
    table: dict[str, Callable[..., Any]] = {}
    binary: list[tuple[Callable[..., Tensor], str]] = [
        (_add_dispatch, "add"),
        (subtract, "sub"),
        (multiply, "mul"),
        (truediv, "truediv"),
        (floordiv, "floordiv"),
        (floormod, "mod"),
        (pow, "pow"),
        (matmul, "matmul"),
        (logical_and, "and"),
        (logical_or, "or"),
        (logical_xor, "xor"),
    ]
    for fn, op_name in binary:
        table[f"__{op_name}__"], table[f"__r{op_name}__"] = _binary_overload(fn, op_name)
    table["__lt__"] = lambda x, y: less(x, y)
    table["__le__"] = lambda x, y: less_equal(x, y)
    table["__gt__"] = lambda x, y: greater(x, y)
    table["__ge__"] = lambda x, y: greater_equal(x, y)
    table["__neg__"] = lambda x: negative(x)
    table["__abs__"] = lambda x: abs(x)
    table["__invert__"] = lambda x: logical_not(x)
    table["__getitem__"] = _getitem
    return table


_OVERLOADS = _build_overloads()
# The operator names Tensor and Variable have (ResourceVariable reads itself first).
OVERLOADED_OPERATORS = tuple(_OVERLOADS)


def install_operator_overloads(cls: type) -> None:
    """Gives `cls` (Tensor, Variable) TF's arithmetic, comparison and logic operators."""
    for name, fn in _OVERLOADS.items():
        setattr(cls, name, fn)
        if cls is Tensor:
            Tensor.OVERLOADABLE_OPERATORS.add(name)


install_operator_overloads(Tensor)


__all__ = [
    "abs",
    "accumulate_n",
    "acos",
    "add",
    "add_n",
    "arg_max",
    "arg_min",
    "argmax",
    "argmin",
    "asin",
    "atan",
    "cast",
    "ceil",
    "conj",
    "cos",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "div",
    "div_no_nan",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_div",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "is_finite",
    "is_inf",
    "is_nan",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "range",
    "realdiv",
    "reciprocal",
    "reduce_all",
    "reduce_any",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "round",
    "rsqrt",
    "saturate_cast",
    "scalar_mul",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "squared_difference",
    "subtract",
    "tan",
    "tanh",
    "to_bfloat16",
    "to_complex64",
    "to_complex128",
    "to_double",
    "to_float",
    "to_int32",
    "to_int64",
    "truediv",
    "truncatediv",
    "truncatemod",
]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
