"""Gradient of Dilation2D (TF's nn_grad._Dilation2DGrad): the input's and the filter's
halves, each routed to the tap that won the max."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops.morphology_ops import dilation2d_backprop


@RegisterGradient("Dilation2D")
def _dilation2d_grad(op: Operation, grad: Tensor) -> Any:
    args = (op._get_attr("strides"), op._get_attr("rates"), op._get_attr("padding"))
    image, filt = op.inputs[0], op.inputs[1]
    return [
        dilation2d_backprop("Dilation2DBackpropInput", image, filt, grad, *args),
        dilation2d_backprop("Dilation2DBackpropFilter", image, filt, grad, *args),
    ]
