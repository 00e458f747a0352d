"""Gradients of FusedBatchNorm (V1-V3) and LRN, as TF's nn_grad builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, constant_op, math_ops, nn_impl


def _fused_batch_norm_grad(op: Operation, *grads: Tensor) -> Any:
    x, scale = op.inputs[0], op.inputs[1]
    grad_y = grads[0]
    epsilon = op._get_attr("epsilon")
    data_format = op._get_attr("data_format")
    training = op._get_attr("is_training")
    reserve_3 = (
        op.outputs[5]
        if len(op.outputs) > 5
        else constant_op.constant([], dtype=scale.dtype.base_dtype)
    )
    if training:
        # All five outputs, as TF 1.15 (its last two, empty, stand for the unused mean and
        # variance inputs' gradients).
        return nn_impl.fused_batch_norm_grad(
            grad_y,
            x,
            scale,
            op.outputs[3],
            op.outputs[4],
            reserve_3,
            epsilon,
            data_format,
            training,
        )
    else:
        # With population statistics the gradient is computed channels-last, as TF does.
        pop_mean, pop_var = op.inputs[3], op.inputs[4]
        channels_first = data_format.startswith("NC")
        rank = len(data_format)
        to_last = [0, *range(2, rank), 1]
        to_first = [0, rank - 1, *range(1, rank - 1)]
        if channels_first:
            x = array_ops.transpose(x, to_last)
            grad_y = array_ops.transpose(grad_y, to_last)
        last_format = "NHWC" if rank == 4 else "NDHWC"
        dx, dscale, doffset, _, _ = nn_impl.fused_batch_norm_grad(
            grad_y, x, scale, pop_mean, pop_var, reserve_3, epsilon, last_format, training
        )
        if channels_first:
            dx = array_ops.transpose(dx, to_first)
    return [dx, dscale, doffset, None, None]


for _op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
    RegisterGradient(_op)(_fused_batch_norm_grad)


@RegisterGradient("LRN")
def _lrn_grad(op: Operation, grad: Tensor) -> Any:
    return [
        nn_impl.lrn_grad(
            grad,
            op.inputs[0],
            op.outputs[0],
            op._get_attr("depth_radius"),
            op._get_attr("bias"),
            op._get_attr("alpha"),
            op._get_attr("beta"),
        )
    ]


# ---- second order: the gradient of FusedBatchNormGrad (V1-V3) -----------------------------
def _batch_norm_grad_composite(
    grad_y: Tensor,
    x: Tensor,
    scale: Tensor,
    pop_mean: Tensor,
    pop_var: Tensor,
    epsilon: float,
    data_format: str,
    is_training: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """FusedBatchNormGrad's three outputs written with differentiable ops (TF 1.15's
    nn_grad._BatchNormGrad), to differentiate once more."""
    x_dtype = x.dtype.base_dtype
    if x_dtype == dtypes.float16:
        # Too imprecise in half precision: computed in float32 as TF does.
        x = math_ops.cast(x, dtypes.float32)
        grad_y = math_ops.cast(grad_y, dtypes.float32)
    channels_first = not data_format.endswith("C")
    axes = [0, 2, 3] if channels_first else [0, 1, 2]
    if is_training:
        if channels_first:
            scale = array_ops.reshape(scale, [1, array_ops.size(scale), 1, 1])
        keep = channels_first
        mean_grad_y = math_ops.reduce_mean(grad_y, axes, keepdims=keep)
        mean_x = math_ops.reduce_mean(x, axes, keepdims=keep)
        var_x = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), axes, keepdims=keep
        )
        x_centered = x - mean_x
        inv_std = math_ops.rsqrt(var_x + epsilon)
        mean_gx = math_ops.reduce_mean(grad_y * x_centered, axes, keepdims=keep)
        grad_x = (
            scale
            * inv_std
            * (grad_y - mean_grad_y - math_ops.reciprocal(var_x + epsilon) * mean_gx * x_centered)
        )
        grad_scale = inv_std * math_ops.reduce_sum(grad_y * x_centered, axes, keepdims=keep)
        if channels_first:
            grad_scale = array_ops.squeeze(grad_scale)
        grad_offset = math_ops.reduce_sum(grad_y, axes)
    else:
        if channels_first:
            per_channel = [1, array_ops.size(pop_mean), 1, 1]
            pop_mean = array_ops.reshape(pop_mean, per_channel)
            pop_var = array_ops.reshape(pop_var, per_channel)
            scale = array_ops.reshape(scale, per_channel)
        grad_offset = math_ops.reduce_sum(grad_y, axes)
        inv_std = math_ops.rsqrt(pop_var + epsilon)
        grad_scale = math_ops.reduce_sum(grad_y * (x - pop_mean) * inv_std, axes)
        grad_x = grad_y * scale * inv_std
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


def _fused_batch_norm_grad_grad(op: Operation, *grads: Tensor) -> Any:
    from tfcluster.gradients.gradients_impl import gradients_of_graph

    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    graph = op.graph
    before = set(graph.get_operations())
    outputs = _batch_norm_grad_composite(
        grad_y,
        x,
        scale,
        pop_mean,
        pop_var,
        op._get_attr("epsilon"),
        op._get_attr("data_format"),
        op._get_attr("is_training"),
    )
    # The vector-Jacobian product of the composite alone with the incoming gradients of its
    # three outputs, grad_y, x and scale taken as independent (TF records the composite on
    # a tape): only the composite's ops, nothing through how grad_y was computed from x.
    sources = [grad_y, x, scale]
    tape = {o for o in graph.get_operations() if o not in before} | {t.op for t in sources}
    gg_y, g_x, g_scale = gradients_of_graph(
        list(outputs),
        sources,
        list(grads[:3]),
        stop_gradients=sources,
        own_scope=False,
        allowed_ops=tape,
    )
    return [gg_y, g_x, g_scale] + [None] * (len(op.inputs) - 3)


for _op in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    RegisterGradient(_op)(_fused_batch_norm_grad_grad)
