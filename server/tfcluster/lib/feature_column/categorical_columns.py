"""Categorical columns (TF 1.15 v1): ids from hashing, a vocabulary (list or file), the
integer value itself, a cross of other columns; and a weighted wrapper."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import control_dependencies
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    FeatureColumn,
    IdWeightPair,
    LazyBuilder,
    to_sparse_input_and_drop_ignore_values,
)
from tfcluster.ops import (
    array_ops,
    check_ops,
    feature_ops,
    lookup_ops,
    math_ops,
    parsing_ops,
    string_ops,
)


def _check_key(key: Any) -> str:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Given: {key}")
    return key


def _check_dtype(dtype: Any, where: str) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype}, column_name: {where}")
    return dtype


def _sparse_input(inputs: LazyBuilder, key: str, dtype: dtypes.DType) -> Any:
    t = to_sparse_input_and_drop_ignore_values(inputs.get(key))
    values_dtype = t.values.dtype
    if dtype.is_integer != values_dtype.is_integer and not (
        dtype == dtypes.string and values_dtype == dtypes.string
    ):
        raise ValueError(
            f"Column dtype and SparseTensors dtype must be compatible. key: {key}, column dtype: "
            f"{dtype}, tensor dtype: {values_dtype}"
        )
    return t


class _HashedCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple("_HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"]),
):
    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        t = _sparse_input(inputs, self.key, self.dtype)
        values = t.values
        if self.dtype == dtypes.string:
            as_str = values
        else:
            as_str = string_ops.as_string(values)
        ids = string_ops.string_to_hash_bucket_fast(as_str, self.hash_bucket_size, name="lookup")
        return SparseTensor(t.indices, ids, t.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return int(self.hash_bucket_size)

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


def categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: Any = dtypes.string
) -> _HashedCategoricalColumn:
    """Ids are Fingerprint64(value as string) % hash_bucket_size."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(
            f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}"
        )
    return _HashedCategoricalColumn(_check_key(key), hash_bucket_size, _check_dtype(dtype, key))


class _VocabularyListCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "_VocabularyListCategoricalColumn",
        ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"],
    ),
):
    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        t = _sparse_input(inputs, self.key, self.dtype)
        key_dtype = self.dtype
        values = t.values
        if key_dtype.is_integer != values.dtype.is_integer:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible.")
        if values.dtype.is_integer and values.dtype != dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
            key_dtype = dtypes.int64
        elif key_dtype.is_integer:
            key_dtype = dtypes.int64
        table = lookup_ops.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list),
            default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets,
            dtype=key_dtype,
            name=f"{self.key}_lookup",
        )
        return SparseTensor(t.indices, table.lookup(values), t.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


def _check_oov(key: str, default_value: Any, num_oov_buckets: int) -> None:
    if num_oov_buckets is not None:
        if default_value != -1 and num_oov_buckets != 0:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")


def categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Sequence[Any],
    dtype: Any = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> _VocabularyListCategoricalColumn:
    """Ids are positions in vocabulary_list; others are default_value or hashed OOV buckets."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    inferred = dtypes.string if isinstance(vocabulary_list[0], (str, bytes)) else dtypes.int64
    if dtype is None:
        dtype = inferred
    dtype = _check_dtype(dtype, key)
    if dtype.is_integer != inferred.is_integer:
        raise ValueError(
            f"dtype {dtype} and vocabulary dtype {inferred} do not match, column_name: {key}"
        )
    _check_oov(key, default_value, num_oov_buckets)
    return _VocabularyListCategoricalColumn(
        _check_key(key), tuple(vocabulary_list), dtype, default_value, num_oov_buckets
    )


class _VocabularyFileCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "_VocabularyFileCategoricalColumn",
        ["key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype", "default_value"],
    ),
):
    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        t = _sparse_input(inputs, self.key, self.dtype)
        values = t.values
        key_dtype = self.dtype
        if key_dtype.is_integer:
            key_dtype = dtypes.int64
            values = math_ops.cast(values, dtypes.int64)
        table = lookup_ops.index_table_from_file(
            vocabulary_file=self.vocabulary_file,
            num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size,
            default_value=self.default_value,
            key_dtype=key_dtype,
            name=f"{self.key}_lookup",
        )
        return SparseTensor(t.indices, table.lookup(values), t.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return int(self.vocabulary_size) + self.num_oov_buckets

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: int | None = None,
    dtype: Any = dtypes.string,
) -> _VocabularyFileCategoricalColumn:
    """Ids are line numbers of a vocabulary file (one entry per line)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        from tfcluster.lib.io import gfile

        with gfile.GFile(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    return _VocabularyFileCategoricalColumn(
        _check_key(key),
        vocabulary_file,
        vocabulary_size,
        0 if num_oov_buckets is None else num_oov_buckets,
        _check_dtype(dtype, key),
        -1 if default_value is None else default_value,
    )


class _IdentityCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "_IdentityCategoricalColumn", ["key", "number_buckets", "default_value"]
    ),
):
    @property
    def name(self) -> str:
        return self.key

    @property
    def num_buckets(self) -> int:
        """TF's v2 property over the `number_buckets` field."""
        return int(self.number_buckets)

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return {self.key: parsing_ops.VarLenFeature(dtypes.int64)}

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        t = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not t.values.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {t.values.dtype}")
        values = math_ops.cast(t.values, dtypes.int64, name="values")
        num_buckets = math_ops.cast(self.num_buckets, dtypes.int64, name="num_buckets")
        zero = math_ops.cast(0, dtypes.int64, name="zero")
        if self.default_value is None:
            # Out-of-range ids fail the step, as TF's asserts do.
            checks = [
                check_ops.assert_less(
                    values,
                    num_buckets,
                    data=(values, num_buckets),
                    message=f'Bucket index for categorical column "{self.name}" exceeds number '
                    "of buckets",
                    name="assert_less_than_num_buckets",
                ),
                check_ops.assert_greater_equal(
                    values,
                    zero,
                    data=(values,),
                    message=f'Negative bucket index for categorical column "{self.name}"',
                    name="assert_greater_or_equal_0",
                ),
            ]
            with control_dependencies(checks):
                values = array_ops.identity(values)
        else:
            ok = math_ops.logical_and(
                math_ops.greater_equal(values, zero), math_ops.less(values, num_buckets)
            )
            values = array_ops.where(
                ok,
                values,
                array_ops.fill(
                    array_ops.shape(values), math_ops.cast(self.default_value, dtypes.int64)
                ),
            )
        return SparseTensor(t.indices, values, t.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return int(self.num_buckets)

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


def categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> _IdentityCategoricalColumn:
    """The integer value is the id (in [0, num_buckets))."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(
            f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}"
        )
    return _IdentityCategoricalColumn(_check_key(key), num_buckets, default_value)


class _WeightedCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "_WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"]
    ),
):
    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        spec = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(
                f"Parse config {spec[self.weight_feature_key]} already exists for "
                f"{self.weight_feature_key}."
            )
        spec[self.weight_feature_key] = parsing_ops.VarLenFeature(self.dtype)
        return spec

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        weights = inputs.get(self.weight_feature_key)
        if weights is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weights = to_sparse_input_and_drop_ignore_values(weights, ignore_value=0.0)
        if not weights.values.dtype.is_floating:
            weights = SparseTensor(
                weights.indices, math_ops.cast(weights.values, dtypes.float32), weights.dense_shape
            )
        # The categorical column's transformed feature, as TF's (not its _get_sparse_tensors).
        return inputs.get(self.categorical_column), weights

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        ids, weights = inputs.get(self)
        return IdWeightPair(ids, weights)


def weighted_categorical_column(
    categorical_column: CategoricalColumn, weight_feature_key: str, dtype: Any = dtypes.float32
) -> _WeightedCategoricalColumn:
    """Each id of categorical_column weighted by the matching entry of weight_feature_key."""
    dtype = dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(
            f"categorical_column must be a categorical column. Given: {categorical_column}"
        )
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


def _leaf_keys(column: _CrossedColumn) -> list[Any]:
    out: list[Any] = []
    for k in column.keys:
        if isinstance(k, _CrossedColumn):
            out.extend(_leaf_keys(k))
        else:
            out.append(k)
    return out


class _CrossedColumn(
    CategoricalColumn,
    collections.namedtuple("_CrossedColumn", ["keys", "hash_bucket_size", "hash_key"]),
):
    @property
    def name(self) -> str:
        names = []
        for key in _leaf_keys(self):
            names.append(key.name if isinstance(key, FeatureColumn) else key)
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {}
        for key in self.keys:
            if isinstance(key, FeatureColumn):
                spec.update(key._parse_example_spec)
            else:
                spec[key] = parsing_ops.VarLenFeature(dtypes.string)
        return spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        tensors: list[Any] = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            elif isinstance(key, CategoricalColumn):
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given "
                        f"column populates weight_tensor. Given column: {key.name}"
                    )
                tensors.append(pair.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return feature_ops.sparse_cross_hashed(
            tensors, num_buckets=self.hash_bucket_size, hash_key=self.hash_key
        )

    @property
    def _num_buckets(self) -> int:
        return int(self.hash_bucket_size)

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)


def crossed_column(
    keys: Sequence[Any], hash_bucket_size: int, hash_key: int | None = None
) -> _CrossedColumn:
    """Ids are the fingerprint of each combination of the keys' values % hash_bucket_size."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError(
                f"Unsupported key type. All keys must be either string, or categorical column "
                f"except _HashedCategoricalColumn. Given: {key}"
            )
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                f"feature name as a string. Given: {key}"
            )
    return _CrossedColumn(tuple(keys), hash_bucket_size, hash_key)
