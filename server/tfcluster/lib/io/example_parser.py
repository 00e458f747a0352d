"""Parsing serialized tf.train.Example and SequenceExample protos into arrays, as TF's
parsing kernels do (ParseExample, ParseSingleExample, ParseSequenceExample, ...).

Each feature is a FeatureSpec: a dense one (FixedLenFeature; FixedLenSequenceFeature when
its first dimension is None) gives one array per feature, a sparse one (VarLenFeature) gives
(indices, values, dense_shape). Protos are decoded by protobuf's C implementation; numeric
lists come out as arrays without a Python step per value.

Errors are InvalidArgumentError with TF's messages ("Name: <unknown>, Key: f, Index: 0.  ...").
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import dtypes, errors
from tfcluster.lib.io import example_wire
from tfcluster.protos import example_pb2

# dtype -> the Feature oneof that holds it, and TF's name for it in messages.
_KIND = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_TYPE_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
SUPPORTED = tuple(_KIND)
# Lists shorter than this convert through Python; longer ones through their wire bytes.
_SHORT = 32


@dataclass(frozen=True)
class FeatureSpec:
    key: str
    dtype: dtypes.DType
    # Dense features: the shape of one example's value (a None first dimension for
    # FixedLenSequenceFeature); sparse features: ().
    shape: tuple[int | None, ...] = ()
    # Dense: the value used when the feature is missing (None: the feature is required);
    # for a variable first dimension, the scalar padding.
    default: np.ndarray | None = None

    @property
    def variable(self) -> bool:
        return bool(self.shape) and self.shape[0] is None

    @property
    def row_shape(self) -> tuple[int, ...]:
        """The shape after a variable first dimension (of each of its rows)."""
        return tuple(int(d or 0) for d in self.shape[1:]) if self.variable else ()

    @property
    def fixed_shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.shape)  # type: ignore[arg-type]

    @property
    def type_name(self) -> str:
        return _TYPE_NAME[_KIND[self.dtype]]


# ---- one feature's values ------------------------------------------------------------------
def _varints(data: bytes) -> np.ndarray:
    """Decodes a run of protobuf varints (int64 two's complement) without a Python loop."""
    raw = np.frombuffer(data, dtype=np.uint8)
    last = raw < 0x80
    ends = np.flatnonzero(last)
    starts = np.concatenate(([0], ends[:-1] + 1))
    # The position of each byte within its varint gives its shift.
    group = np.repeat(np.arange(len(ends)), ends - starts + 1)
    shift = (np.arange(len(raw)) - starts[group]).astype(np.uint64) * np.uint64(7)
    parts = (raw & 0x7F).astype(np.uint64) << shift
    return np.add.reduceat(parts, starts).view(np.int64) if len(ends) else np.zeros(0, np.int64)


def _skip_tag_and_length(data: bytes) -> int:
    """The offset of a packed field's payload in a message holding only that field."""
    pos = 1
    while data[pos] & 0x80:
        pos += 1
    return pos + 1


def feature_values(feature: Any, kind: str) -> Any:
    """The values of a Feature of the given kind, as a 1-D array (a list for bytes)."""
    if kind == "float_list":
        lst = feature.float_list
        n = len(lst.value)
        if n < _SHORT:
            # Through a list: numpy reads protobuf's repeated fields element by element.
            return np.array(list(lst.value), dtype=np.float32)
        data = lst.SerializeToString()
        return np.frombuffer(data, dtype="<f4", count=n, offset=len(data) - 4 * n)
    if kind == "int64_list":
        lst = feature.int64_list
        if len(lst.value) < _SHORT:
            return np.array(list(lst.value), dtype=np.int64)
        data = lst.SerializeToString()
        return _varints(data[_skip_tag_and_length(data) :])
    return list(feature.bytes_list.value)


def _count(values: Any) -> int:
    return len(values)


# ---- messages --------------------------------------------------------------------------------
class Where:
    """Names a place in the input for messages, in TF's two styles: the batched kernels'
    ("Name: <unknown>, Key: f, Index: 0.  ") and the single-example kernel's ("Key: f.  ")."""

    def __init__(self, names: Sequence[Any] | np.ndarray | None, batched: bool) -> None:
        self._names = names
        self.batched = batched

    def name(self, index: int) -> str:
        if self._names is not None and len(self._names) > index:
            value = self._names[index]
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            if text:
                return text
        return "<unknown>"

    def key(self, key: str, index: int) -> str:
        if self.batched:
            return f"Name: {self.name(index)}, Key: {key}, Index: {index}.  "
        return f"Key: {key}.  "

    def missing(self, spec: FeatureSpec, index: int) -> errors.OpError:
        prefix = f"Name: {self.name(index)}, " if self.batched else ""
        return _invalid(
            f"{prefix}Feature: {spec.key} (data type: {spec.type_name}) is required but could "
            "not be found."
        )


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def _typed(feature: Any, spec: FeatureSpec, where: Where, index: int, dense: bool = False) -> Any:
    """The feature's values, checking its kind against the spec's dtype (None: no kind).
    TF words the mismatch differently for dense and sparse features."""
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None
    want = _KIND[spec.dtype]
    if kind != want:
        if dense:
            detail = f"Data type: {_TYPE_NAME[kind]} but expected type: {spec.type_name}"
        else:
            detail = f"Expected type: {spec.type_name}, Actual type: {_TYPE_NAME[kind]}"
        raise _invalid(f"{where.key(spec.key, index)}Data types don't match. {detail}")
    return feature_values(feature, kind)


def _shape_str(shape: Sequence[int | None]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


# ---- dense and sparse outputs ------------------------------------------------------------------
def _numpy_dtype(dtype: dtypes.DType) -> Any:
    return object if dtype == dtypes.string else dtype.as_numpy_dtype


def _as_array(values: Any, dtype: dtypes.DType) -> np.ndarray:
    if dtype == dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.asarray(values, dtype=dtype.as_numpy_dtype)


class DenseBuilder:
    """Collects one dense feature over a batch: (batch,) + shape, or, for a variable first
    dimension, (batch, longest) + row shape padded with the default."""

    def __init__(self, spec: FeatureSpec, batch: int, where: Where) -> None:
        self.spec = spec
        self.where = where
        self.batch = batch
        if spec.variable:
            self.row_size = int(np.prod(spec.row_shape, dtype=np.int64))
            self.rows: list[Any] = [None] * batch
        else:
            self.size = int(np.prod(spec.fixed_shape, dtype=np.int64))
            self.out = np.empty((batch, self.size), dtype=_numpy_dtype(spec.dtype))

    def add(self, index: int, values: Any) -> None:
        """One example's values (None: missing)."""
        spec = self.spec
        if self.spec.variable:
            if values is None:
                return
            n = _count(values)
            if self.row_size == 0 or n % self.row_size:
                raise _invalid(
                    f"{self.where.key(spec.key, index)}Number of {spec.type_name} values is "
                    f"not a multiple of stride length. Saw {n} values but output shape is: "
                    f"{_shape_str(spec.shape)}"
                )
            self.rows[index] = values
            return
        if values is None:
            if spec.default is None or (spec.default.size == 0 and self.size):
                raise self.where.missing(spec, index)
            self.out[index] = spec.default.reshape(-1)
            return
        n = _count(values)
        if n != self.size:
            raise _invalid(
                f"{self.where.key(spec.key, index)}Number of {spec.type_name} values != "
                f"expected.  Values size: {n} but output shape: {_shape_str(spec.shape)}"
            )
        self.out[index] = values

    def result(self) -> np.ndarray:
        spec = self.spec
        if not spec.variable:
            return self.out.reshape((self.batch, *spec.fixed_shape))
        counts = [0 if r is None else _count(r) // self.row_size for r in self.rows]
        longest = max(counts, default=0)
        shape = (self.batch, longest, *spec.row_shape)
        padding = spec.default if spec.default is not None else _zero(spec.dtype)
        out = np.full(shape, np.asarray(padding).reshape(()), dtype=_numpy_dtype(spec.dtype))
        flat = out.reshape(self.batch, -1)
        for i, row in enumerate(self.rows):
            if row is not None and len(row):
                flat[i, : len(row)] = row
        return out


def _zero(dtype: dtypes.DType) -> Any:
    return b"" if dtype == dtypes.string else np.zeros((), dtype.as_numpy_dtype)


class SparseBuilder:
    """Collects one VarLenFeature over a batch into (indices, values, dense_shape)."""

    def __init__(self, spec: FeatureSpec, batch: int) -> None:
        self.spec = spec
        self.batch = batch
        self.parts: list[Any] = []
        self.counts = np.zeros(batch, dtype=np.int64)

    def add(self, index: int, values: Any) -> None:
        if values is None or not len(values):
            return
        self.parts.append(values)
        self.counts[index] = len(values)

    def result(self, batched: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        spec = self.spec
        if spec.dtype == dtypes.string:
            values = _as_array([v for part in self.parts for v in part], spec.dtype)
        elif self.parts:
            values = np.concatenate(self.parts).astype(spec.dtype.as_numpy_dtype, copy=False)
        else:
            values = np.zeros(0, dtype=spec.dtype.as_numpy_dtype)
        total = int(self.counts.sum())
        longest = int(self.counts.max(initial=0))
        rows = np.repeat(np.arange(self.batch, dtype=np.int64), self.counts)
        starts = np.cumsum(self.counts) - self.counts
        cols = np.arange(total, dtype=np.int64) - np.repeat(starts, self.counts)
        if batched:
            indices = np.stack([rows, cols], axis=1)
            shape = np.array([self.batch, longest], dtype=np.int64)
        else:
            indices = cols.reshape(-1, 1)
            shape = np.array([longest], dtype=np.int64)
        return indices, values, shape


# ---- Examples ------------------------------------------------------------------------------
def parse_proto(message: Any, data: Any, what: str = "example") -> Any:
    if not isinstance(data, bytes):
        data = bytes(data) if not isinstance(data, str) else data.encode()
    try:
        message.ParseFromString(data)
    except DecodeError:
        shown = data[:100].decode("utf-8", "backslashreplace")
        raise _invalid(f"Could not parse {what} input, value: '{shown}'") from None
    return message


ParsedSparse = tuple[np.ndarray, np.ndarray, np.ndarray]


def parse_examples(
    serialized: Sequence[Any] | np.ndarray,
    sparse: Sequence[FeatureSpec],
    dense: Sequence[FeatureSpec],
    names: Sequence[Any] | np.ndarray | None = None,
    batched: bool = True,
    raw_rows: Collection[int] = (),
) -> tuple[list[ParsedSparse], list[np.ndarray]]:
    """Parses a batch of serialized Examples (or, with batched=False, one, given as a batch
    of one, whose outputs lose the batch dimension). A dense string feature whose index is
    in raw_rows may come as the rows of one uint8 array [examples, length] holding each
    example's string (example_wire.parse_fixed_dense) instead of an array of bytes."""
    if len(serialized) == 1 and dense and not sparse:
        # One example (parse_single_example, a reader's record): no batch work at all.
        one = SingleDensePlan(dense).parse(serialized[0])
        if one is not None:
            return [], one if not batched else [d.reshape((1, *d.shape)) for d in one]
    fast = _fixed_dense_fast(serialized, dense, raw_rows) if not sparse else None
    if fast is not None:
        return [], fast if batched else [d[0] for d in fast]
    where = Where(names, batched)
    batch = len(serialized)
    dense_builders = [DenseBuilder(spec, batch, where) for spec in dense]
    sparse_builders = [SparseBuilder(spec, batch) for spec in sparse]
    example = example_pb2.Example()
    for i, data in enumerate(serialized):
        parse_proto(example, data)
        fmap = example.features.feature
        for builder in dense_builders:
            key = builder.spec.key
            values = _typed(fmap[key], builder.spec, where, i, True) if key in fmap else None
            builder.add(i, values)
        for sbuilder in sparse_builders:
            key = sbuilder.spec.key
            if key in fmap:
                sbuilder.add(i, _typed(fmap[key], sbuilder.spec, where, i))
    sparse_out = [b.result(batched) for b in sparse_builders]
    dense_out = [b.result() for b in dense_builders]
    if not batched:
        dense_out = [d[0] for d in dense_out]
    return sparse_out, dense_out


class SingleDensePlan:
    """How to read one Example's fixed-shape dense features straight from its lists, worked
    out once per set of specs (a parsing kernel keeps it across steps)."""

    def __init__(self, dense: Sequence[FeatureSpec]) -> None:
        self.ok = bool(dense) and not any(s.variable for s in dense)
        self._steps: list[tuple[str, str, tuple[int, ...], int, Any, np.ndarray | None]] = []
        if not self.ok:
            return
        for spec in dense:
            shape = spec.fixed_shape
            size = math.prod(shape)
            default = None
            if spec.default is not None and spec.default.size == size and size:
                default = _as_array(spec.default.reshape(-1), spec.dtype).reshape(shape)
            np_dtype = None if spec.dtype == dtypes.string else spec.dtype.as_numpy_dtype
            self._steps.append((spec.key, _KIND[spec.dtype], shape, size, np_dtype, default))

    def parse(self, data: Any) -> list[np.ndarray] | None:
        """The features' arrays; None when anything needs the general path (which also
        words the errors)."""
        if not self.ok:
            return None
        try:
            example = example_pb2.Example.FromString(data)
        except (DecodeError, TypeError):
            return None
        fmap = example.features.feature
        out = []
        for key, kind, shape, size, np_dtype, default in self._steps:
            feature = fmap.get(key)
            if feature is None:
                if default is None:
                    return None
                out.append(default.copy())
                continue
            if feature.WhichOneof("kind") != kind:
                return None
            values = getattr(feature, kind).value
            if len(values) != size:
                return None
            if not shape and np_dtype is not None:  # a scalar: the commonest feature of all
                out.append(np.array(values[0], dtype=np_dtype))
            elif np_dtype is None:
                strings: np.ndarray = np.empty(size, dtype=object)
                strings[:] = list(values)
                out.append(strings.reshape(shape))
            else:
                out.append(feature_values(feature, kind).reshape(shape))
        return out


class _NotFast(Exception):
    """The batch needs the general path (which also words its errors)."""


# Batches up to this size (parse_single_example) convert each value list through Python:
# fewer numpy calls than the bulk path, which pays off only over many examples.
_SMALL_BATCH = 4
_NUMPY = {dtypes.float32: np.float32, dtypes.int64: np.int64}


def _fixed_dense_small(
    serialized: Sequence[Any] | np.ndarray, dense: Sequence[FeatureSpec]
) -> list[np.ndarray] | None:
    """_fixed_dense_fast for a few examples with short lists; None for anything else."""
    if not dense:
        return None
    plan = []
    for s in dense:
        if s.variable:
            return None
        size = 1
        for d in s.fixed_shape:
            size *= d
        if not size:
            return None
        plan.append((s.key, _KIND[s.dtype], size, s))
    columns: list[list[Any]] = [[] for _ in dense]
    example = example_pb2.Example()
    for data in serialized:
        try:
            example.ParseFromString(data)
        except (DecodeError, TypeError):
            return None
        fmap = example.features.feature
        for (key, kind, size, spec), column in zip(plan, columns):
            if key in fmap:
                feature = fmap[key]
                if feature.WhichOneof("kind") != kind:
                    return None
                values = getattr(feature, kind).value
                if len(values) != size or (size > _SHORT and kind != "bytes_list"):
                    return None
                column.append(list(values))
            elif spec.default is not None and spec.default.size == size:
                column.append(spec.default.reshape(-1).tolist())
            else:
                return None
    out = []
    for (_, kind, size, spec), column in zip(plan, columns):
        shape = (len(column), *spec.fixed_shape)
        if kind == "bytes_list":
            arr = np.empty((len(column), size), dtype=object)
            for i, values in enumerate(column):
                arr[i] = values
            out.append(arr.reshape(shape))
        else:
            out.append(np.array(column, dtype=_NUMPY[spec.dtype]).reshape(shape))
    return out


def _fixed_dense_fast(
    serialized: Sequence[Any] | np.ndarray,
    dense: Sequence[FeatureSpec],
    raw_rows: Collection[int] = (),
) -> list[np.ndarray] | None:
    """The common case, fixed-shape dense features only, with one Python step per feature
    and example: each list is kept as its wire bytes and all of a feature's lists become one
    array at the end. None when anything needs the general path (a missing feature without
    a default, another kind, a wrong count, a variable shape)."""
    # Big batches are read from their wire bytes with numpy, small ones list by list.
    quick = (
        _fixed_dense_small(serialized, dense)
        if len(serialized) <= _SMALL_BATCH
        else example_wire.parse_fixed_dense(serialized, dense, raw_rows)
    )
    if quick is not None:
        return quick
    if not dense or any(s.variable or not np.prod(s.fixed_shape, dtype=np.int64) for s in dense):
        return None
    plan = [(s.key, _KIND[s.dtype]) for s in dense]
    columns: list[list[Any]] = [[] for _ in dense]
    example = example_pb2.Example()
    try:
        for data in serialized:
            try:
                example.ParseFromString(data)
            except (DecodeError, TypeError):
                raise _NotFast from None
            fmap = example.features.feature
            for (key, kind), column in zip(plan, columns):
                if key not in fmap:
                    column.append(None)
                    continue
                feature = fmap[key]
                if feature.WhichOneof("kind") != kind:
                    raise _NotFast
                if kind == "bytes_list":
                    column.append(list(feature.bytes_list.value))
                else:
                    column.append(getattr(feature, kind).SerializeToString())
        return [_fast_column(spec, column) for spec, column in zip(dense, columns)]
    except _NotFast:
        return None


def _fast_column(spec: FeatureSpec, column: list[Any]) -> np.ndarray:
    batch = len(column)
    size = int(np.prod(spec.fixed_shape, dtype=np.int64))
    missing = [i for i, c in enumerate(column) if c is None]
    if missing:
        if spec.default is None or spec.default.size != size:
            raise _NotFast
        fill: Any = (
            list(spec.default.reshape(-1))
            if spec.dtype == dtypes.string
            else _as_array(spec.default.reshape(-1), spec.dtype)
        )
    if spec.dtype == dtypes.string:
        out = np.empty((batch, size), dtype=object)
        for i, values in enumerate(column):
            if values is None:
                values = fill
            elif len(values) != size:
                raise _NotFast
            out[i] = values
        return out.reshape((batch, *spec.fixed_shape))
    present = [c for c in column if c is not None]
    if spec.dtype == dtypes.float32:
        # A packed FloatList is a tag, the payload length and 4 bytes per value.
        header = 1 + len(_varint_bytes(4 * size))
        width = header + 4 * size
        if any(len(c) != width for c in present):
            raise _NotFast
        raw = np.frombuffer(b"".join(present), dtype=np.uint8).reshape(len(present), width)
        values = np.ascontiguousarray(raw[:, header:]).view("<f4").astype(np.float32)
    else:
        # Decoding the joined lists as varints gives, per list: the tag, the length, values.
        joined = b"".join(present)
        decoded = _varints(joined)
        if len(decoded) != len(present) * (size + 2):
            raise _NotFast
        decoded = decoded.reshape(len(present), size + 2)
        if not (decoded[:, 0] == 0x0A).all():
            raise _NotFast
        lengths = np.array([len(c) for c in present])
        if not (decoded[:, 1] + 1 + _varint_sizes(decoded[:, 1]) == lengths).all():
            raise _NotFast
        values = decoded[:, 2:]
    if not missing:
        return values.reshape((batch, *spec.fixed_shape))
    out = np.empty((batch, size), dtype=values.dtype)
    mask = np.array([c is None for c in column])
    out[~mask] = values
    out[mask] = fill
    return out.reshape((batch, *spec.fixed_shape))


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _varint_sizes(values: np.ndarray) -> np.ndarray:
    """The encoded size of each non-negative varint value."""
    bits = np.maximum(np.floor(np.log2(np.maximum(values, 1))).astype(np.int64) + 1, 1)
    return (bits + 6) // 7


# ---- SequenceExamples ----------------------------------------------------------------------
@dataclass(frozen=True)
class SequenceSpecs:
    context_sparse: Sequence[FeatureSpec]
    context_dense: Sequence[FeatureSpec]
    list_sparse: Sequence[FeatureSpec]
    # Feature-list dense specs carry the shape of one step.
    list_dense: Sequence[FeatureSpec]
    # Dense feature lists that may be missing (read as zero steps).
    missing_assumed_empty: frozenset[str] = frozenset()


@dataclass
class ParsedSequences:
    context_sparse: list[ParsedSparse]
    context_dense: list[np.ndarray]
    list_sparse: list[ParsedSparse]
    list_dense: list[np.ndarray]
    list_dense_lengths: list[np.ndarray]


class _ListDenseBuilder:
    """One dense feature list over a batch: (batch, longest) + step shape, padded with the
    default (zero), and each example's number of steps."""

    def __init__(self, spec: FeatureSpec, batch: int) -> None:
        self.spec = spec
        self.batch = batch
        self.size = int(np.prod(spec.fixed_shape, dtype=np.int64))
        self.steps: list[list[Any]] = [[] for _ in range(batch)]

    def add(self, index: int, values: list[Any]) -> None:
        self.steps[index] = values

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        spec = self.spec
        lengths = np.array([len(s) for s in self.steps], dtype=np.int64)
        longest = int(lengths.max(initial=0))
        padding = spec.default if spec.default is not None else _zero(spec.dtype)
        out = np.full(
            (self.batch, longest, self.size),
            np.asarray(padding).reshape(()),
            dtype=_numpy_dtype(spec.dtype),
        )
        for i, steps in enumerate(self.steps):
            for t, values in enumerate(steps):
                out[i, t] = values
        return out.reshape((self.batch, longest, *spec.fixed_shape)), lengths


class _ListSparseBuilder:
    """One sparse feature list over a batch: indices [batch, step, j] (or [step, j] for a
    single SequenceExample)."""

    def __init__(self, spec: FeatureSpec, batch: int) -> None:
        self.spec = spec
        self.batch = batch
        self.values: list[Any] = []
        self.index_rows: list[np.ndarray] = []
        self.longest_steps = 0
        self.longest_values = 0

    def add(self, index: int, steps: list[Any]) -> None:
        self.longest_steps = max(self.longest_steps, len(steps))
        for t, values in enumerate(steps):
            n = len(values)
            if not n:
                continue
            self.longest_values = max(self.longest_values, n)
            self.values.append(values)
            cols = np.arange(n, dtype=np.int64)
            self.index_rows.append(
                np.stack([np.full(n, index, np.int64), np.full(n, t, np.int64), cols], axis=1)
            )

    def result(self, batched: bool) -> ParsedSparse:
        spec = self.spec
        if spec.dtype == dtypes.string:
            values = _as_array([v for part in self.values for v in part], spec.dtype)
        elif self.values:
            values = np.concatenate(self.values).astype(spec.dtype.as_numpy_dtype, copy=False)
        else:
            values = np.zeros(0, dtype=spec.dtype.as_numpy_dtype)
        indices = np.concatenate(self.index_rows) if self.index_rows else np.zeros((0, 3), np.int64)
        shape = [self.batch, self.longest_steps, self.longest_values]
        if not batched:
            indices, shape = indices[:, 1:], shape[1:]
        return np.ascontiguousarray(indices), values, np.array(shape, dtype=np.int64)


def _missing_list(spec: FeatureSpec, where: Where, index: int) -> errors.OpError:
    return _invalid(
        f"Name: {where.name(index)}, Feature list '{spec.key}' is required but could not be "
        "found.  Did you mean to include it in feature_list_dense_missing_assumed_empty or "
        "feature_list_dense_defaults?"
    )


def _list_steps(flist: Any, spec: FeatureSpec, where: Where, index: int, dense: bool) -> list[Any]:
    steps = []
    size = int(np.prod(spec.fixed_shape, dtype=np.int64)) if dense else 0
    for t, feature in enumerate(flist.feature):
        values = _typed(feature, spec, where, index, dense)
        if values is None:
            values = _as_array([], spec.dtype)
        if dense and _count(values) != size:
            raise _invalid(
                f"{where.key(spec.key, index)}Feature list: {spec.key}, step: {t}.  Number of "
                f"{spec.type_name} values != expected.  values size: {_count(values)} but "
                f"output shape: {_shape_str(spec.shape)}"
            )
        steps.append(values)
    return steps


def parse_sequence_examples(
    serialized: Sequence[Any] | np.ndarray,
    specs: SequenceSpecs,
    names: Sequence[Any] | np.ndarray | None = None,
    batched: bool = True,
) -> ParsedSequences:
    where = Where(names, batched)
    batch = len(serialized)
    context_dense = [DenseBuilder(s, batch, where) for s in specs.context_dense]
    context_sparse = [SparseBuilder(s, batch) for s in specs.context_sparse]
    list_dense = [_ListDenseBuilder(s, batch) for s in specs.list_dense]
    list_sparse = [_ListSparseBuilder(s, batch) for s in specs.list_sparse]
    example = example_pb2.SequenceExample()
    for i, data in enumerate(serialized):
        parse_proto(example, data, "SequenceExample")
        cmap = example.context.feature
        for db in context_dense:
            key = db.spec.key
            db.add(i, _typed(cmap[key], db.spec, where, i, True) if key in cmap else None)
        for sb in context_sparse:
            key = sb.spec.key
            if key in cmap:
                sb.add(i, _typed(cmap[key], sb.spec, where, i))
        lmap = example.feature_lists.feature_list
        for ldb in list_dense:
            key = ldb.spec.key
            if key in lmap:
                ldb.add(i, _list_steps(lmap[key], ldb.spec, where, i, dense=True))
            elif key not in specs.missing_assumed_empty:
                raise _missing_list(ldb.spec, where, i)
        for lsb in list_sparse:
            key = lsb.spec.key
            if key in lmap:
                lsb.add(i, _list_steps(lmap[key], lsb.spec, where, i, dense=False))
    dense_lists = [b.result() for b in list_dense]
    out = ParsedSequences(
        context_sparse=[b.result(batched) for b in context_sparse],
        context_dense=[b.result() for b in context_dense],
        list_sparse=[b.result(batched) for b in list_sparse],
        list_dense=[values for values, _ in dense_lists],
        list_dense_lengths=[lengths for _, lengths in dense_lists],
    )
    if not batched:
        out.context_dense = [d[0] for d in out.context_dense]
        out.list_dense = [d[0] for d in out.list_dense]
    return out
