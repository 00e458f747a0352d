"""Gradients of the space/batch/depth rearrangements (TF's array_grad.py): each is the
opposite rearrangement of the incoming gradient."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import space_to_batch_ops


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op: Operation, grad: Tensor) -> Any:
    return [space_to_batch_ops.batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op: Operation, grad: Tensor) -> Any:
    return [space_to_batch_ops.space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("SpaceToBatch")
def _space_to_batch_grad(op: Operation, grad: Tensor) -> Any:
    size = op._get_attr("block_size")
    return [space_to_batch_ops.batch_to_space(grad, op.inputs[1], block_size=size), None]


@RegisterGradient("BatchToSpace")
def _batch_to_space_grad(op: Operation, grad: Tensor) -> Any:
    size = op._get_attr("block_size")
    return [space_to_batch_ops.space_to_batch(grad, op.inputs[1], block_size=size), None]


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op: Operation, grad: Tensor) -> Any:
    fmt = op._get_attr("data_format")
    return [space_to_batch_ops.depth_to_space(grad, op._get_attr("block_size"), data_format=fmt)]


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op: Operation, grad: Tensor) -> Any:
    fmt = op._get_attr("data_format")
    return [space_to_batch_ops.space_to_depth(grad, op._get_attr("block_size"), data_format=fmt)]
