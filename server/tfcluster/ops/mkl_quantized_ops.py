"""The fused quantized ops TF 1.15 defines for its MKL builds (QuantizedConv2D* with bias, relu,
sum and requantize, QuantizedDepthwiseConv2D*, QuantizedMatMulWithBias*, the *PerChannel
requantization ops), with TF's shape functions. TF 1.15's CPU build registers no kernel for
any of them, so a graph builds them as TF does and running one fails as in TF (the placer's
"No OpKernel was registered" error); tfcluster has no kernel for them either."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, op_signatures
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Tensor
from tfcluster.framework.op_def_registry import NodeShapeError
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.shape_fn_checks import merge_dim, with_rank, with_rank_at_most

Outputs = list[tuple[dtypes.DType, TensorShape]]
_F32 = dtypes.float32


def _attr(op_type: str, attrs: dict[str, Any], name: str) -> Any:
    """An attr's value, TF's default where the node leaves it out."""
    if name in attrs:
        return attrs[name]
    sig = op_signatures.lookup(op_type)
    assert sig is not None
    return op_signatures.attr_value(sig.attr(name).type, sig.attr(name).default)


def _padding(attrs: dict[str, Any]) -> str:
    padding = attrs["padding"]
    return padding.decode() if isinstance(padding, bytes) else str(padding)


def _window(size: int | None, ksize: int | None, stride: int, dilation: int, padding: str) -> Any:
    if size is None or ksize is None:
        return None
    out, _, _ = windowed_output_size(size, ksize, stride, dilation, padding)
    if out < 0:
        eff = (ksize - 1) * dilation + 1
        raise NodeShapeError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {eff}, stride: {stride}]"
        )
    return out


def _conv2d_shape(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> TensorShape:
    """TF 1.15's Conv2DShapeImpl over input 0 and filter 1 (NHWC, HWIO; batch and depth
    strides are left to the kernel)."""
    x = with_rank(inputs[0].shape, 4).as_list()
    w = with_rank(inputs[1].shape, 4).as_list()
    dilations = [int(v) for v in _attr(op_type, attrs, "dilations")]
    if len(dilations) != 4:
        raise NodeShapeError(
            f"Conv2D requires the dilation attribute to contain 4 values, but got: {len(dilations)}"
        )
    strides = [int(v) for v in attrs["strides"]]
    if len(strides) != 4:
        raise NodeShapeError(
            "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but "
            f"got: {len(strides)}"
        )
    if x[3] is not None and w[2] is not None and x[3] % w[2] != 0:
        raise NodeShapeError(
            f"Depth of input ({x[3]}) is not a multiple of input depth of filter ({w[2]})"
        )
    padding = _padding(attrs)
    rows = _window(x[1], w[0], strides[1], dilations[1], padding)
    cols = _window(x[2], w[1], strides[2], dilations[2], padding)
    return TensorShape([x[0], rows, cols, w[3]])


def _depthwise_shape(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> TensorShape:
    """TF 1.15's DepthwiseConv2DNativeShape (it reads no dilations)."""
    x = with_rank(inputs[0].shape, 4).as_list()
    w = with_rank(inputs[1].shape, 4).as_list()
    strides = [int(v) for v in attrs["strides"]]
    if len(strides) != 4:
        raise NodeShapeError(
            "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: "
            f"{len(strides)}"
        )
    depth = merge_dim(x[3], w[2])
    out_depth = depth * w[3] if depth is not None and w[3] is not None else None
    padding = _padding(attrs)
    rows = _window(x[1], w[0], strides[1], 1, padding)
    cols = _window(x[2], w[1], strides[2], 1, padding)
    return TensorShape([x[0], rows, cols, out_depth])


def _scalars(inputs: Sequence[Tensor], indices: Sequence[int]) -> None:
    for i in indices:
        with_rank(inputs[i].shape, 0)


def _conv_infer(
    op_type: str, bias: bool, filter_range_rank: int, frozen: bool, channel: bool
) -> op_def_registry.InferFn:
    """A fused convolution's shape function: the convolution's shape, a vector bias, scalar
    input ranges, filter ranges of rank `filter_range_rank` at most (0: scalars), scalar frozen
    output ranges; the output range is the filter range's shape (`channel`) or a scalar."""
    first = 3 if bias else 2

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        shape = _conv2d_shape(op_type, inputs, attrs)
        if bias:
            with_rank(inputs[2].shape, 1)
        _scalars(inputs, (first, first + 1))
        range_shape = TensorShape([])
        for i in (first + 2, first + 3):
            if filter_range_rank == 0:
                with_rank(inputs[i].shape, 0)
            else:
                range_shape = with_rank_at_most(inputs[i].shape, filter_range_rank)
        if frozen:
            _scalars(inputs, (first + 4, first + 5))
        out = range_shape if channel else TensorShape([])
        return [(_attr(op_type, attrs, "out_type"), shape), (_F32, out), (_F32, out)]

    return infer


# op type: (bias input, filter range rank at most, frozen output range, per-channel range out)
_CONVS = {
    "QuantizedConv2DAndRelu": (False, 1, False, True),
    "QuantizedConv2DAndReluAndRequantize": (False, 1, True, False),
    "QuantizedConv2DAndRequantize": (False, 0, True, False),
    "QuantizedConv2DPerChannel": (False, 1, False, True),
    "QuantizedConv2DWithBias": (True, 1, False, True),
    "QuantizedConv2DWithBiasAndRelu": (True, 1, False, True),
    "QuantizedConv2DWithBiasAndReluAndRequantize": (True, 1, True, False),
    "QuantizedConv2DWithBiasAndRequantize": (True, 1, True, False),
    "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize": (True, 1, True, False),
    "QuantizedConv2DWithBiasSumAndRelu": (True, 1, False, True),
    "QuantizedConv2DWithBiasSumAndReluAndRequantize": (True, 1, True, False),
}
for _op, (_bias, _rank, _frozen, _channel) in _CONVS.items():
    op_def_registry.register(_op, _conv_infer(_op, _bias, _rank, _frozen, _channel))


def _depthwise_infer(op_type: str) -> op_def_registry.InferFn:
    """TF 1.15 leaves the output range's shape unknown and checks no range input."""

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        shape = _depthwise_shape(inputs, attrs)
        unknown = TensorShape(None)
        return [(_attr(op_type, attrs, "out_type"), shape), (_F32, unknown), (_F32, unknown)]

    return infer


for _op in (
    "QuantizedDepthwiseConv2D",
    "QuantizedDepthwiseConv2DWithBias",
    "QuantizedDepthwiseConv2DWithBiasAndRelu",
    "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize",
):
    op_def_registry.register(_op, _depthwise_infer(_op))


def _matmul_shape(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> TensorShape:
    a = with_rank(inputs[0].shape, 2).as_list()
    b = with_rank(inputs[1].shape, 2).as_list()
    if attrs.get("transpose_a", False):
        a = a[::-1]
    if attrs.get("transpose_b", False):
        b = b[::-1]
    merge_dim(a[1], b[0])
    return TensorShape([a[0], b[1]])


def _matmul_infer(op_type: str, frozen: bool) -> op_def_registry.InferFn:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        shape = _matmul_shape(inputs, attrs)
        with_rank(inputs[2].shape, 1)
        _scalars(inputs, range(3, 9 if frozen else 7))
        scalar = TensorShape([])
        return [(_attr(op_type, attrs, "Toutput"), shape), (_F32, scalar), (_F32, scalar)]

    return infer


op_def_registry.register("QuantizedMatMulWithBias", _matmul_infer("QuantizedMatMulWithBias", False))
op_def_registry.register(
    "QuantizedMatMulWithBiasAndRelu", _matmul_infer("QuantizedMatMulWithBiasAndRelu", False)
)
op_def_registry.register(
    "QuantizedMatMulWithBiasAndReluAndRequantize",
    _matmul_infer("QuantizedMatMulWithBiasAndReluAndRequantize", True),
)


def _range_per_channel_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 1)
    with_rank(inputs[2].shape, 1)
    return [(_F32, TensorShape([])), (_F32, TensorShape([]))]


def _requantize_per_channel_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 1)
    with_rank(inputs[2].shape, 1)
    _scalars(inputs, (3, 4))
    out_type = _attr("RequantizePerChannel", attrs, "out_type")
    return [(out_type, inputs[0].shape), (_F32, TensorShape([])), (_F32, TensorShape([]))]


op_def_registry.register("RequantizationRangePerChannel", _range_per_channel_infer)
op_def_registry.register("RequantizePerChannel", _requantize_per_channel_infer)
