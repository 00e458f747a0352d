"""Gradients of the resource variables' reads, as TF 1.15's resource_variable_ops registers
them: a read passes its gradient to the handle, a ResourceGather gives the handle an
IndexedSlices of the gathered rows (so an optimizer updates only those rows)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, constant_op
from tfcluster.ops.op_util import make_op
from tfcluster.ops.resource_handles import handle_shape


@RegisterGradient("ReadVariableOp")
def _read_grad(op: Operation, grad: Tensor) -> Any:
    return grad


def _variable_shape(handle: Tensor, out_type: Any) -> Tensor:
    """A constant where the handle's static shape is fully known, as TF's variable_shape."""
    shape = handle_shape(handle)
    if shape.is_fully_defined():
        return constant_op.constant(shape.as_list(), dtype=out_type)
    return make_op("VariableShape", [handle], {"out_type": out_type}).outputs[0]


@RegisterGradient("ResourceGather")
def _gather_grad(op: Operation, grad: Tensor) -> Any:
    handle, indices = op.inputs
    params_shape = _variable_shape(handle, dtypes.int32)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(grad, values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


@RegisterGradient("ResourceGatherNd")
def _gather_nd_grad(op: Operation, grad: Tensor) -> Any:
    handle, indices = op.inputs
    shape = make_op("VariableShape", [handle], {"out_type": indices.dtype.base_dtype}).outputs[0]
    if indices.shape.ndims == 2 and indices.shape.as_list()[-1] == 1:
        return [IndexedSlices(grad, array_ops.squeeze(indices, axis=-1), shape), None]
    return [array_ops.scatter_nd(indices, grad, shape), None]


not_differentiable("VarIsInitializedOp")
not_differentiable("VariableShape")
