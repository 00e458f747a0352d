"""What every feature column shares (TF 1.15's v1 `_FeatureColumn` protocol): the column
kinds, the builder that turns a features dict into each column's tensor once, and the
conversion of dense categorical inputs to SparseTensors.

TF 1.15's columns are v2 columns whose v1 protocol methods and properties (_get_dense_tensor,
_transform_feature, _num_buckets, ...) are deprecated: input_layer and linear_model call them
and TF announces each (one per class and method, "EmbeddingColumn._get_dense_tensor (from
tensorflow.python.feature_column.feature_column_v2) is deprecated ...") at its first call. Its
v2 layers (DenseFeatures, LinearModel) call the v2 protocol instead, which says nothing, but
for the few v1 calls left in it. tfcluster's columns have the v1 protocol alone: a call of it
announces TF's method while `v1_protocol()` is in force (input_layer, linear_model, and the
v1 calls of TF's v2 code) and when a program calls it."""

from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.python37_lines import in_package
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops, sparse_ops


class IdWeightPair(NamedTuple):
    """A categorical column's ids and their weights (None: all 1)."""

    id_tensor: Any
    weight_tensor: Any


_FEATURE_COLUMN_V2 = "tensorflow.python.feature_column.feature_column_v2"
# The v1 protocol, which TF 1.15 deprecates on its v2 columns.
_V1_PROTOCOL = (
    "_get_dense_tensor",
    "_get_sequence_dense_tensor",
    "_get_sparse_tensors",
    "_num_buckets",
    "_parse_example_spec",
    "_transform_feature",
    "_variable_shape",
)
# Whether a call of the v1 protocol is one TF's code makes of its deprecated methods.
_v1_calls: contextvars.ContextVar[bool] = contextvars.ContextVar("v1_calls", default=False)


@contextlib.contextmanager
def v1_protocol(on: bool = True) -> Iterator[None]:
    """Calls of the columns' v1 protocol in this block are TF's calls of its deprecated v1
    methods (on) or of the v2 ones (off)."""
    token = _v1_calls.set(on)
    try:
        yield
    finally:
        _v1_calls.reset(token)


def _announcing(attribute: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn (a column's v1 method or property getter), announcing TF's deprecated method of the
    column's class on its first call under v1_protocol() or from a program's file, from the
    caller's line."""

    @functools.wraps(fn)
    def call(self: FeatureColumn, *args: Any, **kwargs: Any) -> Any:
        # A program's own call announces it too (from the program's line), as TF's does.
        if _v1_calls.get() or not in_package(sys._getframe(1).f_code.co_filename):
            qualified = f"{self._tf_class_name}.{attribute}"
            internal_deprecations.called_internally((qualified, _FEATURE_COLUMN_V2), depth=2)
        return fn(self, *args, **kwargs)

    return call


class FeatureColumn:
    """A column: a name, how to parse it from tf.Example, how to build its tensor."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute in _V1_PROTOCOL:
            raw = cls.__dict__.get(attribute)
            if isinstance(raw, property) and raw.fget is not None:
                setattr(cls, attribute, property(_announcing(attribute, raw.fget), doc=raw.__doc__))
            elif callable(raw):
                setattr(cls, attribute, _announcing(attribute, raw))

    @property
    def _tf_class_name(self) -> str:
        """TF 1.15's class of the column (NumericColumn, ...)."""
        return self._repr_name or type(self).__name__.lstrip("_")

    # tf.feature_column's columns are v2 columns in TF 1.15 (shared embedding columns aside):
    # the canned DNN estimators then build their input layer as DenseFeatures does.
    _is_v2_column = True

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def _var_scope_name(self) -> str:
        return self.name

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        raise NotImplementedError

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        raise NotImplementedError

    # The class name TF 1.15 gives the column (its v2 class: NumericColumn, ...).
    _repr_name: str | None = None

    def __repr__(self) -> str:
        """TF's: the namedtuple's, field by field, under TF's class name."""
        name = self._tf_class_name
        fields = getattr(self, "_fields", None)
        if fields is None:
            return f"{name}({self.name!r})"
        return f"{name}({', '.join(f'{f}={getattr(self, f)!r}' for f in fields)})"


class DenseColumn(FeatureColumn):
    """A column that is a dense tensor [batch, *_variable_shape] (input_layer takes these)."""

    @property
    def _variable_shape(self) -> TensorShape:
        raise NotImplementedError

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        raise NotImplementedError


class CategoricalColumn(FeatureColumn):
    """A column of ids in [0, _num_buckets) per example (a SparseTensor), maybe weighted."""

    @property
    def _num_buckets(self) -> int:
        raise NotImplementedError

    def _get_sparse_tensors(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        raise NotImplementedError


def _maybe_expand_dim(t: Any) -> Any:
    """A rank-1 feature (one value per example) as [batch, 1]; rank 0 is an error."""
    if isinstance(t, SparseTensor):
        rank = t.dense_shape.shape[0]
        if rank is not None and int(rank) == 1:
            return sparse_ops.sparse_reshape(t, [-1, 1])
        return t
    rank = t.shape.ndims
    if rank == 0:
        raise ValueError(f"Feature (key: {t.name}) cannot have rank 0. Given: {t}")
    if rank == 1:
        return array_ops.expand_dims(t, -1)
    return t


class LazyBuilder:
    """Each column's transformed tensor, built the first time it is asked for."""

    def __init__(self, features: dict[Any, Any], state: dict[Any, Any] | None = None) -> None:
        self._features = dict(features)
        self._cache: dict[Any, Any] = {}
        # Variables the columns' state was made as beforehand (DenseFeatures), by column.
        self.state: dict[Any, Any] = dict(state or {})

    def get(self, key: Any) -> Any:
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            if key not in self._features:
                raise ValueError(f"Feature {key} is not in features dictionary.")
            feature = self._features[key]
            if isinstance(feature, SparseTensorValue):
                feature = SparseTensor.from_value(feature)
            if not isinstance(feature, SparseTensor):
                feature = convert_to_tensor(feature)
            feature = _maybe_expand_dim(feature)
            self._cache[key] = feature
            return feature
        if not isinstance(key, FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        column = key
        transformed = column._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {column.name} is not supported.")
        self._cache[column] = transformed
        return transformed


def to_sparse_input_and_drop_ignore_values(input_tensor: Any, ignore_value: Any = None) -> Any:
    """A dense categorical input as a SparseTensor without its ignore_value entries ('' for
    strings, -1 for integers)."""
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with name_scope(None, "to_sparse_input", (input_tensor, ignore_value)):
        t = convert_to_tensor(input_tensor)
        if ignore_value is None:
            ignore_value = "" if t.dtype == dtypes.string else -1
        # TF casts it under the name ignore_value: its constant is ignore_value/x, and a Cast
        # op (named ignore_value) only where the input's dtype is not the constant's.
        ignore = math_ops.cast(ignore_value, t.dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(t, ignore), name="indices")
        return SparseTensor(
            indices=indices,
            values=array_ops.gather_nd(t, indices, name="values"),
            dense_shape=array_ops.shape(t, out_type=dtypes.int64, name="dense_shape"),
        )


def columns_of_kinds(feature_columns: Any, kinds: Any, requirement: str) -> list[Any]:
    """normalize_feature_columns' columns, each one of `kinds` (a class or a tuple of them),
    else ValueError "<requirement> Given: <column>" (each API words its requirement)."""
    columns = normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, kinds):
            raise ValueError(f"{requirement} Given: {column}")
    return columns


def normalize_feature_columns(feature_columns: Any) -> list[FeatureColumn]:
    """The columns as a list (one column alone allowed), checked for kind and unique names."""
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    columns = list(feature_columns)
    for column in columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given: {column}")
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    names: dict[str, FeatureColumn] = {}
    for column in columns:
        if column.name in names:
            raise ValueError(
                "Duplicate feature column name found for columns: "
                f"{column} and {names[column.name]}. This usually means that these columns "
                "refer to same base feature. Either one must be discarded or a duplicated but "
                "renamed item must be inserted in features dict."
            )
        names[column.name] = column
    return columns
