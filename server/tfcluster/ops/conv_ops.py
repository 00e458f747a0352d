"""Convolution ops (TF 1.15's nn_ops / nn_impl convolutions): conv1d/2d/3d and their
transposes and backprops, depthwise and separable convolution, atrous convolution, the generic
`convolution` and `with_space_to_batch`.

Op types, attrs and node names follow TF 1.15: a dilated `convolution` (and so tf.layers'
dilated convolutions) goes through SpaceToBatchND / BatchToSpaceND as TF's does on the CPU,
while `conv2d(..., dilations=...)` keeps the dilation in the Conv2D attr.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, space_to_batch_ops
from tfcluster.ops.conv_util import (
    FORMATS,
    channel_axis,
    channels_first,
    check_window_attrs,
    convert_padding,
    dims,
    get_sequence,
    padding_attr,
    window_output_shape,
)
from tfcluster.ops.op_util import FLOATS, Outputs, check_dtype, make_op


# ---- shape inference -------------------------------------------------------------------------
def _conv_infer(op_type: str, n: int, depthwise: bool = False) -> Any:
    explicit_ok = op_type == "Conv2D"

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        x, w = inputs
        fmt = check_window_attrs(attrs, op_type, n, ("strides", "dilations"), explicit_ok)
        xd = dims(x.shape, n + 2)
        wd = dims(w.shape, n + 2)
        c = channel_axis(fmt, n)
        if xd[c] is not None and wd[n] is not None and xd[c] != wd[n]:
            raise op_def_registry.NodeShapeError(
                f"Depth of input ({xd[c]}) is not a multiple of input depth of filter ({wd[n]})"
            )
        if depthwise:
            mult = wd[n + 1]
            ci = xd[c] if xd[c] is not None else wd[n]
            out_c = ci * mult if ci is not None and mult is not None else None
        else:
            out_c = wd[n + 1]
        shape = window_output_shape(xd, fmt, n, wd[:n], out_c, attrs)
        return [(x.dtype.base_dtype, shape)]

    return infer


def _sizes_infer(op_type: str, n: int, index: int, dtype_from: int) -> Any:
    """Output shape from a constant shape input (the backprop ops)."""
    explicit_ok = op_type.startswith("Conv2D")

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        check_window_attrs(attrs, op_type, n, ("strides", "dilations"), explicit_ok)
        shape = tensor_util.constant_value_as_shape(inputs[index])
        if shape.ndims is None:
            shape = TensorShape([None] * (n + 2))
        dims(shape, n + 2)
        return [(inputs[dtype_from].dtype.base_dtype, shape)]

    return infer


op_def_registry.register("Conv2D", _conv_infer("Conv2D", 2))


def _fused_conv_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """_FusedConv2D (input, filter, bias): the convolution's output (the graph optimizer
    makes it from Conv2D -> BiasAdd -> Relu, runtime/kernel_fusion.py)."""
    return _conv_infer("Conv2D", 2)(inputs[:2], attrs)


op_def_registry.register("_FusedConv2D", _fused_conv_infer)
op_def_registry.register("Conv3D", _conv_infer("Conv3D", 3))
op_def_registry.register(
    "DepthwiseConv2dNative", _conv_infer("DepthwiseConv2dNative", 2, depthwise=True)
)
for _op, _n in (
    ("Conv2DBackpropInput", 2),
    ("Conv3DBackpropInputV2", 3),
    ("DepthwiseConv2dNativeBackpropInput", 2),
):
    op_def_registry.register(_op, _sizes_infer(_op, _n, 0, 1))
for _op, _n in (
    ("Conv2DBackpropFilter", 2),
    ("Conv3DBackpropFilterV2", 3),
    ("DepthwiseConv2dNativeBackpropFilter", 2),
):
    op_def_registry.register(_op, _sizes_infer(_op, _n, 1, 0))


def _fused_backprop_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """_FusedConv2DBackprop (input, filter_sizes, out_backprop, input_sizes, filter): the
    filter and input gradients (the graph optimizer makes it from a Conv2DBackpropFilter
    and a Conv2DBackpropInput of one out_backprop, runtime/kernel_fusion.py)."""
    by_filter = _sizes_infer("Conv2DBackpropFilter", 2, 1, 0)(inputs[:3], attrs)
    by_input = _sizes_infer("Conv2DBackpropInput", 2, 0, 1)([inputs[3], inputs[4]], attrs)
    return [*by_filter, *by_input]


op_def_registry.register("_FusedConv2DBackprop", _fused_backprop_infer)


# ---- op builders (gen_nn_ops style: inputs converted inside the op's name scope) -------------
def _float_input(value: Any, op_type: str, name: str, dtype: Any = None) -> Tensor:
    t = convert_to_tensor(value, dtype=dtype, name=name)
    check_dtype(t, FLOATS, op_type, name)
    return t


def _shape_input(
    value: Any, name: str, allowed: Sequence[dtypes.DType] = (dtypes.int32,)
) -> Tensor:
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        t = array_ops.stack(list(value), name=name)
    else:
        t = convert_to_tensor(value, name=name, preferred_dtype=dtypes.int32)
    check_dtype(t, allowed, "shape", name)
    return t


def _window_attrs(
    dtype: dtypes.DType,
    n: int,
    strides: Any,
    padding: Any,
    data_format: Any,
    dilations: Any,
    conv2d: bool = False,
    use_cudnn_on_gpu: bool = True,
) -> dict[str, Any]:
    fmt = FORMATS[n][0] if data_format is None else str(data_format)
    c = channel_axis(fmt, n)
    attrs: dict[str, Any] = {"T": dtype}
    attrs["strides"] = get_sequence(strides, n, c, "strides")
    if conv2d:
        attrs["use_cudnn_on_gpu"] = bool(use_cudnn_on_gpu)
        pad, explicit = convert_padding(padding)
        attrs["padding"] = pad
        attrs["explicit_paddings"] = explicit
    else:
        attrs["padding"] = padding_attr(padding)
    attrs["data_format"] = fmt
    attrs["dilations"] = get_sequence(dilations, n, c, "dilations")
    return attrs


def _forward(op_type: str, n: int, input: Any, filter: Any, name: str | None, **kw: Any) -> Tensor:
    with name_scope(name, op_type, [input, filter]) as scope:
        x = _float_input(input, op_type, "input")
        w = _float_input(filter, op_type, "filter", x.dtype.base_dtype)
        attrs = _window_attrs(x.dtype.base_dtype, n, **kw)
        return make_op(op_type, [x, w], attrs, name=scope).outputs[0]


def _backprop_input(
    op_type: str,
    n: int,
    input_sizes: Any,
    filter: Any,
    out_backprop: Any,
    name: str | None,
    shape_types: Sequence[dtypes.DType] = (dtypes.int32,),
    **kw: Any,
) -> Tensor:
    with name_scope(name, op_type, [input_sizes, filter, out_backprop]) as scope:
        sizes = _shape_input(input_sizes, "input_sizes", shape_types)
        w = _float_input(filter, op_type, "filter")
        dy = _float_input(out_backprop, op_type, "out_backprop", w.dtype.base_dtype)
        attrs = _window_attrs(w.dtype.base_dtype, n, **kw)
        if op_type == "Conv3DBackpropInputV2":
            attrs["Tshape"] = sizes.dtype.base_dtype
        return make_op(op_type, [sizes, w, dy], attrs, name=scope).outputs[0]


def _backprop_filter(
    op_type: str,
    n: int,
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    name: str | None,
    **kw: Any,
) -> Tensor:
    with name_scope(name, op_type, [input, filter_sizes, out_backprop]) as scope:
        x = _float_input(input, op_type, "input")
        sizes = _shape_input(filter_sizes, "filter_sizes")
        dy = _float_input(out_backprop, op_type, "out_backprop", x.dtype.base_dtype)
        attrs = _window_attrs(x.dtype.base_dtype, n, **kw)
        return make_op(op_type, [x, sizes, dy], attrs, name=scope).outputs[0]


def _lookup(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


# ---- 2-D -------------------------------------------------------------------------------------
def conv2d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str | None = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    filter = _lookup("filters", filters, "filter", filter)
    if filter is None:
        raise ValueError("conv2d needs a filter")
    if strides is None:
        raise ValueError("conv2d needs strides")
    return _forward(
        "Conv2D",
        2,
        input,
        filter,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format or "NHWC",
        dilations=dilations,
        conv2d=True,
        use_cudnn_on_gpu=use_cudnn_on_gpu,
    )


def conv2d_backprop_input(
    input_sizes: Any,
    filter: Any = None,
    out_backprop: Any = None,
    strides: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    filter = _lookup("filters", filters, "filter", filter)
    return _backprop_input(
        "Conv2DBackpropInput",
        2,
        input_sizes,
        filter,
        out_backprop,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
        conv2d=True,
        use_cudnn_on_gpu=use_cudnn_on_gpu,
    )


def conv2d_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _backprop_filter(
        "Conv2DBackpropFilter",
        2,
        input,
        filter_sizes,
        out_backprop,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
        conv2d=True,
        use_cudnn_on_gpu=use_cudnn_on_gpu,
    )


def conv2d_transpose(
    value: Any = None,
    filter: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    """The gradient of conv2d with respect to its input, used as a layer."""
    value = _lookup("input", input, "value", value)
    filter = _lookup("filters", filters, "filter", filter)
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        return conv2d_transpose_v2(
            value,
            filter,
            output_shape,
            strides,
            padding=padding,
            data_format=data_format,
            dilations=dilations,
            name=scope,
        )


def conv2d_transpose_v2(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "conv2d_transpose", [input, filters, output_shape]) as scope:
        return conv2d_backprop_input(
            output_shape,
            filters,
            input,
            strides=strides,
            padding=padding,
            data_format=data_format or "NHWC",
            dilations=dilations,
            name=scope,
        )


# ---- 1-D (through conv2d, as TF) -------------------------------------------------------------
def _conv1d_format(data_format: str | None) -> tuple[str, int, int]:
    if data_format in (None, "NHWC", "NWC"):
        return "NHWC", 1, 2
    if data_format in ("NCHW", "NCW"):
        return "NCHW", 2, 1
    raise ValueError('data_format must be "NWC" or "NCW".')


def conv1d(
    value: Any = None,
    filters: Any = None,
    stride: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: Any = None,
    data_format: str | None = None,
    name: str | None = None,
    input: Any = None,
    dilations: Any = None,
) -> Tensor:
    value = _lookup("input", input, "value", value)
    with name_scope(name, "conv1d", [value, filters]) as scope:
        fmt, start, c = _conv1d_format(data_format)
        strides = [1, *get_sequence(stride, 1, c, "stride")]
        dils = [1, *get_sequence(dilations, 1, c, "dilations")]
        x = array_ops.expand_dims(value, start)
        w = array_ops.expand_dims(filters, 0)
        result = conv2d(
            x,
            w,
            strides,
            padding,
            use_cudnn_on_gpu=True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
            data_format=fmt,
            dilations=dils,
            name=scope,
        )
        return array_ops.squeeze(result, [start])


def conv1d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        fmt, start, c = _conv1d_format(data_format)
        strides_ = [1, *get_sequence(strides, 1, c, "stride")]
        dils = [1, *get_sequence(dilations, 1, c, "dilations")]
        x = array_ops.expand_dims(input, start)
        w = array_ops.expand_dims(filters, 0)
        shape = output_shape if isinstance(output_shape, Tensor) else list(output_shape)
        sizes = array_ops.concat([shape[:start], [1], shape[start:]], 0)
        result = conv2d_backprop_input(
            sizes,
            w,
            x,
            strides=strides_,
            padding=padding,
            data_format=fmt,
            dilations=dils,
            name=scope,
        )
        return array_ops.squeeze(result, start)


# ---- 3-D -------------------------------------------------------------------------------------
def conv3d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str = "NDHWC",
    dilations: Any = (1, 1, 1, 1, 1),
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    filter = _lookup("filters", filters, "filter", filter)
    if filter is None or strides is None:
        raise ValueError("conv3d needs a filter and strides")
    return _forward(
        "Conv3D",
        3,
        input,
        filter,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format or "NDHWC",
        dilations=dilations,
    )


def conv3d_backprop_input_v2(
    input_sizes: Any,
    filter: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    dilations: Any = (1, 1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _backprop_input(
        "Conv3DBackpropInputV2",
        3,
        input_sizes,
        filter,
        out_backprop,
        name,
        shape_types=(dtypes.int32, dtypes.int64),
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
    )


def conv3d_backprop_filter_v2(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    dilations: Any = (1, 1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _backprop_filter(
        "Conv3DBackpropFilterV2",
        3,
        input,
        filter_sizes,
        out_backprop,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
    )


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv3d_transpose(
    value: Any,
    filter: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NDHWC",
    name: str | None = None,
    input: Any = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    filter = _lookup("filters", filters, "filter", filter)
    value = _lookup("input", input, "value", value)
    return conv3d_transpose_v2(
        value,
        filter,
        output_shape,
        strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
        name=name,
    )


def conv3d_transpose_v2(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "conv3d_transpose", [input, filters, output_shape]) as scope:
        return conv3d_backprop_input_v2(
            output_shape,
            filters,
            input,
            strides,
            padding,
            data_format=data_format or "NDHWC",
            dilations=dilations,
            name=scope,
        )


def conv_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """conv1d/2d/3d_transpose, picked by the length of output_shape."""
    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, Tensor):
            n = (output_shape.shape.as_list()[0] or 0) - 2
        elif hasattr(output_shape, "__len__"):
            n = len(output_shape) - 2
        else:
            raise ValueError("output_shape must be a tensor or sized collection.")
        if not 1 <= n <= 3:
            raise ValueError(f"output_shape must be of length 3, 4 or 5 but was {n + 2}.")
        op = (conv1d_transpose, conv2d_transpose_v2, conv3d_transpose_v2)[n - 1]
        kwargs: dict[str, Any] = {"padding": padding, "dilations": dilations, "name": scope}
        if data_format is not None:
            kwargs["data_format"] = data_format
        return op(input, filters, output_shape, strides, **kwargs)


# ---- depthwise and separable -----------------------------------------------------------------
def depthwise_conv2d_native(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _forward(
        "DepthwiseConv2dNative",
        2,
        input,
        filter,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format or "NHWC",
        dilations=dilations,
    )


def depthwise_conv2d_native_backprop_input(
    input_sizes: Any,
    filter: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _backprop_input(
        "DepthwiseConv2dNativeBackpropInput",
        2,
        input_sizes,
        filter,
        out_backprop,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
    )


def depthwise_conv2d_native_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    return _backprop_filter(
        "DepthwiseConv2dNativeBackpropFilter",
        2,
        input,
        filter_sizes,
        out_backprop,
        name,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilations=dilations,
    )


depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    """Depthwise convolution; a rate > 1 goes through with_space_to_batch (as TF)."""
    rate = _lookup("dilations", dilations, "rate", rate)
    with name_scope(name, "depthwise", [input, filter]) as scope:
        x = convert_to_tensor(input, name="tensor_in")
        w = convert_to_tensor(filter, name="filter_in")
        if rate is None:
            rate = [1, 1]

        def op(converted: Tensor, _: Any, pad: str) -> Tensor:
            return depthwise_conv2d_native(
                converted, w, strides, pad, data_format=data_format or "NHWC", name=scope
            )

        return with_space_to_batch(
            x,
            dilation_rate=rate,
            padding=padding,
            op=op,
            filter_shape=array_ops.shape(w),
            data_format=data_format,
        )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    """A depthwise convolution followed by a 1x1 (pointwise) conv2d."""
    rate = _lookup("dilations", dilations, "rate", rate)
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        x = convert_to_tensor(input, name="tensor_in")
        dw = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pw = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pw_shape = pw.shape.with_rank(4)
        for i in (0, 1):
            d = pw_shape.as_list()[i]
            if d is not None and d != 1:
                raise ValueError(f"Dimensions {d} and 1 are not compatible")
        if rate is None:
            rate = [1, 1]

        def op(converted: Tensor, _: Any, pad: str) -> Tensor:
            return depthwise_conv2d_native(
                converted, dw, strides, pad, data_format=data_format or "NHWC", name="depthwise"
            )

        depthwise = with_space_to_batch(
            x,
            dilation_rate=rate,
            padding=padding,
            op=op,
            filter_shape=array_ops.shape(dw),
            data_format=data_format,
        )
        return conv2d(
            depthwise,
            pw,
            [1, 1, 1, 1],
            padding="VALID",
            data_format=data_format or "NHWC",
            name=scope,
        )


# ---- with_space_to_batch and the generic convolution -------------------------------------------
def _strides_and_dilations(
    n: int, strides: Any, dilation_rate: Any
) -> tuple[np.ndarray, np.ndarray]:
    """TF's _get_strides_and_dilation_rate: int32 arrays of n values, checked."""
    if dilation_rate is None:
        dilation_rate = [1] * n
    elif len(dilation_rate) != n:
        raise ValueError(f"len(dilation_rate)={len(dilation_rate)} but should be {n}")
    rates = np.array(dilation_rate, dtype=np.int32)
    if np.any(rates < 1):
        raise ValueError("all values of dilation_rate must be positive")
    if strides is None:
        strides = [1] * n
    elif len(strides) != n:
        raise ValueError(f"len(strides)={len(strides)} but should be {n}")
    steps = np.array(strides, dtype=np.int32)
    if np.any(steps < 1):
        raise ValueError("all values of strides must be positive")
    if np.any(steps > 1) and np.any(rates > 1):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    return steps, rates


def _base_paddings(filter_shape: Any, n: int, rate: Any) -> Tensor:
    """[[before, after]] per spatial dim that SAME padding of the dilated filter needs."""
    spatial = filter_shape[:n]
    dilated = spatial + (spatial - 1) * (rate - 1)
    extra = dilated - 1
    start = extra // 2
    end = extra - start
    return array_ops.stack([[start[i], end[i]] for i in range(n)])


def _adjust(orig: Any, fill_value: int, spatial_dims: list[int]) -> Any:
    """orig's rows placed at spatial_dims[i] - 1, fill_value rows elsewhere (TF's
    _with_space_to_batch_adjust); a constant stays a numpy value."""
    if isinstance(orig, Tensor):
        const = tensor_util.constant_value(orig)
        fill_dims = orig.shape.as_list()[1:]
        dtype = orig.dtype.base_dtype.as_numpy_dtype
    else:
        const = np.asarray(orig)
        fill_dims = list(const.shape[1:])
        dtype = const.dtype
    source = const if const is not None else orig
    parts: list[Any] = []
    prev = 0
    i = 0
    while i < len(spatial_dims):
        start_i = i
        start_dim = spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev, *fill_dims], fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(source[start_i : i + 1])
        prev = spatial_dims[i]
        i += 1
    if const is not None:
        return np.concatenate(parts)
    return array_ops.concat(parts, 0)


class _WithSpaceToBatch:
    """An op run on the space-to-batch form of its input (TF's _WithSpaceToBatch): the
    atrous (dilated) form of a windowed op. Building it makes the constants TF makes
    (dilation_rate, filter_shape, the base paddings) in the current name scope."""

    def __init__(
        self,
        input_shape: TensorShape,
        dilation_rate: Any,
        padding: str,
        build_op: Callable[[int, str], Callable[[Tensor, Any], Tensor]],
        filter_shape: Any = None,
        spatial_dims: Any = None,
        data_format: str | None = None,
    ) -> None:
        rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
        if rate.shape.ndims is not None and rate.shape.ndims != 1:
            raise ValueError("rate must be rank 1")
        if not rate.shape.is_fully_defined():
            raise ValueError("rate must have known shape")
        n = int(rate.shape.as_list()[0] or 0)
        first = 2 if channels_first(data_format) else 1
        if spatial_dims is None:
            spatial_dims = range(first, n + first)
        orig = list(spatial_dims)
        spatial = sorted({int(x) for x in orig})
        if spatial != orig or any(x < 1 for x in spatial):
            raise ValueError(
                "spatial_dims must be a montonically increasing sequence of positive integers"
            )
        expected_rank = spatial[-1] if channels_first(data_format) else spatial[-1] + 1
        if input_shape.ndims is not None and input_shape.ndims < expected_rank:
            raise ValueError(f"input tensor must have rank {expected_rank} at least")
        const_rate = tensor_util.constant_value(rate)
        rate_or_const: Any = rate
        if const_rate is not None:
            rate_or_const = const_rate
            if np.any(const_rate < 1):
                raise ValueError("dilation_rate must be positive")
            if np.all(const_rate == 1):
                self.call = build_op(n, padding)
                return
        self.base_paddings: Any
        if padding == "SAME":
            if filter_shape is None:
                raise ValueError("filter_shape must be specified for SAME padding")
            fs = convert_to_tensor(filter_shape, name="filter_shape")
            const_fs = tensor_util.constant_value(fs)
            if const_fs is not None:
                self.base_paddings = _base_paddings(const_fs, n, rate_or_const)
            else:
                self.num_spatial_dims = n
                self.rate_or_const_rate = rate_or_const
                self.base_paddings = None
        elif padding == "VALID":
            self.base_paddings = np.zeros([n, 2], np.int32)
        else:
            raise ValueError(f"Invalid padding method {padding!r}")
        self.input_shape = input_shape
        self.spatial_dims = spatial
        self.dilation_rate = rate
        self.data_format = data_format
        self.op = build_op(n, "VALID")
        self.call = self._call

    def _call(self, inp: Tensor, filter: Any) -> Tensor:
        spatial_shape: Any = None
        if self.input_shape.ndims is not None:
            listed = self.input_shape.as_list()
            spatial_shape = [listed[i] for i in self.spatial_dims]
        if spatial_shape is None or None in spatial_shape:
            shape_t = array_ops.shape(inp)
            spatial_shape = array_ops.stack([shape_t[i] for i in self.spatial_dims])
        base = self.base_paddings
        if base is None:
            base = _base_paddings(
                array_ops.shape(filter), self.num_spatial_dims, self.rate_or_const_rate
            )
        paddings, crops = space_to_batch_ops.required_space_to_batch_paddings(
            input_shape=spatial_shape, base_paddings=base, block_shape=self.dilation_rate
        )
        rate = _adjust(self.dilation_rate, 1, self.spatial_dims)
        paddings = _adjust(paddings, 0, self.spatial_dims)
        crops = _adjust(crops, 0, self.spatial_dims)
        converted = space_to_batch_ops.space_to_batch_nd(inp, block_shape=rate, paddings=paddings)
        result = self.op(converted, filter)
        out = space_to_batch_ops.batch_to_space_nd(result, block_shape=rate, crops=crops)
        if channels_first(self.data_format) and filter is not None:
            shape = out.shape
            if shape.ndims is not None and shape.as_list()[1] is None:
                listed = shape.as_list()
                listed[1] = filter.shape.as_list()[-1] if filter.shape.ndims else None
                out.set_shape(listed)
        return out

    def __call__(self, inp: Tensor, filter: Any) -> Tensor:
        return self.call(inp, filter)


def with_space_to_batch(
    input: Any,
    dilation_rate: Any,
    padding: str,
    op: Callable[[Tensor, int, str], Tensor],
    filter_shape: Any = None,
    spatial_dims: Any = None,
    data_format: str | None = None,
) -> Tensor:
    """Runs op(input, num_spatial_dims, padding) on the space-to-batch form of input."""
    x = convert_to_tensor(input, name="input")

    def build_op(n: int, pad: str) -> Callable[[Tensor, Any], Tensor]:
        return lambda inp, _: op(inp, n, pad)

    new_op = _WithSpaceToBatch(
        x.shape,
        dilation_rate,
        padding,
        build_op,
        filter_shape=filter_shape,
        spatial_dims=spatial_dims,
        data_format=data_format,
    )
    return new_op(x, None)


class _NonAtrousConvolution:
    """conv1d/conv2d/conv3d picked by rank, with the strides in their attr form."""

    def __init__(
        self,
        input_shape: TensorShape,
        filter_shape: TensorShape,
        padding: str,
        data_format: str | None = None,
        strides: Any = None,
        name: str | None = None,
    ) -> None:
        filter_shape = (
            filter_shape.with_rank(input_shape.ndims) if input_shape.ndims else (filter_shape)
        )
        input_shape = (
            input_shape.with_rank(filter_shape.ndims) if filter_shape.ndims else (input_shape)
        )
        if input_shape.ndims is None:
            raise ValueError("Rank of convolution must be known")
        if not 3 <= input_shape.ndims <= 5:
            raise ValueError("`input` and `filter` must have rank at least 3 and at most 5")
        n = input_shape.ndims - 2
        strides = [1] * n if strides is None else list(strides)
        if len(strides) != n:
            raise ValueError(f"len(strides)={len(strides)}, but should be {n}")
        self.padding = padding
        self.name = name
        self.n = n
        if n == 1:
            if data_format is None:
                data_format = "NWC"
            elif data_format not in {"NCW", "NWC", "NCHW", "NHWC"}:
                raise ValueError('data_format must be "NWC" or "NCW".')
            self.strides: Any = strides[0]
        else:
            default, first = FORMATS[n]
            if data_format is None or data_format == default:
                data_format = default
                self.strides = [1, *strides, 1]
            elif data_format == first:
                self.strides = [1, 1, *strides]
            else:
                raise ValueError(f'data_format must be "{default}" or "{first}".')
        self.data_format = data_format

    def __call__(self, inp: Tensor, filter: Any) -> Tensor:
        if self.n == 1:
            return conv1d(
                value=inp,
                filters=filter,
                stride=self.strides,
                padding=self.padding,
                data_format=self.data_format,
                name=self.name,
            )
        fn = conv2d if self.n == 2 else conv3d
        return fn(
            inp,
            filter,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            name=self.name,
        )


class Convolution:
    """A convolution of fixed shapes, built once and applied (TF's nn_ops.Convolution, which
    Keras and tf.layers convolutions use): dilations go through with_space_to_batch."""

    def __init__(
        self,
        input_shape: Any,
        filter_shape: Any,
        padding: str,
        strides: Any = None,
        dilation_rate: Any = None,
        name: str | None = None,
        data_format: str | None = None,
    ) -> None:
        input_shape = as_shape(input_shape)
        filter_shape = as_shape(filter_shape)
        total = filter_shape.ndims if filter_shape.ndims is not None else input_shape.ndims
        if total is None:
            raise ValueError("rank of input or filter must be known")
        n = total - 2
        if input_shape.ndims is not None and input_shape.ndims != n + 2:
            raise ValueError(f"input tensor must have rank {n + 2}")
        if filter_shape.ndims is not None and filter_shape.ndims != n + 2:
            raise ValueError(f"filter tensor must have rank {n + 2}")
        if channels_first(data_format):
            in_c = input_shape.as_list()[1] if input_shape.ndims else None
            spatial = range(2, n + 2)
        else:
            in_c = input_shape.as_list()[n + 1] if input_shape.ndims else None
            spatial = range(1, n + 1)
        f_c = filter_shape.as_list()[n] if filter_shape.ndims else None
        if in_c is not None and f_c is not None and in_c != f_c:
            raise ValueError(
                "number of input channels does not match corresponding dimension of filter, "
                f"{in_c} != {f_c}"
            )
        steps, rates = _strides_and_dilations(n, strides, dilation_rate)
        self.input_shape = input_shape
        self.filter_shape = filter_shape
        self.data_format = data_format
        self.strides = steps
        self.padding = padding
        self.name = name
        self.dilation_rate = rates
        self.conv_op = _WithSpaceToBatch(
            input_shape,
            dilation_rate=rates,
            padding=padding,
            build_op=self._build_op,
            filter_shape=filter_shape.as_list() if filter_shape.is_fully_defined() else None,
            spatial_dims=spatial,
            data_format=data_format,
        )

    def _build_op(self, _: int, padding: str) -> _NonAtrousConvolution:
        return _NonAtrousConvolution(
            self.input_shape,
            filter_shape=self.filter_shape,
            padding=padding,
            data_format=self.data_format,
            strides=list(self.strides),
            name=self.name,
        )

    def __call__(self, inp: Any, filter: Any) -> Tensor:
        return self.conv_op(inp, filter)


def convolution(
    input: Any,
    filter: Any,
    padding: Any,
    strides: Any = None,
    dilation_rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    """N-D convolution (N = 1, 2, 3) picked by rank; dilations through with_space_to_batch."""
    filter = _lookup("filters", filters, "filter", filter)
    dilation_rate = _lookup("dilations", dilations, "dilation_rate", dilation_rate)
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    # A variable is read where its op takes it, inside the op's scope (TF's
    # `convolution/ReadVariableOp`); its static shape needs no read.
    w = filter if isinstance(getattr(filter, "shape", None), TensorShape) else None
    if w is None:
        w = convert_to_tensor(filter)
    if x.shape.ndims is not None:
        n = x.shape.ndims - 2
    elif w.shape.ndims is not None:
        n = w.shape.ndims - 2
    else:
        raise ValueError("rank of input or filter must be known")
    if not 1 <= n <= 3:
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {n + 2}.")
    c = 1 if channels_first(data_format) else n + 1
    strides_ = get_sequence(strides, n, c, "strides")
    dils = get_sequence(dilation_rate, n, c, "dilations")
    with name_scope(name, "convolution", [x, w]) as scope:
        if all(d == 1 for d in dils):
            if n == 1:
                return conv1d(
                    x,
                    w,
                    strides_,
                    padding=padding,
                    data_format=data_format,
                    dilations=dils,
                    name=scope,
                )
            fn = conv2d if n == 2 else conv3d
            return fn(
                x,
                w,
                strides_,
                padding=padding,
                data_format=data_format or FORMATS[n][0],
                dilations=dils,
                name=scope,
            )
        if c == 1:
            strides_, dils = strides_[2:], dils[2:]
        else:
            strides_, dils = strides_[1:-1], dils[1:-1]
        op = Convolution(
            x.shape,
            w.shape,
            padding,
            strides=strides_,
            dilation_rate=dils,
            name=scope,
            data_format=data_format,
        )
        return op(x, w)


def atrous_conv2d(
    value: Any, filters: Any, rate: Any, padding: Any, name: str | None = None
) -> Tensor:
    return convolution(
        input=value,
        filter=filters,
        padding=padding,
        dilation_rate=np.broadcast_to(rate, (2,)),
        name=name,
    )


def atrous_conv2d_transpose(
    value: Any,
    filters: Any,
    output_shape: Any,
    rate: int,
    padding: str,
    name: str | None = None,
) -> Tensor:
    """The transpose of atrous_conv2d, through space_to_batch as TF builds it."""
    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]):
        v = convert_to_tensor(value, name="value")
        w = convert_to_tensor(filters, name="filters")
        vc = v.shape.as_list()[3] if v.shape.ndims else None
        wc = w.shape.as_list()[3] if w.shape.ndims else None
        if vc is not None and wc is not None and vc != wc:
            raise ValueError(
                f"value's input channels does not match filters' input channels, {vc} != {wc}"
            )
        if rate < 1:
            raise ValueError(f"rate {rate} cannot be less than one")
        if rate == 1:
            return conv2d_transpose(
                v, w, output_shape, strides=[1, 1, 1, 1], padding=padding, data_format="NHWC"
            )
        shape_t = convert_to_tensor(output_shape, name="output_shape")
        if not shape_t.shape.is_compatible_with(TensorShape([4])):
            raise ValueError(f"output_shape must have shape (4,), got {shape_t.shape}")
        if isinstance(output_shape, tuple):
            output_shape = list(output_shape)
        if isinstance(output_shape, (list, np.ndarray)):
            oc = w.shape.as_list()[2] if w.shape.ndims else None
            if oc is not None and int(output_shape[3]) != oc:
                raise ValueError(
                    f"output_shape does not match filter's output channels, "
                    f"{output_shape[3]} != {oc}"
                )
        if padding == "SAME":
            fshape: Any = w.shape.as_list() if w.shape.is_fully_defined() else array_ops.shape(w)
            fh, fw = fshape[0], fshape[1]
            pad_h = fh + (fh - 1) * (rate - 1) - 1
            pad_w = fw + (fw - 1) * (rate - 1) - 1
            top, left = pad_h // 2, pad_w // 2
            bottom, right = pad_h - top, pad_w - left
        elif padding == "VALID":
            top = bottom = left = right = 0
        else:
            raise ValueError(f"padding must be either VALID or SAME: {padding}")
        in_h = output_shape[1] + top + bottom
        in_w = output_shape[2] + left + right
        extra_b = (rate - in_h % rate) % rate
        extra_r = (rate - in_w % rate) % rate
        v = space_to_batch_ops.space_to_batch(
            v, paddings=[[0, extra_b], [0, extra_r]], block_size=rate
        )
        sizes = [
            rate * rate * output_shape[0],
            (in_h + extra_b) // rate,
            (in_w + extra_r) // rate,
            output_shape[3],
        ]
        v = conv2d_backprop_input(
            sizes, w, v, strides=[1, 1, 1, 1], padding="VALID", data_format="NHWC"
        )
        crops = [[top, bottom + extra_b], [left, right + extra_r]]
        return space_to_batch_ops.batch_to_space(v, crops=crops, block_size=rate)


__all__ = [
    "atrous_conv2d",
    "atrous_conv2d_transpose",
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "conv2d_transpose",
    "conv3d",
    "conv3d_backprop_filter",
    "conv3d_backprop_filter_v2",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "depthwise_conv2d",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
    "depthwise_conv2d_native",
    "depthwise_conv2d_native_backprop_filter",
    "depthwise_conv2d_native_backprop_input",
    "separable_conv2d",
    "with_space_to_batch",
]
