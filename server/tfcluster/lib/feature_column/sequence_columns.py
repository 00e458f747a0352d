"""The sequence feature columns of TF 1.15 (`tf.feature_column.sequence_*`): a value list
per example and time step, parsed as VarLenFeature. A sequence categorical column gives its
ids as a [batch, time, n] SparseTensor (so lookups don't combine time steps); v1's
input_layer, embedding_column and indicator_column refuse them, as in TF (they are for a
sequence input layer), while linear_model and make_parse_example_spec take sequence
categorical columns. sequence_numeric_column is a v2-only column there: v1's functions
refuse it."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.feature_column.base import CategoricalColumn, IdWeightPair, LazyBuilder
from tfcluster.lib.feature_column.categorical_columns import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)
from tfcluster.lib.feature_column.dense_columns import _shape_tuple
from tfcluster.ops import array_ops, math_ops, parsing_ops, segment_ops, sparse_ops


class SequenceCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple("SequenceCategoricalColumn", ["categorical_column"]),
):
    @property
    def name(self) -> str:
        return str(self.categorical_column.name)

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        ids, weights = pair.id_tensor, pair.weight_tensor
        # [batch, time, values per step]: an embedding lookup then combines within a step
        # (the third dimension computed, not -1: a batch of empty sequences has 0 steps).
        shape = array_ops.shape(ids)
        target = [shape[0], shape[1], math_ops.reduce_prod(shape[2:])]
        ids = sparse_ops.sparse_reshape(ids, target)
        if weights is not None:
            weights = sparse_ops.sparse_reshape(weights, target)
        return IdWeightPair(ids, weights)


class SequenceNumericColumn(
    collections.namedtuple(
        "SequenceNumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"]
    )
):
    """A v2-only column in TF 1.15: v1's input_layer, linear_model and
    make_parse_example_spec refuse it (it is for a sequence input layer)."""

    @property
    def name(self) -> str:
        return str(self.key)

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape(self.shape)

    def _get_sequence_dense_tensor(self, inputs: LazyBuilder, **kwargs: Any) -> Any:
        """[batch, T, *shape] values (the sparse input's values grouped by `shape`), and
        each example's length in steps."""
        sp_tensor = inputs.get(self.key)
        if self.normalizer_fn is not None:
            sp_tensor = self.normalizer_fn(sp_tensor)
        dense = sparse_ops.sparse_tensor_to_dense(sp_tensor, default_value=self.default_value)
        dense_shape = array_ops.concat([array_ops.shape(dense)[:1], [-1], list(self.shape)], axis=0)
        dense = array_ops.reshape(dense, shape=dense_shape)
        num_elements = (
            (self._variable_shape.num_elements() or 1) if sp_tensor.shape.ndims == 2 else 1
        )
        length = sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements)
        return dense, length


def sequence_length_from_sparse_tensor(sp_tensor: Any, num_elements: int = 1) -> Tensor:
    """Each example's number of steps: its last used column + 1 (over `num_elements`
    values per step), 0 for examples with no values (TF's fc_utils)."""
    with name_scope(None, "sequence_length") as scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += array_ops.ones_like(column_ids)
        seq_length = segment_ops.segment_max(column_ids, segment_ids=row_ids)
        seq_length = math_ops.cast(math_ops.ceil(seq_length / num_elements), dtypes.int64)
        n_pad = array_ops.shape(sp_tensor)[:1] - array_ops.shape(seq_length)[:1]
        padding = array_ops.zeros(n_pad, dtype=seq_length.dtype)
        return array_ops.concat([seq_length, padding], axis=0, name=scope)


def require_sequence_input(column_kind: str, name: str, categorical: Any) -> None:
    """A sequence dense tensor is only made of a sequence categorical column (TF's error)."""
    if not isinstance(categorical, SequenceCategoricalColumn):
        raise ValueError(
            f"In {column_kind}: {name}. categorical_column must be of type "
            "SequenceCategoricalColumn to use SequenceFeatures. Suggested fix: Use one of "
            f"sequence_categorical_column_with_*. Given (type {type(categorical)}): "
            f"{categorical}"
        )


def sequence_categorical_column_with_identity(
    key: str, num_buckets: int, default_value: Any = None
) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(
        categorical_column_with_identity(key, num_buckets, default_value=default_value)
    )


def sequence_categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: Any = dtypes.string
) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(
        categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtype)
    )


def sequence_categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: Any = None,
    dtype: Any = dtypes.string,
) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_file(
            key,
            vocabulary_file,
            vocabulary_size=vocabulary_size,
            num_oov_buckets=num_oov_buckets,
            default_value=default_value,
            dtype=dtype,
        )
    )


def sequence_categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Any,
    dtype: Any = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_list(
            key,
            vocabulary_list,
            dtype=dtype,
            default_value=default_value,
            num_oov_buckets=num_oov_buckets,
        )
    )


def sequence_numeric_column(
    key: str,
    shape: Any = (1,),
    default_value: float = 0.0,
    dtype: Any = dtypes.float32,
    normalizer_fn: Any = None,
) -> SequenceNumericColumn:
    shape_t = _shape_tuple(key, shape)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape_t, default_value, dtype, normalizer_fn)


def refuse_sequence_input(column_kind: str, name: str, categorical: Any) -> None:
    """v1 embedding/indicator columns over a sequence column raise TF's ValueError."""
    if isinstance(categorical, SequenceCategoricalColumn):
        raise ValueError(
            f"In {column_kind}: {name}. categorical_column must not be of type "
            "_SequenceCategoricalColumn. Suggested fix A: If you wish to use input_layer, "
            "use a non-sequence categorical_column_with_*. Suggested fix B: If you wish to "
            "create sequence input, use sequence_input_layer instead of input_layer. "
            f"Given (type {type(categorical)}): {categorical}"
        )
