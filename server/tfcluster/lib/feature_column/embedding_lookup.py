"""safe_embedding_lookup_sparse as feature columns use it: the combined embedding of each
row's ids (sum, mean or sqrtn of the rows of `params`, weighted when weights are given),
zeros for rows with no valid id. Built from gather and segment sums, so its gradient is an
IndexedSlices over the rows looked up."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops import array_ops, math_ops, segment_ops, sparse_ops


def _gather_rows(params: Any, ids: Tensor) -> Tensor:
    from tfcluster.ops import embedding_ops

    return embedding_ops.embedding_lookup(params, ids)


def _combine(
    params: Any, ids: SparseTensor, weights: SparseTensor | None, combiner: str, rows: Tensor
) -> Tensor:
    segment_ids = math_ops.cast(ids.indices[:, 0], dtypes.int32)
    emb = _gather_rows(params, ids.values)
    if weights is None:
        w = array_ops.ones_like(ids.values, dtype=emb.dtype)
    else:
        w = math_ops.cast(weights.values, emb.dtype)
    emb = emb * array_ops.expand_dims(w, 1)
    num = math_ops.cast(rows, dtypes.int32)
    total = segment_ops.unsorted_segment_sum(emb, segment_ids, num)
    if combiner == "sum":
        return total
    if combiner == "mean":
        denom = segment_ops.unsorted_segment_sum(w, segment_ids, num)
    else:
        denom = math_ops.sqrt(segment_ops.unsorted_segment_sum(w * w, segment_ids, num))
    # Rows without entries are zeroed by the caller; avoid 0/0 here.
    denom = array_ops.where(math_ops.equal(denom, 0.0), array_ops.ones_like(denom), denom)
    return total / array_ops.expand_dims(denom, 1)


def safe_embedding_lookup_sparse(
    embedding_weights: Any,
    sparse_ids: SparseTensor,
    sparse_weights: SparseTensor | None = None,
    combiner: str = "mean",
    default_id: int | None = None,
    name: str | None = None,
    partition_strategy: str = "div",
    max_norm: Any = None,
) -> Tensor:
    """[d0, ..., dn-1, dim] embeddings of sparse ids of rank n+1 (last dim: ids per row)."""
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = (
        list(embedding_weights)
        if isinstance(embedding_weights, (list, tuple))
        else [embedding_weights]
    )
    with name_scope(name, "embedding_lookup", [sparse_ids, sparse_weights]):
        original_shape = sparse_ids.dense_shape
        rank = array_ops.size(original_shape)
        batch = math_ops.reduce_prod(original_shape[:-1], 0)
        two_d = array_ops.stack([batch, array_ops.gather(original_shape, rank - 1)])
        ids = sparse_ops.sparse_reshape(sparse_ids, two_d)
        weights = (
            sparse_ops.sparse_reshape(sparse_weights, two_d) if sparse_weights is not None else None
        )
        # Drop invalid ids (< 0) and, with weights, non-positive weights.
        keep = math_ops.greater_equal(ids.values, 0)
        if weights is not None:
            keep = math_ops.logical_and(keep, math_ops.greater(weights.values, 0))
            weights = sparse_ops.sparse_retain(weights, keep)
        ids = sparse_ops.sparse_retain(ids, keep)
        ids, empty = sparse_ops.sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = sparse_ops.sparse_fill_empty_rows(weights, 1.0)
        table = params[0] if len(params) == 1 else params
        result = _combine(table, ids, weights, combiner, batch)
        if default_id is None:
            zeros = array_ops.zeros_like(result)
            mask = array_ops.tile(
                array_ops.reshape(empty, [-1, 1]), array_ops.stack([1, array_ops.shape(result)[1]])
            )
            result = array_ops.where(mask, zeros, result)
        final_shape = array_ops.concat(
            [
                math_ops.cast(original_shape[:-1], dtypes.int32),
                array_ops.slice(array_ops.shape(result), [1], [-1]),
            ],
            0,
        )
        return array_ops.reshape(result, final_shape)
