"""Gradients of the convolution ops (TF's nn_grad.py): Conv2D, Conv3D and the depthwise
convolution, and of their backprops (so second derivatives flow through convolutions).
Every gradient node keeps the window attrs of the node it differentiates."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import make_op

_WINDOW_ATTRS = (
    "strides",
    "padding",
    "explicit_paddings",
    "use_cudnn_on_gpu",
    "data_format",
    "dilations",
)

# op type -> (its input backprop, its filter backprop, its forward op)
_FAMILIES = {
    "Conv2D": ("Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv2D"),
    "Conv3D": ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "Conv3D"),
    "DepthwiseConv2dNative": (
        "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNative",
    ),
}
_FAMILY_OF = {op: fam for fam in _FAMILIES.values() for op in fam}


def _same_window(op_type: str, inputs: list[Tensor], like: Operation) -> Tensor:
    """An op of the convolution family of `like`, with like's window attrs."""
    attrs: dict[str, Any] = {"T": like._get_attr("T")}
    for key in _WINDOW_ATTRS:
        if key in like.attrs:
            attrs[key] = like._get_attr(key)
    if op_type == "Conv3DBackpropInputV2":
        attrs["Tshape"] = inputs[0].dtype.base_dtype
    return make_op(op_type, inputs, attrs, name=op_type).outputs[0]


def _forward_grad(op: Operation, grad: Tensor) -> Any:
    backprop_input, backprop_filter, _ = _FAMILY_OF[op.type]
    x, w = op.inputs
    if op.type == "Conv2D":
        # TF's _Conv2DGrad takes both shapes from one ShapeN (the others from two Shapes):
        # the ops made here are counted by the seeds of random ops made later.
        x_shape, w_shape = array_ops.shape_n([x, w])
        return [
            _same_window(backprop_input, [x_shape, w, grad], op),
            _same_window(backprop_filter, [x, w_shape, grad], op),
        ]
    # The others as TF's: each shape made just before the op that reads it.
    dx = _same_window(backprop_input, [array_ops.shape(x), w, grad], op)
    return [dx, _same_window(backprop_filter, [x, array_ops.shape(w), grad], op)]


def _backprop_input_grad(op: Operation, grad: Tensor) -> Any:
    _, backprop_filter, forward = _FAMILY_OF[op.type]
    _, w, dy = op.inputs
    return [
        None,
        _same_window(backprop_filter, [grad, array_ops.shape(w), dy], op),
        _same_window(forward, [grad, w], op),
    ]


def _backprop_filter_grad(op: Operation, grad: Tensor) -> Any:
    backprop_input, _, forward = _FAMILY_OF[op.type]
    x, _, dy = op.inputs
    return [
        _same_window(backprop_input, [array_ops.shape(x), grad, dy], op),
        None,
        _same_window(forward, [x, grad], op),
    ]


for _forward, (_input, _filter, _) in _FAMILIES.items():
    RegisterGradient(_forward)(_forward_grad)
    RegisterGradient(_input)(_backprop_input_grad)
    RegisterGradient(_filter)(_backprop_filter_grad)
