"""Gradients of the segment reductions, as TF's math_grad builds them: sums gather the output
gradient back to the rows, means scale it first, max/min share it among the rows that won,
products divide the segment's product by each row (with care for zeros)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops, segment_ops


def _gather(params: Tensor, indices: Tensor) -> Tensor:
    return array_ops.gather(params, indices)


def _ones_like_ids_rows(data: Tensor, ids: Tensor, dtype: dtypes.DType) -> Tensor:
    """Ones of shape ids.shape + [1] * (rank(data) - rank(ids)): a count per row."""
    rank = array_ops.rank(data)
    tail = array_ops.fill(array_ops.expand_dims(rank - array_ops.rank(ids), 0), 1)
    shape = array_ops.concat([array_ops.shape(ids), tail], 0)
    return array_ops.fill(shape, math_ops.cast(1, dtype))


@RegisterGradient("SegmentSum")
def _segment_sum_grad(op: Operation, grad: Tensor) -> Any:
    return [_gather(grad, op.inputs[1]), None]


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op: Operation, grad: Tensor) -> Any:
    data, ids = op.inputs
    ones = _ones_like_ids_rows(data, ids, grad.dtype.base_dtype)
    scaled = math_ops.divide(grad, segment_ops.segment_sum(ones, ids))
    return [_gather(scaled, ids), None]


def _segment_min_or_max_grad(op: Operation, grad: Tensor) -> Any:
    data, ids = op.inputs
    zeros = array_ops.zeros_like(data)
    gathered_outputs = _gather(op.outputs[0], ids)
    is_selected = math_ops.equal(data, gathered_outputs)
    num_selected = segment_ops.segment_sum(math_ops.cast(is_selected, grad.dtype), ids)
    weighted = math_ops.divide(grad, num_selected)
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    return [array_ops.where(is_selected, _gather(weighted, ids), zeros), None]


RegisterGradient("SegmentMax")(_segment_min_or_max_grad)
RegisterGradient("SegmentMin")(_segment_min_or_max_grad)


def _gather_drop_negatives(
    params: Tensor,
    ids: Tensor | None,
    zero_clipped: Tensor | None = None,
    is_positive: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """params gathered at max(ids, 0), with zeros where an id is negative (a dropped row)."""
    if zero_clipped is None:
        assert ids is not None
        zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = _gather(params, zero_clipped)
    if is_positive is None:
        assert ids is not None
        is_positive = math_ops.greater_equal(ids, 0)
        extra_dims = (
            gathered.shape.ndims - is_positive.shape.ndims
            if gathered.shape.ndims is not None and is_positive.shape.ndims is not None
            else None
        )
        if extra_dims is not None:
            # As TF: one ExpandDims per dimension the gathered rows add, then `&` ones.
            for _ in range(extra_dims):
                is_positive = array_ops.expand_dims(is_positive, -1)
        else:  # ranks known only at run time (TF needs them statically)
            positive_shape = array_ops.shape(is_positive)
            extra = array_ops.ones(
                array_ops.expand_dims(array_ops.rank(gathered) - array_ops.rank(is_positive), 0),
                dtype=positive_shape.dtype,
            )
            is_positive = array_ops.reshape(
                is_positive, array_ops.concat([positive_shape, extra], 0)
            )
        is_positive = is_positive & array_ops.ones_like(gathered, dtype=dtypes.bool_)
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    return (
        array_ops.where(is_positive, gathered, array_ops.zeros_like(gathered)),
        zero_clipped,
        is_positive,
    )


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: Operation, grad: Tensor) -> Any:
    return [_gather_drop_negatives(grad, op.inputs[1])[0], None, None]


def _unsorted_segment_min_or_max_grad(op: Operation, grad: Tensor) -> Any:
    data, ids, num = op.inputs
    gathered_outputs, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered_outputs), is_positive)
    num_selected = segment_ops.unsorted_segment_sum(
        math_ops.cast(is_selected, grad.dtype), ids, num
    )
    weighted = math_ops.divide(grad, num_selected)
    gathered, _, _ = _gather_drop_negatives(weighted, None, zero_clipped, is_positive)
    return [array_ops.where(is_selected, gathered, array_ops.zeros_like(gathered)), None, None]


RegisterGradient("UnsortedSegmentMax")(_unsorted_segment_min_or_max_grad)
RegisterGradient("UnsortedSegmentMin")(_unsorted_segment_min_or_max_grad)


def _prod_grad(data: Tensor, ids: Tensor, num: Tensor, prod: Tensor, grad: Tensor) -> Tensor:
    """d prod / d x_i = prod / x_i, or the product of the others where x_i is the only zero;
    0 where the segment holds two zeros or more."""
    is_zero = math_ops.equal(data, math_ops.cast(0, data.dtype))
    num_zeros = segment_ops.unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids, num)
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    grad = array_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = array_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_ops.unsorted_segment_prod(non_zero_data, ids, num)
    zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = _gather(prod, zero_clipped)
    gathered_non_zero_prod = _gather(non_zero_prod, zero_clipped)
    prod_divided_by_el = math_ops.truediv(gathered_prod, data)
    partial = array_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, ids, zero_clipped)[0]
    return math_ops.multiply(gathered_grad, partial)


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op: Operation, grad: Tensor) -> Any:
    data, ids, num = op.inputs
    return [_prod_grad(data, ids, num, op.outputs[0], grad), None, None]


def _sparse_segment_sum_grad(op: Operation, grad: Tensor) -> Any:
    data, indices, ids = op.inputs[:3]
    rows = array_ops.shape(data)[0]
    dx = segment_ops.unsorted_segment_sum(_gather(grad, ids), indices, rows)
    return [dx, None, None] + [None] * (len(op.inputs) - 3)


RegisterGradient("SparseSegmentSum")(_sparse_segment_sum_grad)
RegisterGradient("SparseSegmentSumWithNumSegments")(_sparse_segment_sum_grad)


def _sparse_segment_scaled_grad(grad_op: str) -> Any:
    def grad_fn(op: Operation, grad: Tensor) -> Any:
        data, indices, ids = op.inputs[:3]
        rows = array_ops.shape(data)[0]
        dx = segment_ops.sparse_segment_grad(grad_op, grad, indices, ids, rows)
        return [dx, None, None] + [None] * (len(op.inputs) - 3)

    return grad_fn


for _op, _grad_op in (("SparseSegmentMean", "SparseSegmentMeanGrad"),):
    RegisterGradient(_op)(_sparse_segment_scaled_grad(_grad_op))
    RegisterGradient(f"{_op}WithNumSegments")(_sparse_segment_scaled_grad(_grad_op))
RegisterGradient("SparseSegmentSqrtN")(_sparse_segment_scaled_grad("SparseSegmentSqrtNGrad"))
RegisterGradient("SparseSegmentSqrtNWithNumSegments")(
    _sparse_segment_scaled_grad("SparseSegmentSqrtNGrad")
)
