"""Gradients of CTC (TF's ctc_ops._CTCLossGrad): the loss's gradient is the op's second
output, scaled per batch entry; it has no second derivative, which PreventGradient enforces.
The decoders have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.array_ops import prevent_gradient


@RegisterGradient("CTCLoss")
def _ctc_loss_grad(op: Operation, grad_loss: Tensor, _: Tensor) -> Any:
    grad = prevent_gradient(
        op.outputs[1],
        message="Currently there is no way to take the second  derivative of ctc_loss due to "
        "the fused implementation's interaction  with tf.gradients()",
    )
    scaled = math_ops.multiply(array_ops.expand_dims(grad_loss, -1), grad)
    return [scaled, None, None, None]


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op: Operation, _: Tensor) -> Any:
    raise LookupError(f"Gradient explicitly disabled. Reason: {op._get_attr('message')}")


not_differentiable("CTCGreedyDecoder")
not_differentiable("CTCBeamSearchDecoder")
