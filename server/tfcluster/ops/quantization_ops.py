"""tf.quantization: fake quantization (FakeQuantWithMinMaxArgs / Vars / VarsPerChannel and
their gradient ops), QuantizeV2, Dequantize, QuantizedConcat and QuantizeAndDequantizeV2, as
TF 1.15's generated wrappers build them (op types, attrs, default names)."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import check_dtype, merge_dim, shape_list, static_int, with_rank
from tfcluster.ops.op_util import Outputs, make_op

QUANTIZED = (dtypes.qint8, dtypes.quint8, dtypes.qint32, dtypes.qint16, dtypes.quint16)
_FLOAT = (dtypes.float32,)
_QDQ = (dtypes.float16, dtypes.float32, dtypes.float64)
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_ROUND_MODES = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")
_QDQ_ROUND_MODES = ("HALF_TO_EVEN", "HALF_UP")


def _scalar() -> TensorShape:
    return TensorShape([])


def _merged(a: TensorShape, b: TensorShape) -> TensorShape:
    try:
        return a.merge_with(b)
    except ValueError:
        raise ValueError(f"Shapes {a} and {b} are not compatible") from None


def _args_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, inputs[0].shape)]


def _args_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, _merged(inputs[0].shape, inputs[1].shape))]


def _vars_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 0, "min")
    with_rank(inputs[2].shape, 0, "max")
    return [(dtypes.float32, inputs[0].shape)]


def _vars_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = _merged(inputs[0].shape, inputs[1].shape)
    with_rank(inputs[2].shape, 0, "min")
    with_rank(inputs[3].shape, 0, "max")
    return [(dtypes.float32, shape), (dtypes.float32, _scalar()), (dtypes.float32, _scalar())]


def _channels(x: TensorShape, lo: TensorShape, hi: TensorShape) -> int | None:
    dims = shape_list(x)
    if dims is not None and not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    lo_dims = with_rank(lo, 1, "min").as_list()
    hi_dims = with_rank(hi, 1, "max").as_list()
    depth = merge_dim(lo_dims[0], hi_dims[0], "min and max")
    last = dims[-1] if dims else None
    return merge_dim(last, depth, "inputs' last dimension and min")


def _per_channel_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _channels(inputs[0].shape, inputs[1].shape, inputs[2].shape)
    return [(dtypes.float32, inputs[0].shape)]


def _per_channel_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = _merged(inputs[0].shape, inputs[1].shape)
    depth = _channels(shape, inputs[2].shape, inputs[3].shape)
    vec = TensorShape([depth])
    return [(dtypes.float32, shape), (dtypes.float32, vec), (dtypes.float32, vec)]


def _quantize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 0, "min_range")
    with_rank(inputs[2].shape, 0, "max_range")
    return [(attrs["T"], inputs[0].shape), (dtypes.float32, _scalar()), (dtypes.float32, _scalar())]


def _dequantize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 0, "min_range")
    with_rank(inputs[2].shape, 0, "max_range")
    return [(dtypes.float32, inputs[0].shape)]


def _quantized_concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = int(attrs["N"])
    axis_t, values = inputs[0], inputs[1 : 1 + n]
    with_rank(axis_t.shape, 0, "concat_dim")
    for t in inputs[1 + n :]:
        with_rank(t.shape, 0, "input_mins/input_maxes")
    shape = _concat_shape(axis_t, values)
    return [(attrs["T"], shape), (dtypes.float32, _scalar()), (dtypes.float32, _scalar())]


def _concat_shape(axis_t: Tensor, values: Sequence[Tensor]) -> TensorShape:
    ranks = {len(d) for d in (shape_list(v.shape) for v in values) if d is not None}
    if len(ranks) > 1:
        raise ValueError(f"Shapes of all inputs must have the same rank: {sorted(ranks)}")
    axis = static_int(axis_t)
    if not ranks:
        return TensorShape(None)
    rank = ranks.pop()
    if axis is None:
        return TensorShape([None] * rank)
    if not -rank <= axis < rank:
        raise ValueError(
            f"Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}"
        )
    axis %= rank
    out: list[int | None] = [None] * rank
    total: int | None = 0
    for v in values:
        dims = shape_list(v.shape)
        if dims is None:
            total = None
            continue
        for i, d in enumerate(dims):
            if i == axis:
                total = None if total is None or d is None else total + d
            else:
                out[i] = merge_dim(out[i], d, "QuantizedConcat")
    out[axis] = total
    return TensorShape(out)


def _qdq_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


op_def_registry.register("FakeQuantWithMinMaxArgs", _args_infer)
op_def_registry.register("FakeQuantWithMinMaxArgsGradient", _args_grad_infer)
op_def_registry.register("FakeQuantWithMinMaxVars", _vars_infer)
op_def_registry.register("FakeQuantWithMinMaxVarsGradient", _vars_grad_infer)
op_def_registry.register("FakeQuantWithMinMaxVarsPerChannel", _per_channel_infer)
op_def_registry.register("FakeQuantWithMinMaxVarsPerChannelGradient", _per_channel_grad_infer)
op_def_registry.register("QuantizeV2", _quantize_infer)
op_def_registry.register("Dequantize", _dequantize_infer)
op_def_registry.register("QuantizedConcat", _quantized_concat_infer)
op_def_registry.register("QuantizeAndDequantizeV2", _qdq_infer)


def _float_input(value: Any, name: str, op_type: str) -> Tensor:
    t = convert_to_tensor(value, name=name, preferred_dtype=dtypes.float32)
    check_dtype(t, _FLOAT, op_type, name)
    return t


def _fake_quant_attrs(num_bits: Any, narrow_range: Any) -> dict[str, Any]:
    return {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}


def fake_quant_with_min_max_args(
    inputs: Any,
    min: float = -6,
    max: float = 6,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Tensor:
    """inputs clamped to [min, max] (nudged so that 0 is exact) and rounded to one of
    2^num_bits levels (2^num_bits - 1 with narrow_range), as floats."""
    op_type = "FakeQuantWithMinMaxArgs"
    with name_scope(name, op_type, [inputs]) as scope:
        x = _float_input(inputs, "inputs", op_type)
        attrs = {"min": float(min), "max": float(max), **_fake_quant_attrs(num_bits, narrow_range)}
        return make_op(op_type, [x], attrs, name=scope).outputs[0]


def fake_quant_with_min_max_args_gradient(
    gradients: Any,
    inputs: Any,
    min: float = -6,
    max: float = 6,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Tensor:
    op_type = "FakeQuantWithMinMaxArgsGradient"
    with name_scope(name, op_type, [gradients, inputs]) as scope:
        g = _float_input(gradients, "gradients", op_type)
        x = _float_input(inputs, "inputs", op_type)
        attrs = {"min": float(min), "max": float(max), **_fake_quant_attrs(num_bits, narrow_range)}
        return make_op(op_type, [g, x], attrs, name=scope).outputs[0]


def _vars_op(
    op_type: str,
    tensors: list[tuple[Any, str]],
    num_bits: Any,
    narrow_range: Any,
    name: str | None,
) -> Any:
    with name_scope(name, op_type, [v for v, _ in tensors]) as scope:
        inputs = [_float_input(v, arg, op_type) for v, arg in tensors]
        op = make_op(op_type, inputs, _fake_quant_attrs(num_bits, narrow_range), name=scope)
        return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)


def fake_quant_with_min_max_vars(
    inputs: Any,
    min: Any,
    max: Any,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Tensor:
    """Fake quantization with the range given by scalar tensors (trainable min/max)."""
    args = [(inputs, "inputs"), (min, "min"), (max, "max")]
    return _vars_op("FakeQuantWithMinMaxVars", args, num_bits, narrow_range, name)  # type: ignore[no-any-return]


def fake_quant_with_min_max_vars_gradient(
    gradients: Any,
    inputs: Any,
    min: Any,
    max: Any,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Any:
    """(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)."""
    args = [(gradients, "gradients"), (inputs, "inputs"), (min, "min"), (max, "max")]
    out = _vars_op("FakeQuantWithMinMaxVarsGradient", args, num_bits, narrow_range, name)
    return FakeQuantWithMinMaxVarsGradient(*out)


def fake_quant_with_min_max_vars_per_channel(
    inputs: Any,
    min: Any,
    max: Any,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Tensor:
    """Fake quantization with one [min, max] per entry of the last dimension."""
    args = [(inputs, "inputs"), (min, "min"), (max, "max")]
    op_type = "FakeQuantWithMinMaxVarsPerChannel"
    return _vars_op(op_type, args, num_bits, narrow_range, name)  # type: ignore[no-any-return]


def fake_quant_with_min_max_vars_per_channel_gradient(
    gradients: Any,
    inputs: Any,
    min: Any,
    max: Any,
    num_bits: int = 8,
    narrow_range: bool = False,
    name: str | None = None,
) -> Any:
    args = [(gradients, "gradients"), (inputs, "inputs"), (min, "min"), (max, "max")]
    op_type = "FakeQuantWithMinMaxVarsPerChannelGradient"
    out = _vars_op(op_type, args, num_bits, narrow_range, name)
    return FakeQuantWithMinMaxVarsPerChannelGradient(*out)


# The named results of TF's generated wrappers (sess.run returns them by the same types).
FakeQuantWithMinMaxVarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)
FakeQuantWithMinMaxVarsPerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)
QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])


def _choice(value: Any, allowed: Sequence[str], what: str) -> str:
    text = value.decode() if isinstance(value, bytes) else str(value)
    if text not in allowed:
        raise ValueError(f"{what} must be one of {list(allowed)}, got '{text}'")
    return text


def quantize(
    input: Any,
    min_range: Any,
    max_range: Any,
    T: Any,
    mode: str = "MIN_COMBINED",
    round_mode: str = "HALF_AWAY_FROM_ZERO",
    name: str | None = None,
) -> QuantizeV2:
    """float input -> (quantized output of type T, output_min, output_max) (QuantizeV2)."""
    op_type = "QuantizeV2"
    with name_scope(name, op_type, [input, min_range, max_range]) as scope:
        x = _float_input(input, "input", op_type)
        lo = _float_input(min_range, "min_range", op_type)
        hi = _float_input(max_range, "max_range", op_type)
        t = dtypes.as_dtype(T).base_dtype
        if t not in QUANTIZED:
            names = ", ".join(d.name for d in QUANTIZED)
            raise TypeError(
                f"Value passed to parameter 'T' has DataType {t.name} not in list of allowed "
                f"values: {names}"
            )
        attrs = {
            "T": t,
            "mode": _choice(mode, _MODES, "mode"),
            "round_mode": _choice(round_mode, _ROUND_MODES, "round_mode"),
        }
        return QuantizeV2(*make_op(op_type, [x, lo, hi], attrs, name=scope).outputs)


def quantize_v2(
    input: Any,
    min_range: Any,
    max_range: Any,
    T: Any,
    mode: str = "MIN_COMBINED",
    name: str | None = None,
    round_mode: str = "HALF_AWAY_FROM_ZERO",
) -> QuantizeV2:
    """tf.quantize_v2: tf.quantization.quantize with TF 1.15's older argument order."""
    return quantize(input, min_range, max_range, T, mode=mode, round_mode=round_mode, name=name)


def dequantize(
    input: Any,
    min_range: Any,
    max_range: Any,
    mode: str = "MIN_COMBINED",
    name: str | None = None,
) -> Tensor:
    """A quantized tensor and its range -> float32 values (Dequantize)."""
    op_type = "Dequantize"
    with name_scope(name, op_type, [input, min_range, max_range]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, QUANTIZED, op_type, "input")
        lo = _float_input(min_range, "min_range", op_type)
        hi = _float_input(max_range, "max_range", op_type)
        attrs = {"T": x.dtype.base_dtype, "mode": _choice(mode, _MODES, "mode")}
        return make_op(op_type, [x, lo, hi], attrs, name=scope).outputs[0]


def quantized_concat(
    concat_dim: Any,
    values: Any,
    input_mins: Any,
    input_maxes: Any,
    name: str | None = None,
) -> QuantizedConcat:
    """Quantized tensors joined along concat_dim, requantized into one common range."""
    op_type = "QuantizedConcat"
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected list for 'values' argument to '{op_type}' Op, not {values!r}.")
    n = len(values)
    for arg, items in (("input_mins", input_mins), ("input_maxes", input_maxes)):
        if not isinstance(items, (list, tuple)):
            raise TypeError(f"Expected list for '{arg}' argument to '{op_type}' Op, not {items!r}.")
        if len(items) != n:
            raise ValueError(
                f"List argument '{arg}' to '{op_type}' Op with length {len(items)} must match "
                f"length {n} of argument 'values'."
            )
    with name_scope(name, op_type, [concat_dim, *values, *input_mins, *input_maxes]) as scope:
        axis = convert_to_tensor(concat_dim, dtype=dtypes.int32, name="concat_dim")
        tensors = [convert_to_tensor(v) for v in values]
        for t in tensors:
            check_dtype(t, QUANTIZED, op_type, "values")
        if len({t.dtype.base_dtype for t in tensors}) > 1:
            raise TypeError(
                f"All tensors passed to 'values' of '{op_type}' Op must have the same type."
            )
        mins = [_float_input(v, "input_mins", op_type) for v in input_mins]
        maxes = [_float_input(v, "input_maxes", op_type) for v in input_maxes]
        attrs = {"N": n, "T": tensors[0].dtype.base_dtype}
        op = make_op(op_type, [axis, *tensors, *mins, *maxes], attrs, name=scope)
        return QuantizedConcat(*op.outputs)


def quantize_and_dequantize(
    input: Any,
    input_min: Any,
    input_max: Any,
    signed_input: bool = True,
    num_bits: int = 8,
    range_given: bool = False,
    round_mode: str = "HALF_TO_EVEN",
    name: str | None = None,
    narrow_range: bool = False,
) -> Tensor:
    """input quantized to num_bits and back to floats (QuantizeAndDequantizeV2); its gradient
    passes through (TF's tf.quantization.quantize_and_dequantize)."""
    op_type = "QuantizeAndDequantizeV2"
    with name_scope(name, op_type, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, _QDQ, op_type, "input")
        lo = convert_to_tensor(input_min, dtype=x.dtype.base_dtype, name="input_min")
        hi = convert_to_tensor(input_max, dtype=x.dtype.base_dtype, name="input_max")
        attrs = {
            "signed_input": bool(signed_input),
            "num_bits": int(num_bits),
            "range_given": bool(range_given),
            "T": x.dtype.base_dtype,
            "round_mode": _choice(round_mode, _QDQ_ROUND_MODES, "round_mode"),
            "narrow_range": bool(narrow_range),
        }
        return make_op(op_type, [x, lo, hi], attrs, name=scope).outputs[0]
