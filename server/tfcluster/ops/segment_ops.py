"""Segment reductions (tf.math.segment_*, unsorted_segment_*, sparse_segment_*): op types,
attrs and node names as TF 1.15's gen_math_ops and math_ops build them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, op_signatures
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.infer_util import (
    check_dtype,
    index_tensor,
    merge_dim,
    shape_list,
    static_int,
    with_rank,
    with_rank_at_least,
)
from tfcluster.ops.op_util import Outputs, make_op


def _allowed(op_type: str) -> tuple[dtypes.DType, ...]:
    """The data dtypes TF 1.15's op definition allows (its T attr), in its order."""
    sig = op_signatures.lookup(op_type)
    assert sig is not None, op_type
    (attr,) = [a for a in sig.attrs if a.name == "T"]
    assert attr.allowed is not None, op_type
    return tuple(dtypes.as_dtype(t) for t in attr.allowed)


# ---- shape inference ----------------------------------------------------------------------
def _segment_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, ids = inputs
    # As TF's shape function: the ids' length is only checked when the kernel runs.
    with_rank_at_least(data.shape, 1, "data")
    with_rank(ids.shape, 1, "segment_ids")
    dims = shape_list(data.shape)
    dtype = data.dtype.base_dtype
    if dims is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([None, *dims[1:]]))]


def _unsorted_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, ids, num_t = inputs
    with_rank(num_t.shape, 0, "num_segments")
    dtype = data.dtype.base_dtype
    num = static_int(num_t)
    dims, id_dims = shape_list(data.shape), shape_list(ids.shape)
    if dims is None or id_dims is None:
        return [(dtype, TensorShape(None))]
    if len(id_dims) > len(dims) or not TensorShape(dims[: len(id_dims)]).is_compatible_with(
        TensorShape(id_dims)
    ):
        raise ValueError(
            f"data.shape = {data.shape} does not start with segment_ids.shape = {ids.shape}"
        )
    return [(dtype, TensorShape([num, *dims[len(id_dims) :]]))]


def _sparse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, indices, ids = inputs[:3]
    with_rank(indices.shape, 1, "indices")
    with_rank(ids.shape, 1, "segment_ids")
    merge_dim(
        indices.shape.as_list()[0] if indices.shape.ndims else None,
        ids.shape.as_list()[0] if ids.shape.ndims else None,
        "segment_ids",
    )
    with_rank_at_least(data.shape, 1, "data")
    num = static_int(inputs[3]) if len(inputs) > 3 else None
    dims = shape_list(data.shape)
    dtype = data.dtype.base_dtype
    if dims is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([num, *dims[1:]]))]


def _sparse_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    grad, _, _, dim0 = inputs
    dims = shape_list(grad.shape)
    dtype = grad.dtype.base_dtype
    if dims is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([static_int(dim0), *dims[1:]]))]


for _kind in ("Sum", "Mean", "Max", "Min", "Prod"):
    op_def_registry.register(f"Segment{_kind}", _segment_infer)
for _kind in ("Sum", "Max", "Min", "Prod"):
    op_def_registry.register(f"UnsortedSegment{_kind}", _unsorted_infer)
for _kind in ("Sum", "Mean", "SqrtN"):
    op_def_registry.register(f"SparseSegment{_kind}", _sparse_infer)
    op_def_registry.register(f"SparseSegment{_kind}WithNumSegments", _sparse_infer)
op_def_registry.register("SparseSegmentMeanGrad", _sparse_grad_infer)
op_def_registry.register("SparseSegmentSqrtNGrad", _sparse_grad_infer)


# ---- sorted segments ----------------------------------------------------------------------
def _segment(op_type: str, data: Any, segment_ids: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [data, segment_ids]) as scope:
        d = convert_to_tensor(data, name="data")
        check_dtype(d, _allowed(op_type), op_type, "data")
        i = index_tensor(segment_ids, "segment_ids")
        attrs = {"T": d.dtype.base_dtype, "Tindices": i.dtype.base_dtype}
        return make_op(op_type, [d, i], attrs, name=scope).outputs[0]


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Sums of the rows of `data` with equal (sorted) `segment_ids`."""
    return _segment("SegmentSum", data, segment_ids, name)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    return _segment("SegmentMean", data, segment_ids, name)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    return _segment("SegmentMax", data, segment_ids, name)


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    return _segment("SegmentMin", data, segment_ids, name)


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    return _segment("SegmentProd", data, segment_ids, name)


# ---- unsorted segments --------------------------------------------------------------------
def _unsorted(
    op_type: str, data: Any, segment_ids: Any, num_segments: Any, name: str | None
) -> Tensor:
    with name_scope(name, op_type, [data, segment_ids, num_segments]) as scope:
        d = convert_to_tensor(data, name="data")
        check_dtype(d, _allowed(op_type), op_type, "data")
        i = index_tensor(segment_ids, "segment_ids")
        n = index_tensor(num_segments, "num_segments")
        attrs = {
            "T": d.dtype.base_dtype,
            "Tindices": i.dtype.base_dtype,
            "Tnumsegments": n.dtype.base_dtype,
        }
        return make_op(op_type, [d, i, n], attrs, name=scope).outputs[0]


def unsorted_segment_sum(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Sums into `num_segments` rows; ids may be in any order, negative ids are dropped."""
    return _unsorted("UnsortedSegmentSum", data, segment_ids, num_segments, name)


def unsorted_segment_max(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_prod(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def _segment_counts(data: Tensor, segment_ids: Tensor, num_segments: Any) -> Tensor:
    """How many rows each segment gets (at least 1), shaped to broadcast against the sums."""
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype.base_dtype)
    counts = unsorted_segment_sum(ones, segment_ids, num_segments)
    data_rank, ids_rank = data.shape.ndims, segment_ids.shape.ndims
    if data_rank is None or ids_rank is None:
        extra = array_ops.ones(
            [array_ops.rank(data) - array_ops.rank(segment_ids)], dtype=dtypes.int32
        )
        broadcast = array_ops.concat([array_ops.reshape(num_segments, [1]), extra], 0)
    else:
        broadcast = array_ops.concat(
            [array_ops.reshape(num_segments, [1]), [1] * (data_rank - ids_rank)], 0
        )
    counts = array_ops.reshape(counts, broadcast)
    return math_ops.maximum(counts, math_ops.cast(1, counts.dtype))


def unsorted_segment_mean(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Means of the rows per segment (0 for empty segments)."""
    with name_scope(name, "UnsortedSegmentMean"):
        d = convert_to_tensor(data)
        ids = convert_to_tensor(segment_ids)
        n = index_tensor(num_segments, "num_segments")
        counts = _segment_counts(d, ids, n)
        summed = unsorted_segment_sum(d, ids, n)
        return math_ops.truediv(summed, counts)


def unsorted_segment_sqrt_n(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Sums per segment divided by sqrt(rows in the segment)."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        d = convert_to_tensor(data)
        ids = convert_to_tensor(segment_ids)
        n = index_tensor(num_segments, "num_segments")
        counts = _segment_counts(d, ids, n)
        summed = unsorted_segment_sum(d, ids, n)
        return math_ops.truediv(summed, math_ops.sqrt(counts))


# ---- sparse segments ----------------------------------------------------------------------
def _sparse(
    kind: str,
    data: Any,
    indices: Any,
    segment_ids: Any,
    name: str | None,
    num_segments: Any,
) -> Tensor:
    op_type = f"SparseSegment{kind}" + ("WithNumSegments" if num_segments is not None else "")
    with name_scope(name, op_type, [data, indices, segment_ids]) as scope:
        d = convert_to_tensor(data, name="data")
        check_dtype(d, _allowed(op_type), op_type, "data")
        idx = index_tensor(indices, "indices")
        ids = index_tensor(segment_ids, "segment_ids", dtype=dtypes.int32)
        if ids.dtype.base_dtype != dtypes.int32:
            raise TypeError("segment_ids of SparseSegment ops must be int32")
        attrs: dict[str, Any] = {"T": d.dtype.base_dtype, "Tidx": idx.dtype.base_dtype}
        inputs = [d, idx, ids]
        if num_segments is not None:
            n = index_tensor(num_segments, "num_segments")
            attrs["Tnumsegments"] = n.dtype.base_dtype
            inputs.append(n)
        return make_op(op_type, inputs, attrs, name=scope).outputs[0]


def sparse_segment_sum(
    data: Any,
    indices: Any,
    segment_ids: Any,
    name: str | None = None,
    num_segments: Any = None,
) -> Tensor:
    """Sums of data[indices] per (sorted) segment id."""
    return _sparse("Sum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(
    data: Any,
    indices: Any,
    segment_ids: Any,
    name: str | None = None,
    num_segments: Any = None,
) -> Tensor:
    return _sparse("Mean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(
    data: Any,
    indices: Any,
    segment_ids: Any,
    name: str | None = None,
    num_segments: Any = None,
) -> Tensor:
    return _sparse("SqrtN", data, indices, segment_ids, name, num_segments)


def sparse_segment_grad(
    op_type: str, grad: Tensor, indices: Tensor, segment_ids: Tensor, output_dim0: Tensor
) -> Tensor:
    """SparseSegmentMeanGrad / SparseSegmentSqrtNGrad (the gradients' own ops)."""
    attrs = {"T": grad.dtype.base_dtype, "Tidx": indices.dtype.base_dtype}
    inputs = [grad, indices, segment_ids, math_ops.cast(output_dim0, dtypes.int32)]
    return make_op(op_type, inputs, attrs, name=op_type).outputs[0]


__all__ = [
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "sparse_segment_mean",
    "sparse_segment_sqrt_n",
    "sparse_segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sqrt_n",
    "unsorted_segment_sum",
]
