"""Dense columns (TF 1.15 v1): numeric values, bucketized values (also categorical), and
the dense forms of a categorical column: embedding_column and indicator_column."""

from __future__ import annotations

import collections
import math
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    IdWeightPair,
    LazyBuilder,
    v1_protocol,
)
from tfcluster.ops import array_ops, feature_ops, init_ops, math_ops, parsing_ops, sparse_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.embedding_sparse_ops import safe_embedding_lookup_sparse


class _NumericColumn(
    DenseColumn,
    collections.namedtuple(
        "_NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"]
    ),
):
    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        t = inputs.get(self.key)
        if isinstance(t, SparseTensor):
            raise ValueError(
                "The corresponding Tensor of numerical column must be a Tensor. SparseTensor "
                f"is not supported. key: {self.key}"
            )
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return math_ops.cast(t, dtypes.float32)

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape(self.shape)

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        return inputs.get(self)


def _shape_tuple(key: str, shape: Any) -> tuple[int, ...]:
    if shape is None:
        raise ValueError("shape cannot be None. key: {key}")
    out = (shape,) if isinstance(shape, int) else tuple(shape)
    for d in out:
        if not isinstance(d, int) or d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return out


def _default_tuple(key: str, shape: tuple[int, ...], default_value: Any, dtype: Any) -> Any:
    if default_value is None:
        return None
    import numpy as np

    arr = np.asarray(default_value)
    if arr.ndim == 0:
        return tuple([arr.item()] * int(np.prod(shape))) if shape else arr.item()
    if tuple(arr.shape) != shape:
        raise ValueError(
            f"The shape of default_value must be equal to given shape. default_value: "
            f"{default_value}, shape: {shape}, key: {key}"
        )

    def to_tuple(a: Any) -> Any:
        return tuple(to_tuple(x) for x in a) if isinstance(a, list) else a

    return to_tuple(arr.tolist())


def numeric_column(
    key: str,
    shape: Any = (1,),
    default_value: Any = None,
    dtype: Any = dtypes.float32,
    normalizer_fn: Any = None,
) -> _NumericColumn:
    """Real-valued features of a fixed shape per example."""
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Given: {key}")
    shape_t = _shape_tuple(key, shape)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default = _default_tuple(key, shape_t, default_value, dtype)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _NumericColumn(key, shape_t, default, dtype, normalizer_fn)


class _BucketizedColumn(
    DenseColumn,
    CategoricalColumn,
    collections.namedtuple("_BucketizedColumn", ["source_column", "boundaries"]),
):
    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        return feature_ops.bucketize(inputs.get(self.source_column), self.boundaries)

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape((*tuple(self.source_column.shape), len(self.boundaries) + 1))

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        t = inputs.get(self)
        return array_ops.one_hot(
            math_ops.cast(t, dtypes.int64),
            depth=len(self.boundaries) + 1,
            on_value=1.0,
            off_value=0.0,
        )

    @property
    def _num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * int(self.source_column.shape[0])

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        t = inputs.get(self)
        batch = array_ops.shape(t)[0]
        dims = int(self.source_column.shape[0])
        i1 = array_ops.reshape(
            array_ops.tile(array_ops.expand_dims(math_ops.range(0, batch), 1), [1, dims]), (-1,)
        )
        i2 = array_ops.tile(math_ops.range(0, dims), [batch])
        ids = array_ops.reshape(t, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = math_ops.cast(array_ops.transpose(array_ops.stack((i1, i2))), dtypes.int64)
        shape = math_ops.cast(array_ops.stack([batch, dims]), dtypes.int64)
        # The ids stay Bucketize's int32, as in TF (a cross casts them itself).
        return IdWeightPair(SparseTensor(indices, ids, shape), None)


def bucketized_column(source_column: Any, boundaries: Sequence[float]) -> _BucketizedColumn:
    """A numeric column's values as bucket ids among sorted boundaries."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(). "
            f"Given: {source_column}"
        )
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(boundaries))


class _EmbeddingColumn(
    DenseColumn,
    collections.namedtuple(
        "_EmbeddingColumn",
        [
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
        ],
    ),
):
    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        from tfcluster.lib.feature_column.sequence_columns import refuse_sequence_input

        refuse_sequence_input("embedding_column", self.name, self.categorical_column)
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        weights = inputs.state.get(self)
        if weights is None:
            weights = self._make_weights(weight_collections, trainable is not False)
        if self.ckpt_to_load_from is not None:
            from tfcluster.training.checkpoint_utils import init_from_checkpoint

            init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
        return safe_embedding_lookup_sparse(
            weights,
            pair.id_tensor,
            pair.weight_tensor,
            combiner=self.combiner,
            name=f"{self.name}_weights",
            max_norm=self.max_norm,
        )

    @property
    def _weights_shape(self) -> tuple[int, int]:
        return (self.categorical_column._num_buckets, self.dimension)

    def _make_weights(self, weight_collections: Any, trainable: bool) -> Any:
        """The column's `embedding_weights` variable, in the scope it is called in."""
        return vs.get_variable(
            "embedding_weights",
            shape=self._weights_shape,
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=trainable and self.trainable,
            collections=weight_collections,
        )

    def _create_state(self, trainable: bool) -> Any:
        """DenseFeatures' `embedding_weights`: a resource variable in the current variable
        scope, in the default collections only. TF's create_state reads the categorical
        column's deprecated _num_buckets (a getattr default)."""
        with v1_protocol():
            shape = self._weights_shape
        # TF's state manager makes it by the layer's deprecated add_variable.
        internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE)
        return vs.get_variable(
            "embedding_weights",
            shape=shape,
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=trainable and self.trainable,
            use_resource=True,
        )

    def _get_sequence_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> tuple[Tensor, Tensor]:
        """[batch, T, dimension] embeddings of a sequence column's steps, and the lengths."""
        from tfcluster.lib.feature_column import sequence_columns

        sequence_columns.require_sequence_input(
            "embedding_column", self.name, self.categorical_column
        )
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        weights = inputs.state.get(self)
        if weights is None:
            weights = self._make_weights(weight_collections, trainable is not False)
        dense = safe_embedding_lookup_sparse(
            weights,
            pair.id_tensor,
            pair.weight_tensor,
            combiner=self.combiner,
            name=f"{self.name}_weights",
            max_norm=self.max_norm,
        )
        length = sequence_columns.sequence_length_from_sparse_tensor(pair.id_tensor)
        return dense, length


def embedding_column(
    categorical_column: CategoricalColumn,
    dimension: int,
    combiner: str = "mean",
    initializer: Any = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: Any = None,
    trainable: bool = True,
) -> _EmbeddingColumn:
    """A categorical column as the combined rows of a learned [num_buckets, dimension] table."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError(
            "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
        )
    if initializer is not None and not callable(initializer):
        raise ValueError(
            "initializer must be callable if specified. Embedding of column_name: "
            f"{categorical_column.name}"
        )
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(
            mean=0.0, stddev=1 / math.sqrt(dimension)
        )
    return _EmbeddingColumn(
        categorical_column,
        dimension,
        combiner,
        initializer,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        max_norm,
        trainable,
    )


class _IndicatorColumn(
    DenseColumn, collections.namedtuple("_IndicatorColumn", ["categorical_column"])
):
    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        ids, weights = pair.id_tensor, pair.weight_tensor
        # TF's v2 transform_feature reads the deprecated _variable_shape too.
        with v1_protocol():
            depth = int(self._variable_shape[-1])
        if weights is not None:
            # The weights keyed by id, entries past the ids' last column dropped; weights of
            # repeated ids add up (scatter_nd), as in TF.
            internal_deprecations.called_internally(internal_deprecations.SPARSE_MERGE)
            merged = sparse_ops.sparse_merge(sp_ids=ids, sp_values=weights, vocab_size=depth)
            merged = sparse_ops.sparse_slice(merged, [0, 0], merged.dense_shape)
            return array_ops.scatter_nd(merged.indices, merged.values, merged.dense_shape)
        dense = sparse_ops.sparse_tensor_to_dense(ids, default_value=-1)
        one_hot = array_ops.one_hot(dense, depth=depth, on_value=1.0, off_value=0.0)
        return math_ops.reduce_sum(one_hot, axis=[-2])

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        from tfcluster.lib.feature_column.sequence_columns import refuse_sequence_input

        refuse_sequence_input("indicator_column", self.name, self.categorical_column)
        return inputs.get(self)

    def _get_sequence_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> tuple[Tensor, Tensor]:
        """[batch, T, num_buckets] multi-hot steps of a sequence column, and the lengths."""
        from tfcluster.lib.feature_column import sequence_columns

        sequence_columns.require_sequence_input(
            "indicator_column", self.name, self.categorical_column
        )
        dense = inputs.get(self)
        pair = self.categorical_column._get_sparse_tensors(inputs)
        length = sequence_columns.sequence_length_from_sparse_tensor(pair.id_tensor)
        return dense, length


def indicator_column(categorical_column: CategoricalColumn) -> _IndicatorColumn:
    """A categorical column as a multi-hot vector (counts, or summed weights)."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(
            "Unsupported input type. Input must be a _CategoricalColumn. "
            f"Given: {categorical_column}"
        )
    return _IndicatorColumn(categorical_column)
