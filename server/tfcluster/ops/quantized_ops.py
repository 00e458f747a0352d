"""Quantized arithmetic ops TF 1.15 runs on the CPU (quint8 / qint32 values, each with its
float range as two scalar inputs and outputs): QuantizedAdd / Mul / BiasAdd / MatMul /
Conv2D / MaxPool / AvgPool / Relu / Relu6 / ReluX / Reshape / ResizeBilinear /
InstanceNorm / BatchNormWithGlobalNormalization, Requantize, RequantizationRange,
QuantizeDownAndShrinkRange and QuantizeAndDequantize (V1) / V3, with TF's shape functions;
tf.nn.quantized_* build them.

TF 1.15 defines QuantizedReluX with no kernel at all (running it fails as in TF); the fused
QuantizedConv2D* / QuantizedMatMulWith* / QuantizedDepthwiseConv2D* / *PerChannel ops, which
have MKL kernels only (none in TF's CPU builds), are defined in mkl_quantized_ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, conv_ops, image_ops, math_ops, nn_ops
from tfcluster.ops.broadcast_ops import broadcast_static_shape
from tfcluster.ops.infer_util import with_rank
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.shape_fn_checks import with_rank as _scalar_check

_F32 = dtypes.float32


def _scalar() -> TensorShape:
    return TensorShape([])


def _ranges(inputs: Sequence[Tensor], first: int, last: int) -> None:
    """TF's shape functions want every min / max input a scalar."""
    for i in range(first, last + 1):
        _scalar_check(inputs[i].shape, 0)


def _with_range(dtype: dtypes.DType, shape: TensorShape) -> Outputs:
    return [(dtype, shape), (_F32, _scalar()), (_F32, _scalar())]


def _add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _ranges(inputs, 2, 5)
    return _binary_infer(inputs, attrs)


def _binary_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """TF 1.15's QuantizedMul does not check its range inputs' ranks; QuantizedAdd does."""
    shape = broadcast_static_shape(inputs[0].shape, inputs[1].shape)
    return _with_range(attrs.get("Toutput", dtypes.qint32), shape)


def _activation_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    first = 2 if len(inputs) == 4 else 1  # QuantizedReluX has max_value second
    if first == 2:
        _scalar_check(inputs[1].shape, 0)
    _ranges(inputs, first, first + 1)
    return _with_range(attrs.get("out_type", dtypes.quint8), inputs[0].shape)


def _reshape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _ranges(inputs, 2, 3)
    ((dtype, shape),) = array_ops._reshape_infer(inputs[:2], attrs)
    return _with_range(dtype, shape)


def _bias_add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _ranges(inputs, 2, 5)
    ((_, shape),) = nn_ops._bias_add_infer(inputs[:2], {"data_format": "NHWC"})
    return _with_range(attrs["out_type"], shape)


def _matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ((_, shape),) = math_ops._matmul_infer(inputs[:2], attrs)
    _ranges(inputs, 2, 5)
    return _with_range(attrs.get("Toutput", dtypes.qint32), shape)


_conv_shape = conv_ops._conv_infer("QuantizedConv2D", 2)


def _conv_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ((_, shape),) = _conv_shape(inputs[:2], attrs)
    _ranges(inputs, 2, 5)
    return _with_range(attrs.get("out_type", dtypes.qint32), shape)


def _pool_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """TF's pool shape function, which leaves batch / depth windows to the kernel."""
    dims = with_rank(inputs[0].shape, 4, "input").as_list()
    ksize = [int(k) for k in attrs["ksize"]]
    strides = [int(s) for s in attrs["strides"]]
    if len(ksize) != 4 or len(strides) != 4:
        raise ValueError("Pooling ksize and strides must have 4 elements")
    padding = attrs["padding"]
    padding = padding.decode() if isinstance(padding, bytes) else str(padding)
    out = list(dims)
    for axis in range(4):
        dim = dims[axis]
        if dim is not None and (axis in (1, 2) or ksize[axis] > 1 or strides[axis] > 1):
            out[axis], _, _ = windowed_output_size(dim, ksize[axis], strides[axis], 1, padding)
    _ranges(inputs, 1, 2)
    return _with_range(inputs[0].dtype.base_dtype, TensorShape(out))


def _requantize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _ranges(inputs, 1, len(inputs) - 1)
    return _with_range(attrs["out_type"], inputs[0].shape)


def _range_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _ranges(inputs, 1, 2)
    return [(_F32, _scalar()), (_F32, _scalar())]


def _batch_norm_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = with_rank(inputs[0].shape, 4, "t")
    depth = TensorShape([None])
    for i in (3, 6, 9, 12):
        depth = depth.merge_with(with_rank(inputs[i].shape, 1, f"input {i}"))
    _ranges(inputs, 1, 2)
    for i in (4, 5, 7, 8, 10, 11, 13, 14):
        with_rank(inputs[i].shape, 0, f"input {i}")
    dims: list[int | None] = list(shape.as_list()) if shape.ndims is not None else [None] * 4
    dims[3] = TensorShape([dims[3]]).merge_with(depth).as_list()[0]
    return _with_range(attrs["out_type"], TensorShape(dims))


_resize_shape = image_ops._resize_infer("QuantizedResizeBilinear", float_out=False)


def _resize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ((dtype, shape),) = _resize_shape(inputs[:2], attrs)
    _ranges(inputs, 2, 3)
    return _with_range(dtype, shape)


def _instance_norm_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = with_rank(inputs[0].shape, 4, "x")
    _ranges(inputs, 1, 2)
    return _with_range(inputs[0].dtype.base_dtype, shape)


def _qdq_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if len(inputs) == 4:  # V3: input_min, input_max, num_bits
        _ranges(inputs, 1, 3)
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


op_def_registry.register("QuantizedAdd", _add_infer)
op_def_registry.register("QuantizedMul", _binary_infer)
for _op in ("QuantizedRelu", "QuantizedRelu6", "QuantizedReluX"):
    op_def_registry.register(_op, _activation_infer)
op_def_registry.register("QuantizedReshape", _reshape_infer)
op_def_registry.register("QuantizedBiasAdd", _bias_add_infer)
op_def_registry.register("QuantizedMatMul", _matmul_infer)
op_def_registry.register("QuantizedConv2D", _conv_infer)
op_def_registry.register("QuantizedMaxPool", _pool_infer)
op_def_registry.register("QuantizedAvgPool", _pool_infer)
op_def_registry.register("Requantize", _requantize_infer)
op_def_registry.register("QuantizeDownAndShrinkRange", _requantize_infer)
op_def_registry.register("RequantizationRange", _range_infer)
op_def_registry.register("QuantizedBatchNormWithGlobalNormalization", _batch_norm_infer)
op_def_registry.register("QuantizedResizeBilinear", _resize_infer)
op_def_registry.register("QuantizedInstanceNorm", _instance_norm_infer)
op_def_registry.register("QuantizeAndDequantize", _qdq_infer)
op_def_registry.register("QuantizeAndDequantizeV3", _qdq_infer)
# TF registers no gradients for the quantized arithmetic ops: tf.gradients through one fails.


# ---- tf.nn.quantized_* ----------------------------------------------------------------------
def _floats(values: Sequence[Any], names: Sequence[str]) -> list[Tensor]:
    return [convert_to_tensor(v, dtype=_F32, name=n) for v, n in zip(values, names)]


def _pool(
    op_type: str,
    input: Any,
    min_input: Any,
    max_input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    name: str | None,
) -> list[Tensor]:
    with name_scope(name, op_type, [input, min_input, max_input]) as scope:
        x = convert_to_tensor(input, name="input")
        lo, hi = _floats([min_input, max_input], ["min_input", "max_input"])
        attrs = {
            "T": x.dtype.base_dtype,
            "ksize": [int(k) for k in ksize],
            "strides": [int(s) for s in strides],
            "padding": padding.decode() if isinstance(padding, bytes) else str(padding),
        }
        return list(make_op(op_type, [x, lo, hi], attrs, name=scope).outputs)


def quantized_avg_pool(
    input: Any,
    min_input: Any,
    max_input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    name: str | None = None,
) -> list[Tensor]:
    """(output, min_output, max_output): the average pool of quantized input."""
    return _pool("QuantizedAvgPool", input, min_input, max_input, ksize, strides, padding, name)


def quantized_max_pool(
    input: Any,
    min_input: Any,
    max_input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    name: str | None = None,
) -> list[Tensor]:
    """(output, min_output, max_output): the max pool of quantized input."""
    return _pool("QuantizedMaxPool", input, min_input, max_input, ksize, strides, padding, name)


def quantized_conv2d(
    input: Any,
    filter: Any,
    min_input: Any,
    max_input: Any,
    min_filter: Any,
    max_filter: Any,
    strides: Any,
    padding: Any,
    out_type: Any = dtypes.qint32,
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> list[Tensor]:
    """(output, min_output, max_output): quantized input convolved with a quantized filter."""
    args = [input, filter, min_input, max_input, min_filter, max_filter]
    with name_scope(name, "QuantizedConv2D", args) as scope:
        x = convert_to_tensor(input, name="input")
        w = convert_to_tensor(filter, name="filter")
        ranges = _floats(args[2:], ["min_input", "max_input", "min_filter", "max_filter"])
        attrs = {
            "Tinput": x.dtype.base_dtype,
            "Tfilter": w.dtype.base_dtype,
            "out_type": dtypes.as_dtype(out_type),
            "strides": [int(s) for s in strides],
            "padding": padding.decode() if isinstance(padding, bytes) else str(padding),
            "dilations": [int(d) for d in dilations],
        }
        return list(make_op("QuantizedConv2D", [x, w, *ranges], attrs, name=scope).outputs)


def quantized_relu_x(
    features: Any,
    max_value: Any,
    min_features: Any,
    max_features: Any,
    out_type: Any = dtypes.quint8,
    name: str | None = None,
) -> list[Tensor]:
    """(activations, min_activations, max_activations): min(max(features, 0), max_value)."""
    args = [features, max_value, min_features, max_features]
    with name_scope(name, "QuantizedReluX", args) as scope:
        x = convert_to_tensor(features, name="features")
        rest = _floats(args[1:], ["max_value", "min_features", "max_features"])
        attrs = {"Tinput": x.dtype.base_dtype, "out_type": dtypes.as_dtype(out_type)}
        return list(make_op("QuantizedReluX", [x, *rest], attrs, name=scope).outputs)


__all__ = ["quantized_avg_pool", "quantized_conv2d", "quantized_max_pool", "quantized_relu_x"]
