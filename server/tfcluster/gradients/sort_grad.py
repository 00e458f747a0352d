"""Gradient of TopKV2 (TF's nn_grad._TopKGrad): each output's gradient goes back to the entry
it was taken from; in_top_k and searchsorted have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops


@RegisterGradient("TopKV2")
def _top_k_grad(op: Operation, grad: Tensor, _: Tensor) -> Any:
    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    ind_lastdim = array_ops.gather(
        math_ops.cast(ind_shape, dtypes.int64), array_ops.size(ind_shape) - 1
    )
    ind_2d = array_ops.reshape(op.outputs[1], array_ops.stack([-1, ind_lastdim]))
    in_lastdim = array_ops.gather(
        math_ops.cast(in_shape, dtypes.int64), array_ops.size(in_shape) - 1
    )
    outerdim = array_ops.shape(ind_2d)[0]
    # Flat positions of the chosen entries: row offset + column.
    offsets = math_ops.range(0, math_ops.cast(outerdim, dtypes.int64) * in_lastdim, in_lastdim)
    ind = array_ops.reshape(
        ind_2d + math_ops.cast(array_ops.expand_dims(offsets, -1), dtypes.int32), [-1]
    )
    scattered = array_ops.scatter_nd(
        array_ops.expand_dims(ind, -1),
        array_ops.reshape(grad, [-1]),
        [math_ops.reduce_prod(in_shape)],
    )
    # TF's indices "gradient", a zeros op it makes (and gradients() drops: int32).
    return [array_ops.reshape(scattered, in_shape), array_ops.zeros([], dtype=dtypes.int32)]
