"""Gradients of FractionalMaxPool (to each window's first max) and FractionalAvgPool (spread
evenly over each window), as TF's nn_grad builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops
from tfcluster.ops.fractional_pool_ops import fractional_avg_pool_grad, fractional_max_pool_grad


@RegisterGradient("FractionalMaxPool")
def _fractional_max_pool_grad(op: Operation, grad: Tensor, _rows: Tensor, _cols: Tensor) -> Any:
    return [
        fractional_max_pool_grad(
            op.inputs[0],
            op.outputs[0],
            grad,
            op.outputs[1],
            op.outputs[2],
            op._get_attr("overlapping"),
        )
    ]


@RegisterGradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op: Operation, grad: Tensor, _rows: Tensor, _cols: Tensor) -> Any:
    static = op.inputs[0].shape
    shape = static.as_list() if static.is_fully_defined() else array_ops.shape(op.inputs[0])
    return [
        fractional_avg_pool_grad(
            shape, grad, op.outputs[1], op.outputs[2], op._get_attr("overlapping")
        )
    ]
