"""Grayscale morphology: tf.nn.dilation2d (TF1's signature) and tf.nn.erosion2d (dilation of
the negated image with the flipped filter, as TF builds it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.infer_util import shape_list, with_rank
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_REAL = (
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.int8,
    dtypes.int16,
    dtypes.int32,
    dtypes.int64,
    dtypes.uint8,
    dtypes.uint16,
)


def _four(values: Any, what: str) -> list[int]:
    out = [int(v) for v in values]
    if len(out) != 4:
        raise ValueError(
            f"Dilation2D requires the {what} attribute to contain 4 values, but got: {len(out)}"
        )
    return out


def _dilation_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    image, filt = inputs[0], inputs[1]
    dims = shape_list(with_rank(image.shape, 4, "Dilation2D/input"))
    fdims = shape_list(with_rank(filt.shape, 3, "Dilation2D/filter"))
    assert dims is not None and fdims is not None
    strides, rates = _four(attrs["strides"], "stride"), _four(attrs["rates"], "rates")
    if dims[3] is not None and fdims[2] is not None and dims[3] != fdims[2]:
        raise ValueError(
            f"Dimensions must be equal, but are {dims[3]} and {fdims[2]} for 'Dilation2D'"
        )
    padding = attrs["padding"]
    out = [dims[0], None, None, dims[3] if dims[3] is not None else fdims[2]]
    for i in (1, 2):
        size, ksize = dims[i], fdims[i - 1]
        if size is not None and ksize is not None:
            size_out = windowed_output_size(size, ksize, strides[i], rates[i], padding)[0]
            if size_out < 0:
                raise ValueError(f"Computed output size would be negative: {size_out}")
            out[i] = size_out
    return [(image.dtype.base_dtype, TensorShape(out))]


def _backprop_infer(index: int) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        return [(inputs[index].dtype.base_dtype, inputs[index].shape)]

    return infer


op_def_registry.register("Dilation2D", _dilation_infer)
op_def_registry.register("Dilation2DBackpropInput", _backprop_infer(0))
op_def_registry.register("Dilation2DBackpropFilter", _backprop_infer(1))


def _attrs(t: Tensor, strides: Any, rates: Any, padding: Any) -> dict[str, Any]:
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be SAME or VALID, got {padding!r}")
    return {
        "T": t.dtype.base_dtype,
        "strides": [int(s) for s in strides],
        "rates": [int(r) for r in rates],
        "padding": padding,
    }


def _dilation_op(
    input: Any, filter: Any, strides: Any, rates: Any, padding: Any, name: str | None
) -> Tensor:
    with name_scope(name, "Dilation2D", [input, filter]) as scope:
        t = convert_to_tensor(input, name="input")
        check_dtype(t, _REAL, "Dilation2D", "input")
        f = convert_to_tensor(filter, dtype=t.dtype.base_dtype, name="filter")
        attrs = _attrs(t, strides, rates, padding)
        return make_op("Dilation2D", [t, f], attrs, name=scope).outputs[0]


def dilation2d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    rates: Any = None,
    padding: Any = None,
    name: str | None = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    """max over the filter window of input + filter, per channel (TF1's tf.nn.dilation2d)."""
    filter = _alias("filters", filters, "filter", filter)
    rates = _alias("dilations", dilations, "rates", rates)
    return _dilation_op(input, filter, strides, rates, padding, name)


def _alias(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
    return new if new is not None else old


def erosion2d(
    value: Any, kernel: Any, strides: Any, rates: Any, padding: Any, name: str | None = None
) -> Tensor:
    """min over the window of value - flipped kernel: -dilation2d(-value, reverse(kernel))."""
    with name_scope(name, "erosion2d", [value, kernel]) as scope:
        return math_ops.negative(
            _dilation_op(
                math_ops.negative(value),
                array_ops.reverse(kernel, [0, 1]),
                strides,
                rates,
                padding,
                scope,
            )
        )


def dilation2d_backprop(
    op_type: str,
    input: Any,
    filter: Any,
    out_backprop: Any,
    strides: Any,
    rates: Any,
    padding: Any,
    name: str | None = None,
) -> Tensor:
    """Dilation2DBackpropInput / Dilation2DBackpropFilter (the gradient's two halves)."""
    with name_scope(name, op_type, [input, filter, out_backprop]) as scope:
        t = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, name="filter")
        g = convert_to_tensor(out_backprop, name="out_backprop")
        attrs = _attrs(t, strides, rates, padding)
        return make_op(op_type, [t, f, g], attrs, name=scope).outputs[0]


__all__: list[str] = []  # tf.nn names only (the face imports them by name)
