"""Gradients of the ragged ops, as TF 1.15 registers them: RaggedGather gives IndexedSlices
of the gathered rows' flat values, RaggedTensorToSparse the sparse values' gradient
reshaped to the flat values; row partitions, ranges and decoded code points have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops
from tfcluster.ops.ragged_getitem import ragged_range

not_differentiable("RaggedRange")


@RegisterGradient("RaggedGather")
def _ragged_gather_grad(op: Operation, *grads: Any) -> list[Any]:
    nested_splits = op.inputs[:-2]
    flat_values = op.inputs[-2]
    indices = op.inputs[-1]
    # Where each outer row's values lie in the flat values: the splits composed level by level.
    combined_splits = nested_splits[0]
    for row_splits in nested_splits[1:]:
        combined_splits = array_ops.gather(row_splits, combined_splits)
    flat_indices = array_ops.reshape(indices, [-1])
    value_positions = ragged_range(
        array_ops.gather(combined_splits, flat_indices),
        array_ops.gather(combined_splits[1:], flat_indices),
    ).values
    values_grad = IndexedSlices(grads[-1], value_positions, array_ops.shape(flat_values))
    return [None] * len(nested_splits) + [values_grad, None]


@RegisterGradient("RaggedTensorToSparse")
def _ragged_to_sparse_grad(
    op: Operation, unused_indices_grad: Any, values_grad: Tensor, unused_shape_grad: Any
) -> list[Any]:
    flat_values = op.inputs[-1]
    flat_values_grad = array_ops.reshape(values_grad, array_ops.shape(flat_values))
    return [None] * (len(op.inputs) - 1) + [flat_values_grad]
