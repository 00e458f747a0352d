"""tf.nn.embedding_lookup_sparse and tf.nn.safe_embedding_lookup_sparse, as TF 1.15 builds them.

A SparseTensor of ids (one row per example, several ids per row) becomes one embedding per row:
the distinct ids are looked up once (tf.unique, then embedding_lookup over the shards), each
entry takes its id's row, scaled by its weight, and the rows of an example are combined by
'sum', 'mean' (weighted average) or 'sqrtn' (sum over the root of the summed squared weights).
The safe variant first drops ids < 0 (and, except for 'sum', weights <= 0), gives empty rows
`default_id`'s embedding or zeros, and accepts ids of any rank >= 2.
"""

from __future__ import annotations

import logging
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops, segment_ops, sparse_ops
from tfcluster.ops.embedding_ops import embedding_lookup
from tfcluster.ops.variables import PartitionedVariable

_log = logging.getLogger("tensorflow")
_COMBINERS = ("mean", "sqrtn", "sum")
# Half-precision embeddings are combined in float32 (tfcluster has no bfloat16).
_HALF = tuple(d for d in (dtypes.float16, getattr(dtypes, "bfloat16", None)) if d is not None)


def _shard_list(params: Any) -> list[Any]:
    if isinstance(params, PartitionedVariable):
        return list(params)
    if not isinstance(params, list):
        return [params]
    return params


def _weighted(embeddings: Any, idx: Any, sp_weights: SparseTensor) -> tuple[Any, Any]:
    """Each entry's embedding (gathered by idx) times its weight, broadcast over the row."""
    weights = sp_weights.values
    if weights.dtype != embeddings.dtype:
        weights = math_ops.cast(weights, embeddings.dtype)
    embeddings = array_ops.gather(embeddings, idx)
    ones = array_ops.fill(array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0), 1)
    bcast_weights_shape = array_ops.concat([array_ops.shape(weights), ones], 0)
    orig_weights_shape = weights.shape
    weights = array_ops.reshape(weights, bcast_weights_shape)
    if embeddings.shape.ndims is not None:
        weights.set_shape(
            orig_weights_shape.concatenate([1 for _ in range(embeddings.shape.ndims - 1)])
        )
    return embeddings * weights, weights


def embedding_lookup_sparse(
    params: Any,
    sp_ids: Any,
    sp_weights: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    combiner: str | None = None,
    max_norm: Any = None,
) -> Any:
    """[rows of sp_ids, *embedding shape]: each row's embeddings combined by `combiner`."""
    if combiner is None:
        _log.warning(
            'The default value of combiner will change from "mean" to "sqrtn" after 2016/11/01.'
        )
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = _shard_list(params)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError("sp_weights must be either None or SparseTensor")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", [*params, sp_ids]) as name:
        segment_ids = sp_ids.indices[:, 0]
        if segment_ids.dtype != dtypes.int32:
            segment_ids = math_ops.cast(segment_ids, dtypes.int32)
        ids, idx = array_ops.unique(sp_ids.values)
        embeddings = embedding_lookup(
            params, ids, partition_strategy=partition_strategy, max_norm=max_norm
        )
        if embeddings.dtype in _HALF:
            embeddings = math_ops.cast(embeddings, dtypes.float32)
        if ignore_weights:
            return _combine_unweighted(embeddings, idx, segment_ids, combiner, name)
        embeddings, weights = _weighted(embeddings, idx, sp_weights)
        if combiner == "sum":
            return segment_ops.segment_sum(embeddings, segment_ids, name=name)
        if combiner == "mean":
            embeddings = segment_ops.segment_sum(embeddings, segment_ids)
            weight_sum = segment_ops.segment_sum(weights, segment_ids)
            internal_deprecations.called_internally(internal_deprecations.DIV)
            return math_ops.div(embeddings, weight_sum, name=name)
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        weights_squared = math_ops.pow(weights, 2)
        weight_sum = segment_ops.segment_sum(weights_squared, segment_ids)
        weight_sum_sqrt = math_ops.sqrt(weight_sum)
        internal_deprecations.called_internally(internal_deprecations.DIV)
        return math_ops.div(embeddings, weight_sum_sqrt, name=name)


def _combine_unweighted(
    embeddings: Any, idx: Any, segment_ids: Any, combiner: str, name: str
) -> Any:
    if combiner == "sum":
        return segment_ops.sparse_segment_sum(embeddings, idx, segment_ids, name=name)
    if combiner == "mean":
        return segment_ops.sparse_segment_mean(embeddings, idx, segment_ids, name=name)
    return segment_ops.sparse_segment_sqrt_n(embeddings, idx, segment_ids, name=name)


def _prune_invalid_ids(sparse_ids: Any, sparse_weights: Any) -> tuple[Any, Any]:
    """Drops the entries whose id is negative."""
    is_id_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = math_ops.logical_and(
            is_id_valid, array_ops.ones_like(sparse_weights.values, dtype=dtypes.bool_)
        )
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids: Any, sparse_weights: Any) -> tuple[Any, Any]:
    """Drops the entries whose weight is not positive."""
    if sparse_weights is not None:
        is_weights_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights


def safe_embedding_lookup_sparse(
    embedding_weights: Any,
    sparse_ids: Any,
    sparse_weights: Any = None,
    combiner: str = "mean",
    default_id: Any = None,
    name: str | None = None,
    partition_strategy: str = "div",
    max_norm: Any = None,
) -> Any:
    """embedding_lookup_sparse that tolerates invalid ids and empty rows: ids of shape
    [d0, ..., dn-1, k] give [d0, ..., dn-1, *embedding shape]."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    embedding_weights = _shard_list(embedding_weights)
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    # Resource variables stay variables (their rows are read by ResourceGather), as in TF.
    embedding_weights = [
        w
        if getattr(w, "_is_resource_variable", False) and dtype in (None, w.dtype)
        else convert_to_tensor(w, dtype=dtype)
        for w in embedding_weights
    ]
    with name_scope(
        name, "embedding_lookup", [*embedding_weights, sparse_ids, sparse_weights]
    ) as scope:
        original_shape = sparse_ids.dense_shape
        original_rank_dim = sparse_ids.dense_shape.shape.dims[0].value
        original_rank = (
            array_ops.size(original_shape) if original_rank_dim is None else original_rank_dim
        )
        sparse_ids = sparse_ops.sparse_reshape(
            sparse_ids,
            [
                math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
                array_ops.gather(original_shape, original_rank - 1),
            ],
        )
        if sparse_weights is not None:
            sparse_weights = SparseTensor(
                sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape
            )
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights,
            sparse_ids,
            sparse_weights,
            combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope,
            max_norm=max_norm,
        )
        if default_id is None:
            is_row_empty = array_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                array_ops.stack([1, array_ops.shape(result)[1]]),
            )
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            result = array_ops.where(is_row_empty, array_ops.zeros_like(result), result, name=scope)
        final_result = array_ops.reshape(
            result,
            array_ops.concat(
                [
                    array_ops.slice(
                        math_ops.cast(original_shape, dtypes.int32), [0], [original_rank - 1]
                    ),
                    array_ops.slice(array_ops.shape(result), [1], [-1]),
                ],
                0,
            ),
        )
        final_result.set_shape(
            TensorShape(None)
            if original_rank_dim is None
            else TensorShape([None] * (int(original_rank_dim) - 1)).concatenate(result.shape[1:])
        )
        return final_result


__all__: list[str] = []  # exported by the tf.nn face
