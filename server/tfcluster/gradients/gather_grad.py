"""The gradient of tf.gather (GatherV2), as TF 1.15's array_grad builds it: along axis 0 an
IndexedSlices (the gathered rows of the gradient and their row numbers, the params' shape
computed beside the params), so that an optimizer updates only those rows and only they
travel to the ps; along another axis, or with batch_dims, the rows summed into a dense
gradient (UnsortedSegmentSum) after moving the axis first (with TF 2.x's fix of 1.15's batch
offsets)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Operation, Tensor, colocate_with
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.array_grad import reshape_quietly
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, segment_ops


@RegisterGradient("GatherV2")
def _gather_v2_grad(op: Operation, grad: Tensor) -> Any:
    params = op.inputs[0]
    # params can be large: its shape is computed beside it (int64, then int32 as TF).
    with colocate_with(params):
        params_shape = array_ops.shape(params, out_type=dtypes.int64)
        params_shape = math_ops.cast(params_shape, dtypes.int32)
    indices = op.inputs[1]
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    axis = op.inputs[2]
    axis_static = tensor_util.constant_value(axis)
    batch_dims = int(op.attrs.get("batch_dims", 0))  # graphs imported from older TFs lack it
    if batch_dims < 0:
        if indices.shape.ndims is None:
            raise ValueError(
                "The gradient of tf.gather with batch_dims < 0 needs indices of known rank"
            )
        batch_dims += indices.shape.ndims
    if axis_static is not None and int(axis_static) == 0:
        values_shape = array_ops.concat([indices_size, params_shape[1:]], 0)
        values = reshape_quietly(grad, values_shape)
        indices = array_ops.reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    # Move the gathered axis to the first non-batch place, sum the rows, move it back.
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches_indices = math_ops.range(batch_dims)
    batch_axis_indices = math_ops.range(batch_dims, axis_dims)
    inner_axes_indices = math_ops.range(axis_dims + 1, values_dims)
    values = reshape_quietly(grad, values_shape)
    transpose_dims = array_ops.concat(
        [outer_batches_indices, [axis_dims], batch_axis_indices, inner_axes_indices], 0
    )
    values_transpose = array_ops.transpose(values, transpose_dims)
    # The batch offsets follow the moved shape: TF 1.15 took params' own shape here, which
    # puts the gradient in the wrong columns when batch_dims > 0 and axis > batch_dims
    # (TF 2.x's fix, taken here).
    batch_shape = array_ops.gather(params_shape, transpose_dims) if batch_dims else params_shape
    params_grad = _batch_gather_grad(
        batch_shape, values_transpose, indices, batch_dims, params_shape[axis]
    )
    invert_transpose_dims = array_ops.concat(
        [outer_batches_indices, batch_axis_indices + 1, [batch_dims], inner_axes_indices], 0
    )
    return [array_ops.transpose(params_grad, invert_transpose_dims), None, None]


def _batch_gather_grad(
    params_shape: Tensor, values: Tensor, indices: Tensor, batch_dims: int, gather_dim_size: Any
) -> Tensor:
    """The dense gradient of a gather along the first non-batch axis."""
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = math_ops.reduce_prod(outer_shape, [0])
        flat_values_shape = array_ops.concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = array_ops.reshape(values, flat_values_shape)
    indices = array_ops.reshape(indices, indices_size)
    params_grad = segment_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = array_ops.reshape(
            params_grad, array_ops.concat([outer_shape, flat_values_shape], 0)
        )
    return params_grad


def _batch_indices(params_shape: Tensor, indices: Tensor, batch_dims: int) -> Tensor:
    """The indices offset by their batch entry's place in the flattened batch dimensions."""
    batch_indices = indices
    indices_ndims = indices.shape.ndims
    if indices_ndims is None:
        raise ValueError("The gradient of tf.gather with batch_dims needs indices of known rank")
    indices_dtype = indices.dtype.base_dtype
    casted_params_shape = math_ops.cast(params_shape, indices_dtype)
    accum_dim_value = array_ops.ones((), dtype=indices_dtype)
    for dim in range(batch_dims, 0, -1):
        dim_value = casted_params_shape[dim - 1]
        accum_dim_value *= casted_params_shape[dim]
        start = array_ops.zeros((), dtype=indices_dtype)
        step = array_ops.ones((), dtype=indices_dtype)
        dim_indices = math_ops.range(start, dim_value, step)
        dim_indices *= accum_dim_value
        dim_shape = array_ops.stack(
            [1] * (dim - 1) + [dim_value] + [1] * (indices_ndims - dim), axis=0
        )
        batch_indices += array_ops.reshape(dim_indices, dim_shape)
    return batch_indices
