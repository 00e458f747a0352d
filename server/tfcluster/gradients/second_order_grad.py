"""Gradients of gradient ops (second derivatives, for tf.hessians and gradients of
gradients), as TF 1.15's nn_grad defines them: SoftplusGrad, EluGrad, SeluGrad, LeakyReluGrad,
BiasAddGrad."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, nn_ops


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op: Operation, grad: Tensor) -> Any:
    # dx = dy / (1 + exp(-x)): d/d(dy) is SoftplusGrad again, d/dx is dy / (e^-x + 2 + e^x).
    dy, x = op.inputs
    with control_dependencies([grad]):
        ddy = nn_ops.activation_grad("SoftplusGrad", grad, x)
        d2x = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
        return [ddy, d2x]


@RegisterGradient("EluGrad")
def _elu_grad_grad(op: Operation, grad: Tensor) -> Any:
    elu_x = op.inputs[1]
    return [
        nn_ops.activation_grad("EluGrad", grad, elu_x),
        array_ops.where(elu_x < 0, grad * op.inputs[0], array_ops.zeros_like(elu_x)),
    ]


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op: Operation, grad: Tensor) -> Any:
    selu_x = op.inputs[1]
    return [
        nn_ops.activation_grad("SeluGrad", grad, selu_x),
        array_ops.where(selu_x < 0.0, grad * op.inputs[0], array_ops.zeros_like(selu_x)),
    ]


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[1]
    attrs = {"alpha": op._get_attr("alpha")}
    return [
        nn_ops.activation_grad("LeakyReluGrad", grad, x, attrs),
        array_ops.zeros(shape=array_ops.shape(x), dtype=x.dtype),
    ]


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op: Operation, received_grad: Tensor) -> Any:
    """The bias gradient tiled back over the other dimensions of the BiasAdd's input."""
    data_format = op.attrs.get("data_format")
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if data_format in (b"NCHW", "NCHW"):
        expanded_shape = array_ops.concat(
            [array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0
        )
        tile_mults = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded_shape = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = array_ops.concat([shape[:-1], [1]], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return [array_ops.tile(expanded_grad, tile_mults)]
