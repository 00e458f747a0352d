"""Gradients of fused batch normalisation (TF's nn_grad.py): FusedBatchNormV3's is one
FusedBatchNormGradV3 node; FusedBatchNormGradV3's own (second derivatives) differentiates
the same computation written with ordinary ops, as TF does."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients import gradients_impl
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, nn_impl


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_grad(op: Operation, *grads: Tensor) -> Any:
    x, scale = op.inputs[0], op.inputs[1]
    training = op.get_attr("is_training")
    if training:
        mean, var = op.outputs[3], op.outputs[4]
    else:
        mean, var = op.inputs[3], op.inputs[4]
    dx, dscale, doffset, _, _ = nn_impl.fused_batch_norm_grad(
        grads[0],
        x,
        scale,
        mean,
        var,
        op.outputs[5],
        op.get_attr("epsilon"),
        op.get_attr("data_format"),
        training,
    )
    return [dx, dscale, doffset, None, None]


def _batch_norm_grad(
    grad_y: Tensor,
    x: Tensor,
    scale: Tensor,
    mean: Tensor,
    var: Tensor,
    epsilon: float,
    data_format: str,
    training: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """FusedBatchNormGradV3's outputs from ordinary (differentiable) ops."""
    x_dtype = x.dtype.base_dtype
    if x_dtype == dtypes.float16:
        x = math_ops.cast(x, dtypes.float32)
        grad_y = math_ops.cast(grad_y, dtypes.float32)
    channels_first = data_format.startswith("NC")
    ndim = len(data_format)
    axes = [i for i in range(ndim) if i != (1 if channels_first else ndim - 1)]
    if channels_first:
        shape = [1, -1] + [1] * (ndim - 2)
        scale = array_ops.reshape(scale, shape)
        mean = array_ops.reshape(mean, shape)
        var = array_ops.reshape(var, shape)
    if training:
        mean_grad_y = math_ops.reduce_mean(grad_y, axes, keepdims=channels_first)
        mean_x = math_ops.reduce_mean(x, axes, keepdims=channels_first)
        var_x = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)),
            axes,
            keepdims=channels_first,
        )
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        m = math_ops.reduce_mean(grad_y * x_offset, axes, keepdims=channels_first)
        grad_x = (
            scale
            * math_ops.rsqrt(var_x + epsilon)
            * (grad_y_offset - math_ops.reciprocal(var_x + epsilon) * m * x_offset)
        )
        grad_scale = math_ops.rsqrt(var_x + epsilon) * math_ops.reduce_sum(
            grad_y * x_offset, axes, keepdims=channels_first
        )
        if channels_first:
            grad_scale = array_ops.reshape(grad_scale, [-1])
    else:
        var_rsqrt = math_ops.rsqrt(var + epsilon)
        grad_scale = math_ops.reduce_sum(grad_y * (x - mean) * var_rsqrt, axes)
        grad_x = grad_y * scale * var_rsqrt
    grad_offset = math_ops.reduce_sum(grad_y, axes)
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad(op: Operation, *grads: Tensor) -> Any:
    grad_y, x, scale, mean, var = op.inputs[:5]
    outs = _batch_norm_grad(
        grad_y,
        x,
        scale,
        mean,
        var,
        op.get_attr("epsilon"),
        op.get_attr("data_format"),
        op.get_attr("is_training"),
    )
    wanted = [(o, g) for o, g in zip(outs, grads[:3]) if g is not None]
    gg = gradients_impl.gradients(
        [o for o, _ in wanted], [grad_y, x, scale], grad_ys=[g for _, g in wanted]
    )
    return [gg[0], gg[1], gg[2], None, None, None]
