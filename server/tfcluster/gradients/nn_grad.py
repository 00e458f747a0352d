"""Gradients of nn ops (TF's nn_grad.py): activations, softmax losses, bias (convolutions in
conv_grad.py, pooling in pooling_grad.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, nn_ops


def _is_zero(t: Tensor) -> bool:
    """True for a gradient known to be all zeros (an unused output of a multi-output op)."""
    if t.op.type in ("ZerosLike", "Zeros"):
        return True
    value = tensor_util.constant_value(t)
    return value is not None and not np.any(value)


def _broadcast_mul(vec: Tensor, mat: Tensor) -> Tensor:
    """TF's _BroadcastMul, vec[..., None] * mat: each row of mat scaled by one entry of vec."""
    return array_ops.expand_dims(vec, -1) * mat


# ---- activations -------------------------------------------------------------------------
@RegisterGradient("Relu")
def _relu_grad(op: Operation, grad: Tensor) -> Any:
    return [nn_ops.activation_grad("ReluGrad", grad, op.outputs[0])]


@RegisterGradient("Relu6")
def _relu6_grad(op: Operation, grad: Tensor) -> Any:
    return [nn_ops.activation_grad("Relu6Grad", grad, op.outputs[0])]


@RegisterGradient("Elu")
def _elu_grad(op: Operation, grad: Tensor) -> Any:
    return [nn_ops.activation_grad("EluGrad", grad, op.outputs[0])]


@RegisterGradient("Selu")
def _selu_grad(op: Operation, grad: Tensor) -> Any:
    return [nn_ops.activation_grad("SeluGrad", grad, op.outputs[0])]


@RegisterGradient("Softplus")
def _softplus_grad(op: Operation, grad: Tensor) -> Any:
    # TF 1.15's: grad * sigmoid(x) (not its SoftplusGrad op).
    return [grad * math_ops.sigmoid(op.inputs[0])]


@RegisterGradient("Softsign")
def _softsign_grad(op: Operation, grad: Tensor) -> Any:
    return [nn_ops.activation_grad("SoftsignGrad", grad, op.inputs[0])]


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op: Operation, grad: Tensor) -> Any:
    attrs = {"alpha": op._get_attr("alpha")}
    return [nn_ops.activation_grad("LeakyReluGrad", grad, op.inputs[0], attrs)]


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[1]
    return [nn_ops.activation_grad("ReluGrad", grad, x), array_ops.zeros_like(x)]


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[1]
    return [nn_ops.activation_grad("Relu6Grad", grad, x), array_ops.zeros_like(x)]


# ---- softmax and losses ------------------------------------------------------------------
@RegisterGradient("Softmax")
def _softmax_grad(op: Operation, grad: Tensor) -> Any:
    softmax = op.outputs[0]
    # TF's operators (ops named mul, sub, mul_1).
    sum_channels = math_ops.reduce_sum(grad * softmax, -1, keepdims=True)
    return [(grad - sum_channels) * softmax]


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: Operation, grad: Tensor) -> Any:
    softmax = math_ops.exp(op.outputs[0])
    return [grad - math_ops.reduce_sum(grad, -1, keepdims=True) * softmax]


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op: Operation, grad_loss: Tensor, grad_grad: Tensor) -> Any:
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if grad_grad is not None and not _is_zero(grad_grad):
        # The backprop output (softmax - labels) was used too: add its Jacobian product
        # (TF 1.15 leaves the labels' gradient without it, and so does this).
        softmax = nn_ops.softmax(logits)
        inner = array_ops.squeeze(
            math_ops.matmul(array_ops.expand_dims(grad_grad, 1), array_ops.expand_dims(softmax, 2)),
            axis=1,
        )
        grad += (grad_grad - inner) * softmax
    return grad, _broadcast_mul(grad_loss, -nn_ops.log_softmax(logits))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op: Operation, grad_loss: Tensor, grad_grad: Tensor) -> Any:
    # As TF: the precomputed backprop behind a PreventGradient (no second derivative).
    backprop = array_ops.prevent_gradient(
        op.outputs[1],
        message="Currently there is no way to take the second derivative of "
        "sparse_softmax_cross_entropy_with_logits due to the fused implementation's "
        "interaction with tf.gradients()",
    )
    return _broadcast_mul(grad_loss, backprop), None


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: Operation, grad: Tensor) -> Any:
    return [op.inputs[0] * grad]


@RegisterGradient("BiasAdd")
def _bias_add_grad(op: Operation, grad: Tensor) -> Any:
    grad_bias = nn_ops.bias_add_grad(grad, data_format=op._get_attr("data_format"))
    grad_bias.set_shape(op.inputs[1].shape)
    return grad, grad_bias
