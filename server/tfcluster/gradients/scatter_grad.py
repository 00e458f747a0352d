"""Gradients of tensor_scatter_*, dynamic_partition and dynamic_stitch (TF's array_grad and
data_flow_grad). Scatters into variables have none: they are updates, not functions."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, partition_ops, scatter_ops, segment_ops


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op: Operation, grad: Tensor) -> Any:
    indices, updates = op.inputs[1], op.inputs[2]
    updates_grad = array_ops.gather_nd(grad, indices)
    tensor_grad = scatter_ops.tensor_scatter_update(
        array_ops.identity(grad), indices, array_ops.zeros_like(updates, dtype=grad.dtype)
    )
    return [tensor_grad, None, updates_grad]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op: Operation, grad: Tensor) -> Any:
    return [grad, None, array_ops.gather_nd(grad, op.inputs[1])]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op: Operation, grad: Tensor) -> Any:
    return [grad, None, math_ops.negative(array_ops.gather_nd(grad, op.inputs[1]))]


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grads(op: Operation, *grads: Tensor) -> Any:
    """Each partition's gradient goes back to the rows it came from: partition the row
    numbers the same way, then stitch the gradients by them."""
    data, partitions = op.inputs
    num = int(op._get_attr("num_partitions"))
    prefix_shape = array_ops.shape(partitions)
    original = array_ops.reshape(math_ops.range(math_ops.reduce_prod(prefix_shape)), prefix_shape)
    partitioned = partition_ops.dynamic_partition(original, partitions, num)
    stitched = partition_ops.dynamic_stitch(partitioned, list(grads))
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


def _dynamic_stitch_grads(op: Operation, grad: Any) -> Any:
    """Each data input gets the rows of the gradient its indices name. A sparse gradient (the
    stitched rows looked up again, e.g. an embedding of an embedding) is summed into rows
    first."""
    n = len(op.inputs) // 2
    indices = [
        t if t.dtype.base_dtype == dtypes.int32 else math_ops.cast(t, dtypes.int32)
        for t in op.inputs[:n]
    ]
    if isinstance(grad, IndexedSlices):
        output_rows = array_ops.shape(op.outputs[0])[0]
        grad = segment_ops.unsorted_segment_sum(grad.values, grad.indices, output_rows)
    return [None] * n + [array_ops.gather(grad, i) for i in indices]


RegisterGradient("DynamicStitch")(_dynamic_stitch_grads)
RegisterGradient("ParallelDynamicStitch")(_dynamic_stitch_grads)
