"""Gradients of FusedBatchNorm (V1-V3) and LRN, as TF's nn_grad builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, constant_op, nn_impl


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
        dx, dscale, doffset, _, _ = nn_impl.fused_batch_norm_grad(
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
