"""Pooling ops (TF 1.15's nn_ops pooling): max/avg pooling in 1, 2 and 3 spatial dims
(NHWC and NCHW forms), the generic `pool` (dilated through with_space_to_batch, as TF),
max_pool_with_argmax, and the gradient op builders the gradient table uses (first and
second order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, conv_ops
from tfcluster.ops.conv_util import (
    FORMATS,
    channel_axis,
    channels_first,
    check_window_attrs,
    dims,
    get_sequence,
    padding_attr,
    spatial_axes,
    window_output_shape,
)
from tfcluster.ops.op_util import FLOATS, INTS, Outputs, check_dtype, make_op

REAL = (*FLOATS, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8)


# ---- shape inference -------------------------------------------------------------------------
def _pool_shape(
    x: Tensor, attrs: dict[str, Any], op_type: str, n: int, batch_depth_ok: bool = False
) -> TensorShape:
    fmt = check_window_attrs(attrs, op_type, n, ("ksize", "strides"), batch_depth_ok=batch_depth_ok)
    xd = dims(x.shape, n + 2)
    ksize = [int(v) for v in attrs["ksize"]]
    k = [ksize[a] for a in spatial_axes(fmt, n)]
    c = channel_axis(fmt, n)
    depth = xd[c]
    if op_type == "MaxPool" and depth is not None:
        # TF's MaxPoolShape windows the depth too (its batch, and AvgPool's depth, stay).
        stride = int(attrs["strides"][c])
        depth = windowed_output_size(depth, ksize[c], stride, 1, attrs["padding"])[0]
    return window_output_shape(xd, fmt, n, k, depth, attrs, None)


def _pool_infer(op_type: str, n: int) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        shape = _pool_shape(inputs[0], attrs, op_type, n, batch_depth_ok=True)
        return [(inputs[0].dtype.base_dtype, shape)]

    return infer


def _like_input_infer(op_type: str, n: int, index: int = 0) -> Any:
    """Gradient ops whose output has the shape of input `index` (the original input)."""

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        # As TF's, these shape functions pass batch and depth windows (the kernels refuse).
        check_window_attrs(attrs, op_type, n, ("ksize", "strides"), batch_depth_ok=True)
        x = inputs[index]
        # The gradient's dtype T (MaxPoolGradWithArgmax's last input is the int64 argmax).
        dtype = dtypes.as_dtype(attrs["T"]).base_dtype if "T" in attrs else inputs[-1].dtype
        return [(dtype.base_dtype, TensorShape(dims(x.shape, n + 2)))]

    return infer


def _avg_grad_infer(op_type: str, n: int) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        check_window_attrs(attrs, op_type, n, ("ksize", "strides"), batch_depth_ok=True)
        shape = tensor_util.constant_value_as_shape(inputs[0])
        if shape.ndims is None:
            shape = TensorShape([None] * (n + 2))
        return [(inputs[1].dtype.base_dtype, TensorShape(dims(shape, n + 2)))]

    return infer


def _argmax_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = _pool_shape(inputs[0], attrs, "MaxPoolWithArgmax", 2)
    return [(inputs[0].dtype.base_dtype, shape), (attrs["Targmax"], shape)]


def _grad_grad_with_argmax_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    check_window_attrs(attrs, "MaxPoolGradGradWithArgmax", 2, ("ksize", "strides"))
    shape = TensorShape(dims(inputs[2].shape, 4))
    return [(inputs[1].dtype.base_dtype, shape)]


op_def_registry.register("MaxPool", _pool_infer("MaxPool", 2))
op_def_registry.register("AvgPool", _pool_infer("AvgPool", 2))
op_def_registry.register("MaxPool3D", _pool_infer("MaxPool3D", 3))
op_def_registry.register("AvgPool3D", _pool_infer("AvgPool3D", 3))
op_def_registry.register("MaxPoolGrad", _like_input_infer("MaxPoolGrad", 2))
# MaxPoolGrad -> ReluGrad of the pool's input, fused by the graph optimizer
# (runtime/kernel_fusion.py): inputs and attrs of the MaxPoolGrad.
op_def_registry.register(
    "_FusedMaxPoolGradReluGrad", _like_input_infer("_FusedMaxPoolGradReluGrad", 2)
)
op_def_registry.register("MaxPool3DGrad", _like_input_infer("MaxPool3DGrad", 3))
op_def_registry.register("MaxPoolGradGrad", _like_input_infer("MaxPoolGradGrad", 2, 1))
op_def_registry.register("MaxPool3DGradGrad", _like_input_infer("MaxPool3DGradGrad", 3, 1))
op_def_registry.register("AvgPoolGrad", _avg_grad_infer("AvgPoolGrad", 2))
op_def_registry.register("AvgPool3DGrad", _avg_grad_infer("AvgPool3DGrad", 3))
op_def_registry.register("MaxPoolWithArgmax", _argmax_infer)
op_def_registry.register("MaxPoolGradWithArgmax", _like_input_infer("MaxPoolGradWithArgmax", 2))
op_def_registry.register("MaxPoolGradGradWithArgmax", _grad_grad_with_argmax_infer)


# ---- op builders -----------------------------------------------------------------------------
def _window_attrs(
    dtype: dtypes.DType, n: int, ksize: Any, strides: Any, padding: Any, data_format: Any
) -> dict[str, Any]:
    fmt = FORMATS[n][0] if data_format is None else str(data_format)
    c = channel_axis(fmt, n)
    ks = get_sequence(ksize, n, c, "ksize")
    if any(v == 0 for v in ks):
        raise ValueError("ksize cannot be zero.")
    return {
        "T": dtype,
        "ksize": ks,
        "strides": get_sequence(strides, n, c, "strides"),
        "padding": padding_attr(padding),
        "data_format": fmt,
    }


def _pool_op(
    op_type: str,
    n: int,
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    name: str | None,
) -> Tensor:
    """One pooling node named `name` (a scope string ending in / names it exactly)."""
    with name_scope(name, op_type, [value]) as scope:
        x = convert_to_tensor(value, name="input")
        check_dtype(x, REAL if op_type.startswith("Max") else FLOATS, op_type, "input")
        attrs = _window_attrs(x.dtype.base_dtype, n, ksize, strides, padding, data_format)
        return make_op(op_type, [x], attrs, name=scope).outputs[0]


def _lookup(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


def _scoped_pool(
    default: str,
    op_type: str,
    n: int,
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    name: str | None,
) -> Tensor:
    with name_scope(name, default, [value]) as scope:
        return _pool_op(
            op_type, n, value, ksize, strides, padding, data_format or FORMATS[n][0], scope
        )


def max_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    value = _lookup("input", input, "value", value)
    if ksize is None or strides is None:
        raise ValueError("max_pool needs ksize and strides")
    return _scoped_pool("MaxPool", "MaxPool", 2, value, ksize, strides, padding, data_format, name)


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    return _scoped_pool(
        "MaxPool2d", "MaxPool", 2, input, ksize, strides, padding, data_format, name
    )


def avg_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    value = _lookup("input", input, "value", value)
    if ksize is None or strides is None:
        raise ValueError("avg_pool needs ksize and strides")
    return _scoped_pool("AvgPool", "AvgPool", 2, value, ksize, strides, padding, data_format, name)


avg_pool2d = avg_pool


def max_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    return _scoped_pool(
        "MaxPool3D", "MaxPool3D", 3, input, ksize, strides, padding, data_format, name
    )


def avg_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    return _scoped_pool(
        "AvgPool3D", "AvgPool3D", 3, input, ksize, strides, padding, data_format, name
    )


def _pool1d(
    default: str,
    op_type: str,
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None,
    name: str | None,
) -> Tensor:
    with name_scope(name, default, [input]) as scope:
        fmt = data_format or "NWC"
        c = 1 if channels_first(fmt) else 2
        ks = [1, *get_sequence(ksize, 1, c, "ksize")]
        st = [1, *get_sequence(strides, 1, c, "strides")]
        axis = 1 if fmt == "NWC" else 2
        fmt2 = "NHWC" if fmt == "NWC" else "NCHW"
        x = array_ops.expand_dims(input, axis)
        result = _pool_op(op_type, 2, x, ks, st, padding, fmt2, scope)
        return array_ops.squeeze(result, axis)


def max_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    return _pool1d("MaxPool1d", "MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    return _pool1d("AvgPool1D", "AvgPool", input, ksize, strides, padding, data_format, name)


def _nd_pool(
    kind: str,
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    name: str | None,
) -> Tensor:
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if x.shape.ndims is not None:
        n = x.shape.ndims - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError("The input must have a rank or a data format must be given.")
    if not 1 <= n <= 3:
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {n + 2}.")
    c = n + 1 if data_format is None else (1 if channels_first(data_format) else n + 1)
    ks = get_sequence(ksize, n, c, "ksize")
    st = get_sequence(strides, n, c, "strides")
    if n == 1:
        fn1 = max_pool1d if kind == "MAX" else avg_pool1d
        return fn1(x, ks, st, padding, data_format=data_format or "NWC", name=name)
    op_type = {
        ("MAX", 2): "MaxPool",
        ("AVG", 2): "AvgPool",
        ("MAX", 3): "MaxPool3D",
        ("AVG", 3): "AvgPool3D",
    }[(kind, n)]
    return _pool_op(op_type, n, x, ks, st, padding, data_format or FORMATS[n][0], name)


def max_pool_v2(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    return _nd_pool("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool_v2(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    return _nd_pool("AVG", input, ksize, strides, padding, data_format, name)


def pool(
    input: Any,
    window_shape: Any,
    pooling_type: str,
    padding: str,
    dilation_rate: Any = None,
    strides: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    """N-D max or average pooling (N = 1, 2, 3), dilated through with_space_to_batch."""
    dilation_rate = _lookup("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        n = len(window_shape)
        if not 1 <= n <= 3:
            raise ValueError("It is required that 1 <= num_spatial_dims <= 3.")
        x.shape.with_rank(n + 2)
        steps, rates = conv_ops._strides_and_dilations(n, strides, dilation_rate)
        if padding == "SAME" and np.any(rates > 1):
            raise ValueError("pooling with SAME padding is not implemented for dilation_rate > 1")
        if np.any(steps > np.asarray(window_shape)):
            raise ValueError(
                "strides > window_shape not supported due to inconsistency between CPU and GPU "
                "implementations"
            )
        if (pooling_type, n) not in {
            ("MAX", 1),
            ("MAX", 2),
            ("MAX", 3),
            ("AVG", 1),
            ("AVG", 2),
            ("AVG", 3),
        }:
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        if channels_first(data_format):
            window = [1, 1, *window_shape]
            steps_attr = [1, 1, *[int(s) for s in steps]]
            spatial = list(range(2, n + 2))
        else:
            window = [1, *window_shape, 1]
            steps_attr = [1, *[int(s) for s in steps], 1]
            spatial = list(range(1, n + 1))
        if n == 1:
            if data_format is None or data_format == "NWC":
                fmt = "NHWC"
            elif data_format == "NCW":
                fmt = "NCHW"
            else:
                raise ValueError('data_format must be either "NWC" or "NCW".')
            window = [1, *window]
            steps_attr = [1, *steps_attr]
        else:
            fmt = data_format or FORMATS[n][0]
        op_type = {"MAX": "MaxPool", "AVG": "AvgPool"}[pooling_type] + ("3D" if n == 3 else "")

        def op(converted: Tensor, _: int, converted_padding: str) -> Tensor:
            if n == 1:
                converted = array_ops.expand_dims(converted, spatial[0])
            result = _pool_op(
                op_type,
                3 if n == 3 else 2,
                converted,
                window,
                steps_attr,
                converted_padding,
                fmt,
                scope,
            )
            if n == 1:
                result = array_ops.squeeze(result, [spatial[0]])
            return result

        return conv_ops.with_space_to_batch(
            x,
            dilation_rate=rates,
            padding=padding,
            op=op,
            spatial_dims=spatial,
            filter_shape=window_shape,
        )


class MaxPoolWithArgmax(NamedTuple):
    """(output, argmax): TF's namedtuple, which Session.run gives back as one too."""

    output: Tensor
    argmax: Tensor


def max_pool_with_argmax(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    Targmax: Any = None,
    name: str | None = None,
    output_dtype: Any = None,
    include_batch_in_index: bool = False,
) -> MaxPoolWithArgmax:
    """(max pool, flat index of each maximum: ((b * height + y) * width + x) * channels + c,
    b counted only with include_batch_in_index)."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    Targmax = _lookup("output_dtype", output_dtype, "Targmax", Targmax)
    targmax = dtypes.int64 if Targmax is None else dtypes.as_dtype(Targmax)
    if targmax not in INTS:
        raise TypeError(f"Targmax must be int32 or int64, got {targmax.name}")
    with name_scope(name, "MaxPoolWithArgmax", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, REAL, "MaxPoolWithArgmax", "input")
        attrs = _window_attrs(x.dtype.base_dtype, 2, ksize, strides, padding, "NHWC")
        del attrs["data_format"]
        attrs["Targmax"] = targmax
        attrs["include_batch_in_index"] = bool(include_batch_in_index)
        op = make_op("MaxPoolWithArgmax", [x], attrs, name=scope)
        return MaxPoolWithArgmax(op.outputs[0], op.outputs[1])


# ---- gradient op builders (used by gradients/pooling_grad.py) ---------------------------------
def pool_grad_op(
    op_type: str, inputs: Sequence[Tensor], like: Operation, *, grad_index: int = -1, **extra: Any
) -> Tensor:
    """A pooling gradient node with the window attrs of the forward node `like` (its T is the
    dtype of the gradient input, inputs[grad_index])."""
    attrs: dict[str, Any] = {"T": inputs[grad_index].dtype.base_dtype}
    for key in ("ksize", "strides", "padding", "data_format"):
        if key in like.attrs:
            attrs[key] = like._get_attr(key)
    attrs.update(extra)
    return make_op(op_type, list(inputs), attrs, name=op_type).outputs[0]


def pool_with_attrs(op_type: str, x: Tensor, like: Operation) -> Tensor:
    """The forward pooling node of `like`'s window over x (AvgPoolGrad's gradient)."""
    attrs = {"T": x.dtype.base_dtype}
    for key in ("ksize", "strides", "padding", "data_format"):
        attrs[key] = like._get_attr(key)
    return make_op(op_type, [x], attrs, name=op_type).outputs[0]


def max_pool_grad(
    orig_input: Tensor,
    orig_output: Tensor,
    grad: Tensor,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    attrs = {
        "T": grad.dtype.base_dtype,
        "ksize": list(ksize),
        "strides": list(strides),
        "padding": padding,
        "data_format": data_format,
    }
    return make_op(
        "MaxPoolGrad", [orig_input, orig_output, grad], attrs, name=name or "MaxPoolGrad"
    ).outputs[0]


def avg_pool_grad(
    orig_input_shape: Tensor,
    grad: Tensor,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    attrs = {
        "T": grad.dtype.base_dtype,
        "ksize": list(ksize),
        "strides": list(strides),
        "padding": padding,
        "data_format": data_format,
    }
    return make_op(
        "AvgPoolGrad", [orig_input_shape, grad], attrs, name=name or "AvgPoolGrad"
    ).outputs[0]


__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "avg_pool_v2",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool_v2",
    "max_pool_with_argmax",
    "pool",
]
