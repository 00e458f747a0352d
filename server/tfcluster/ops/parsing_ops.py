"""Parsing ops: tf.train.Example / SequenceExample parsing (FixedLenFeature, VarLenFeature,
FixedLenSequenceFeature), decode_raw, decode_csv, string_to_number, decode_compressed,
serialize_tensor / parse_tensor.

The op types, their inputs and attrs, and the node names are TF 1.15's (ParseExample,
ParseSingleExample, ParseSingleSequenceExample, ParseSequenceExample, ...); the kernels are
in tfcluster.kernels.parsing over tfcluster.lib.io.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, constant_op
from tfcluster.ops.op_util import Outputs, make_op

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "VarLenFeature",
    "decode_compressed",
    "decode_csv",
    "decode_raw",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "string_to_number",
]


# ---- feature configurations ----------------------------------------------------------------
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Configuration for parsing a variable-length input feature."""

    __slots__ = ()


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """Configuration for parsing a fixed-length input feature."""

    __slots__ = ()

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """Configuration for parsing a variable-length input feature into a `Tensor`."""

    __slots__ = ()

    def __new__(
        cls, shape: Any, dtype: Any, allow_missing: bool = False, default_value: Any = None
    ) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """Configuration for parsing a sparse input feature from an Example: the values under
    value_key placed at the indices under index_key (one key per dimension of size `size`)."""

    __slots__ = ()

    def __new__(
        cls, index_key: Any, value_key: Any, dtype: Any, size: Any, already_sorted: bool = False
    ) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class _RawParams:
    """Features split as TF's kernels take them: sparse keys/types, dense keys/types/shapes
    and defaults, in sorted key order."""

    def __init__(self, features: Mapping[str, Any] | None, allowed: Sequence[type]) -> None:
        self.sparse_keys: list[str] = []
        self.sparse_types: list[dtypes.DType] = []
        self.dense_keys: list[str] = []
        self.dense_types: list[dtypes.DType] = []
        self.dense_shapes: list[TensorShape] = []
        self.dense_defaults: dict[str, Any] = {}
        for key in sorted(features or {}):
            self._add(key, features[key], allowed)  # type: ignore[index]

    def _add(self, key: str, feature: Any, allowed: Sequence[type]) -> None:
        known = (VarLenFeature, FixedLenFeature, FixedLenSequenceFeature, SparseFeature)
        if not any(isinstance(feature, t) for t in allowed):
            if isinstance(feature, known):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature}.")
            raise ValueError(f"Invalid feature {key}:{feature}.")
        if isinstance(feature, SparseFeature):
            self._add_sparse_feature(feature)
            return
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}.")
        dtype = dtypes.as_dtype(feature.dtype).base_dtype
        if isinstance(feature, VarLenFeature):
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)
            return
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}.")
        shape = as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if shape.ndims and shape.dims[0].value is None:  # type: ignore[index]
                raise ValueError(
                    f"First dimension of shape for feature {key} unknown. Consider using "
                    f"FixedLenSequenceFeature."
                )
            if not shape.is_fully_defined():
                raise ValueError(
                    f"All dimensions of shape for feature {key} need to be known but received "
                    f"{feature.shape!s}."
                )
        elif feature.allow_missing:
            self.dense_defaults[key] = None
        self.dense_keys.append(key)
        self.dense_types.append(dtype)
        self.dense_shapes.append(shape)
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def _add_sparse_feature(self, feature: SparseFeature) -> None:
        """A SparseFeature is parsed as VarLen int64 index features and a VarLen value feature
        (shared with other features naming the same keys, when their types agree)."""
        for what in ("index_key", "value_key", "dtype"):
            if not getattr(feature, what):
                raise ValueError(f"Missing {what} for SparseFeature {feature}.")
        index_keys = feature.index_key
        if isinstance(index_keys, str):
            index_keys = [index_keys]
        wanted = [(k, dtypes.int64) for k in sorted(index_keys)]
        wanted.append((feature.value_key, dtypes.as_dtype(feature.dtype).base_dtype))
        for sub_key, dtype in wanted:
            if sub_key in self.sparse_keys:
                have = self.sparse_types[self.sparse_keys.index(sub_key)]
                if have != dtype:
                    raise ValueError(f"Conflicting type {have} vs {dtype} for feature {sub_key}.")
            else:
                self.sparse_keys.append(sub_key)
                self.sparse_types.append(dtype)

    @property
    def num_features(self) -> int:
        return len(self.sparse_keys) + len(self.dense_keys)

    def default_tensors(self) -> list[Tensor]:
        """TF's dense_defaults inputs: the default reshaped to the feature's shape, an empty
        tensor for a required feature, or a scalar padding for a variable first dimension."""
        out = []
        for key, dtype, shape in zip(self.dense_keys, self.dense_types, self.dense_shapes):
            default = self.dense_defaults.get(key)
            safe = re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)
            if shape.ndims and shape.dims[0].value is None:  # type: ignore[index]
                if default is None:
                    default = convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
                else:
                    default = convert_to_tensor(default, dtype=dtype, name=f"padding_{safe}")
                    default = array_ops.reshape(default, [])
            elif default is None:
                default = constant_op.constant([], dtype=dtype)
            elif not isinstance(default, Tensor):
                default = convert_to_tensor(default, dtype=dtype, name=f"key_{safe}")
                default = array_ops.reshape(default, shape.as_list())
            out.append(default)
        return out


def _prepend_none_dimension(features: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            out[key] = FixedLenSequenceFeature(
                [None, *list(feature.shape)],
                feature.dtype,
                feature.allow_missing,
                feature.default_value,
            )
    return out


# The dtypes a tf.train.Feature holds (BytesList, FloatList, Int64List).
_FEATURE_DTYPES = (dtypes.string, dtypes.float32, dtypes.int64)


def _check_types(types: Sequence[dtypes.DType], what: str) -> None:
    for dtype in types:
        if dtype.base_dtype not in _FEATURE_DTYPES:
            raise TypeError(
                f"Value passed to parameter '{what}' has DataType {dtype.name} not in list of "
                "allowed values: float32, int64, string"
            )


def _string_inputs(values: Sequence[str], prefix: str) -> list[Tensor]:
    return [
        constant_op.constant(v, dtype=dtypes.string, name=f"{prefix}_{i}")
        for i, v in enumerate(values)
    ]


def _sparse_outputs(outputs: Sequence[Tensor], n: int) -> list[Any]:
    indices, values, shapes = outputs[:n], outputs[n : 2 * n], outputs[2 * n : 3 * n]
    return [SparseTensor(i, v, s) for i, v, s in zip(indices, values, shapes)]


# ---- Example -----------------------------------------------------------------------------
def parse_example(
    serialized: Any, features: Mapping[str, Any], name: str | None = None, example_names: Any = None
) -> dict[str, Any]:
    """Parses `Example` protos into a `dict` of tensors."""
    if not features:
        raise ValueError(f"Missing: features was {features}.")
    features = _prepend_none_dimension(features)
    params = _RawParams(
        features, (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature)
    )
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key")
    with name_scope(name, "ParseExample", [serialized, example_names]):
        defaults = params.default_tensors()
        _check_types(params.dense_types, "dense_defaults")
        _check_types(params.sparse_types, "sparse_types")
        with name_scope(None, "ParseExample") as scope:
            serialized_t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
            names_t = convert_to_tensor(
                [] if example_names is None else example_names, dtype=dtypes.string, name="names"
            )
            inputs = [
                serialized_t,
                names_t,
                *_string_inputs(params.sparse_keys, "sparse_keys"),
                *_string_inputs(params.dense_keys, "dense_keys"),
                *defaults,
            ]
            attrs = {
                "Nsparse": len(params.sparse_keys),
                "Ndense": len(params.dense_keys),
                "sparse_types": params.sparse_types,
                "Tdense": params.dense_types,
                "dense_shapes": params.dense_shapes,
            }
            op = make_op("ParseExample", inputs, attrs, name=scope)
    n = len(params.sparse_keys)
    sparse = _sparse_outputs(op.outputs, n)
    parsed = dict(zip(params.sparse_keys + params.dense_keys, sparse + op.outputs[3 * n :]))
    return _with_sparse_features(features, parsed)


def _with_sparse_features(features: Mapping[str, Any], parsed: dict[str, Any]) -> dict[str, Any]:
    """TF's _construct_sparse_tensors_for_sparse_features: each SparseFeature's SparseTensor
    merged from its index and value features, which leave the result unless asked for."""
    from tfcluster.ops import sparse_ops

    out = dict(parsed)
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            if isinstance(feature.index_key, str):
                sp_ids: Any = out[feature.index_key]
            else:
                sp_ids = [out[k] for k in feature.index_key]
            out[key] = sparse_ops.sparse_merge(
                sp_ids,
                out[feature.value_key],
                vocab_size=feature.size,
                already_sorted=feature.already_sorted,
            )
    for key in set(out) - set(features):
        del out[key]
    return out


def _batch_dims(serialized: Tensor) -> list[int | None]:
    """The batch dimension of a vector of serialized protos."""
    shape = serialized.shape
    if shape.ndims is None:
        return [None]
    if shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
    return shape.as_list()


def _parse_example_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return _example_outputs(attrs, _batch_dims(inputs[0]))


def _example_outputs(attrs: dict[str, Any], batch_dims: list[int | None]) -> Outputs:
    rank = len(batch_dims) + 1
    out: Outputs = []
    sparse_types = attrs["sparse_types"]
    out += [(dtypes.int64, TensorShape([None, rank])) for _ in sparse_types]
    out += [(t, TensorShape([None])) for t in sparse_types]
    out += [(dtypes.int64, TensorShape([rank])) for _ in sparse_types]
    for dtype, shape in zip(attrs["Tdense"], attrs["dense_shapes"]):
        out.append((dtype, TensorShape(batch_dims + TensorShape(shape).as_list())))
    return out


op_def_registry.register("ParseExample", _parse_example_infer)


def parse_single_example(
    serialized: Any, features: Mapping[str, Any], name: str | None = None, example_names: Any = None
) -> dict[str, Any]:
    """Parses a single `Example` proto."""
    if not features:
        raise ValueError("Missing features.")
    features = _prepend_none_dimension(features)
    params = _RawParams(
        features, (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature)
    )
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized_t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        if serialized_t.shape.ndims not in (None, 0):
            raise ValueError(f"Input serialized must be a scalar, got shape {serialized_t.shape}")
        defaults = params.default_tensors()
        _check_types(params.dense_types, "dense_defaults")
        _check_types(params.sparse_types, "sparse_types")
        attrs = {
            "num_sparse": len(params.sparse_keys),
            "sparse_keys": list(params.sparse_keys),
            "dense_keys": list(params.dense_keys),
            "sparse_types": params.sparse_types,
            "Tdense": params.dense_types,
            "dense_shapes": params.dense_shapes,
        }
        with name_scope(None, "ParseSingleExample") as scope:
            op = make_op("ParseSingleExample", [serialized_t, *defaults], attrs, name=scope)
    n = len(params.sparse_keys)
    sparse = _sparse_outputs(op.outputs, n)
    parsed = dict(zip(params.sparse_keys + params.dense_keys, sparse + op.outputs[3 * n :]))
    return _with_sparse_features(features, parsed)


op_def_registry.register("ParseSingleExample", lambda inputs, attrs: _example_outputs(attrs, []))


# ---- SequenceExample -----------------------------------------------------------------------
class _SequenceParams:
    def __init__(
        self,
        context_features: Mapping[str, Any] | None,
        sequence_features: Mapping[str, Any] | None,
    ) -> None:
        if not (context_features or sequence_features):
            raise ValueError("Missing features.")
        self.context = _RawParams(context_features, (VarLenFeature, FixedLenFeature))
        self.lists = _RawParams(sequence_features, (VarLenFeature, FixedLenSequenceFeature))
        self.missing_assumed_empty = [
            k for k in self.lists.dense_keys if k in self.lists.dense_defaults
        ]
        for key, value in self.lists.dense_defaults.items():
            if value is not None:
                raise ValueError(
                    f"Feature list dense default values are not supported (key {key}): pad with "
                    "FixedLenSequenceFeature(allow_missing=True) instead"
                )
        _check_types(self.context.dense_types, "context_dense_defaults")
        _check_types(self.context.sparse_types, "context_sparse_types")
        _check_types(self.lists.dense_types, "feature_list_dense_types")
        _check_types(self.lists.sparse_types, "feature_list_sparse_types")

    def attrs(self) -> dict[str, Any]:
        c, f = self.context, self.lists
        return {
            "Ncontext_sparse": len(c.sparse_keys),
            "Ncontext_dense": len(c.dense_keys),
            "Nfeature_list_sparse": len(f.sparse_keys),
            "Nfeature_list_dense": len(f.dense_keys),
            "context_sparse_types": c.sparse_types,
            "Tcontext_dense": c.dense_types,
            "feature_list_dense_types": f.dense_types,
            "context_dense_shapes": c.dense_shapes,
            "feature_list_sparse_types": f.sparse_types,
            "feature_list_dense_shapes": f.dense_shapes,
        }

    def split(
        self, outputs: Sequence[Tensor]
    ) -> tuple[dict[str, Any], dict[str, Any], list[Tensor]]:
        c, f = self.context, self.lists
        n = len(c.sparse_keys)
        context = dict(zip(c.sparse_keys, _sparse_outputs(outputs, n)))
        pos = 3 * n
        context.update(zip(c.dense_keys, outputs[pos : pos + len(c.dense_keys)]))
        pos += len(c.dense_keys)
        m = len(f.sparse_keys)
        lists = dict(zip(f.sparse_keys, _sparse_outputs(outputs[pos:], m)))
        pos += 3 * m
        lists.update(zip(f.dense_keys, outputs[pos : pos + len(f.dense_keys)]))
        pos += len(f.dense_keys)
        return context, lists, list(outputs[pos:])


def parse_single_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_name: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses a single `SequenceExample` proto."""
    params = _SequenceParams(context_features, sequence_features)
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        defaults = params.context.default_tensors()
        with name_scope(None, "ParseSingleSequenceExample") as scope:
            serialized_t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
            missing = convert_to_tensor(
                params.missing_assumed_empty,
                dtype=dtypes.string,
                name="feature_list_dense_missing_assumed_empty",
            )
            debug_name = convert_to_tensor(
                "" if example_name is None else example_name, dtype=dtypes.string, name="debug_name"
            )
            inputs = [
                serialized_t,
                missing,
                *_string_inputs(params.context.sparse_keys, "context_sparse_keys"),
                *_string_inputs(params.context.dense_keys, "context_dense_keys"),
                *_string_inputs(params.lists.sparse_keys, "feature_list_sparse_keys"),
                *_string_inputs(params.lists.dense_keys, "feature_list_dense_keys"),
                *defaults,
                debug_name,
            ]
            op = make_op("ParseSingleSequenceExample", inputs, params.attrs(), name=scope)
    context, lists, _ = params.split(op.outputs)
    return context, lists


def _sequence_outputs(attrs: dict[str, Any], batch_dims: list[int | None]) -> Outputs:
    out = _example_outputs(
        {
            "sparse_types": attrs["context_sparse_types"],
            "Tdense": attrs["Tcontext_dense"],
            "dense_shapes": attrs["context_dense_shapes"],
        },
        batch_dims,
    )
    rank = len(batch_dims) + 2
    list_types = attrs["feature_list_sparse_types"]
    out += [(dtypes.int64, TensorShape([None, rank])) for _ in list_types]
    out += [(t, TensorShape([None])) for t in list_types]
    out += [(dtypes.int64, TensorShape([rank])) for _ in list_types]
    for dtype, shape in zip(attrs["feature_list_dense_types"], attrs["feature_list_dense_shapes"]):
        out.append((dtype, TensorShape([*batch_dims, None, *TensorShape(shape).as_list()])))
    return out


op_def_registry.register(
    "ParseSingleSequenceExample", lambda inputs, attrs: _sequence_outputs(attrs, [])
)


def parse_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_names: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a batch of `SequenceExample` protos: (context, feature_lists, lengths)."""
    params = _SequenceParams(context_features, sequence_features)
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        defaults = params.context.default_tensors()
        with name_scope(None, "ParseSequenceExample") as scope:
            serialized_t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
            debug_name = convert_to_tensor(
                [] if example_names is None else example_names,
                dtype=dtypes.string,
                name="debug_name",
            )
            attrs = params.attrs()
            attrs.update(
                feature_list_dense_missing_assumed_empty=list(params.missing_assumed_empty),
                context_sparse_keys=list(params.context.sparse_keys),
                context_dense_keys=list(params.context.dense_keys),
                feature_list_sparse_keys=list(params.lists.sparse_keys),
                feature_list_dense_keys=list(params.lists.dense_keys),
            )
            op = make_op(
                "ParseSequenceExample", [serialized_t, debug_name, *defaults], attrs, name=scope
            )
    context, lists, lengths = params.split(op.outputs)
    return context, lists, dict(zip(params.lists.dense_keys, lengths))


def _parse_sequence_example_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    batch_dims = _batch_dims(inputs[0])
    out = _sequence_outputs(attrs, batch_dims)
    out += [(dtypes.int64, TensorShape(batch_dims)) for _ in attrs["feature_list_dense_types"]]
    return out


op_def_registry.register("ParseSequenceExample", _parse_sequence_example_infer)


# ---- raw bytes, CSV, numbers, compression, serialized tensors ------------------------------
_DECODE_RAW_TYPES = (
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.int32,
    dtypes.uint8,
    dtypes.int16,
    dtypes.int8,
    dtypes.int64,
    dtypes.complex64,
    dtypes.complex128,
)


def decode_raw(
    input_bytes: Any = None,
    out_type: Any = None,
    little_endian: bool = True,
    name: str | None = None,
    bytes: Any = None,
) -> Tensor:
    """Convert raw byte strings into tensors."""
    if bytes is not None:
        if input_bytes is not None:
            raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
        input_bytes = bytes
    if out_type is None:
        raise TypeError("decode_raw() missing required argument 'out_type'")
    dtype = dtypes.as_dtype(out_type).base_dtype
    if dtype not in _DECODE_RAW_TYPES:
        allowed = ", ".join(d.name for d in _DECODE_RAW_TYPES)
        raise TypeError(
            f"Value passed to parameter 'out_type' has DataType {dtype.name} not in list of "
            f"allowed values: {allowed}"
        )
    with name_scope(name, "DecodeRaw", [input_bytes]) as scope:
        t = convert_to_tensor(input_bytes, dtype=dtypes.string, name="bytes")
        attrs = {"out_type": dtype, "little_endian": bool(little_endian)}
        return make_op("DecodeRaw", [t], attrs, name=scope).outputs[0]


def _decode_raw_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = inputs[0].shape
    dims = None if shape.ndims is None else [*shape.as_list(), None]
    return [(attrs["out_type"], TensorShape(dims))]


op_def_registry.register("DecodeRaw", _decode_raw_infer)

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def decode_csv(
    records: Any,
    record_defaults: Sequence[Any],
    field_delim: str = ",",
    use_quote_delim: bool = True,
    name: str | None = None,
    na_value: str = "",
    select_cols: Sequence[int] | None = None,
) -> list[Tensor]:
    """Convert CSV records to tensors. Each column maps to one tensor."""
    if select_cols is not None:
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    with name_scope(name, "DecodeCSV", [records, *record_defaults]) as scope:
        records_t = convert_to_tensor(records, dtype=dtypes.string, name="records")
        defaults = []
        for i, d in enumerate(record_defaults):
            t = convert_to_tensor(d, name=f"record_defaults_{i}")
            if t.dtype.base_dtype not in _CSV_TYPES:
                raise TypeError(
                    f"Value passed to parameter 'record_defaults' has DataType "
                    f"{t.dtype.base_dtype.name} not in list of allowed values: float32, "
                    "float64, int32, int64, string"
                )
            defaults.append(t)
        attrs = {
            "OUT_TYPE": [t.dtype.base_dtype for t in defaults],
            "field_delim": field_delim,
            "use_quote_delim": bool(use_quote_delim),
            "na_value": na_value,
            "select_cols": list(select_cols or []),
        }
        return list(make_op("DecodeCSV", [records_t, *defaults], attrs, name=scope).outputs)


def _decode_csv_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    for t in inputs[1:]:
        if t.shape.ndims not in (None, 0, 1) or (
            t.shape.ndims == 1 and t.shape[0].value not in (None, 0, 1)
        ):
            raise ValueError("Shape must be at most rank 1 but is rank 2")
    return [(dtype, inputs[0].shape) for dtype in attrs["OUT_TYPE"]]


op_def_registry.register("DecodeCSV", _decode_csv_infer)

_NUMBER_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def string_to_number(
    string_tensor: Any = None,
    out_type: Any = dtypes.float32,
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    """Converts each string in the input Tensor to the specified numeric type."""
    if input is not None:
        string_tensor = input
    dtype = dtypes.as_dtype(out_type).base_dtype
    if dtype not in _NUMBER_TYPES:
        raise TypeError(
            f"Value passed to parameter 'out_type' has DataType {dtype.name} not in list of "
            "allowed values: float32, float64, int32, int64"
        )
    with name_scope(name, "StringToNumber", [string_tensor]) as scope:
        t = convert_to_tensor(string_tensor, dtype=dtypes.string, name="string_tensor")
        return make_op("StringToNumber", [t], {"out_type": dtype}, name=scope).outputs[0]


op_def_registry.register(
    "StringToNumber", lambda inputs, attrs: [(attrs["out_type"], inputs[0].shape)]
)


def decode_compressed(bytes: Any, compression_type: str = "", name: str | None = None) -> Tensor:
    """Decompress strings."""
    with name_scope(name, "DecodeCompressed", [bytes]) as scope:
        t = convert_to_tensor(bytes, dtype=dtypes.string, name="bytes")
        attrs = {"compression_type": compression_type}
        return make_op("DecodeCompressed", [t], attrs, name=scope).outputs[0]


op_def_registry.register(
    "DecodeCompressed", lambda inputs, attrs: [(dtypes.string, inputs[0].shape)]
)


def serialize_tensor(tensor: Any, name: str | None = None) -> Tensor:
    """Transforms a Tensor into a serialized TensorProto proto."""
    with name_scope(name, "SerializeTensor", [tensor]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        attrs = {"T": t.dtype.base_dtype}
        return make_op("SerializeTensor", [t], attrs, name=scope).outputs[0]


op_def_registry.register(
    "SerializeTensor", lambda inputs, attrs: [(dtypes.string, TensorShape([]))]
)


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Tensor:
    """Transforms a serialized tensorflow.TensorProto proto into a Tensor."""
    with name_scope(name, "ParseTensor", [serialized]) as scope:
        t = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        attrs = {"out_type": dtypes.as_dtype(out_type).base_dtype}
        return make_op("ParseTensor", [t], attrs, name=scope).outputs[0]


op_def_registry.register(
    "ParseTensor", lambda inputs, attrs: [(attrs["out_type"], TensorShape(None))]
)

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
