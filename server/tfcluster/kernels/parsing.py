"""Kernels of the parsing ops (ops/parsing_ops.py): Example and SequenceExample parsing,
DecodeRaw, DecodeCSV, StringToNumber, DecodeCompressed, SerializeTensor, ParseTensor.

All read or make strings (object arrays of bytes), so they run on the CPU; the work is in
tfcluster.lib.io (protos, CSV, compression), shared with datasets and readers.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import dtypes, errors, tensor_util
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.registry import kernel
from tfcluster.lib.io import compression, csv_parser, cut_strings, example_parser
from tfcluster.lib.io.example_parser import FeatureSpec
from tfcluster.protos import tensor_pb2
from tfcluster.runtime.function_fusion import RAW_ROWS_ATTR, RAW_ROWS_INPUT_ATTR, RAW_ROWS_LENT_ATTR

Compute = Callable[[Any, list[Any]], Sequence[Any]]
_CPU = ("CPU",)


# TF's C++ names of dtypes, as its kernels' messages print them.
_CC_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.float16: "half"}


def _cc_name(dtype: dtypes.DType) -> str:
    return _CC_NAMES.get(dtype, dtype.name)


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape: Sequence[Any]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _text(value: Any) -> str:
    item = np.asarray(value, dtype=object).reshape(-1)
    if item.size != 1:
        raise _invalid(f"Expected a scalar key, got {item.size} values")
    v = item[0]
    return v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)


def _dense_specs(
    keys: Sequence[str],
    types: Sequence[dtypes.DType],
    shapes: Sequence[TensorShape],
    defaults: Sequence[np.ndarray],
) -> list[FeatureSpec]:
    """Dense specs, checking each default as TF's kernels do: empty (required), the
    feature's shape, or a scalar padding for a variable first dimension."""
    specs: list[FeatureSpec] = []
    for key, dtype, shape, default in zip(keys, types, shapes, defaults):
        dims = tuple(TensorShape(shape).as_list())
        default = np.asarray(default)
        spec = FeatureSpec(key, dtype, dims, default if default.size else None)
        if spec.variable:
            if default.ndim != 0:
                raise _invalid(
                    f"For key: {key}, dense_defaults[{len(specs)}] must be a scalar (the "
                    f"padding value) when the first dimension is variable, but has shape "
                    f"{_shape_str(default.shape)}"
                )
            spec = FeatureSpec(key, dtype, dims, default)
        elif default.size and default.shape != dims:
            raise _invalid(
                f"dense_shapes[{len(specs)}] ({_shape_str(dims)}) does not match the shape of "
                f"dense_defaults[{len(specs)}] ({_shape_str(default.shape)}) for key {key}"
            )
        specs.append(spec)
    return specs


def _sparse_specs(keys: Sequence[str], types: Sequence[dtypes.DType]) -> list[FeatureSpec]:
    return [FeatureSpec(k, t) for k, t in zip(keys, types)]


def _flatten_sparse(parsed: Sequence[tuple[Any, Any, Any]]) -> list[Any]:
    return [p[0] for p in parsed] + [p[1] for p in parsed] + [p[2] for p in parsed]


def _vector(serialized: Any, what: str = "serialized") -> np.ndarray:
    arr = np.asarray(serialized, dtype=object)
    if arr.ndim != 1:
        raise _invalid(f"Expected {what} to be a vector, got shape: {_shape_str(arr.shape)}")
    return arr


def _names(names: Any) -> np.ndarray | None:
    arr = np.asarray(names, dtype=object).reshape(-1)
    return arr if arr.size else None


# ---- Examples --------------------------------------------------------------------------------
@kernel("ParseExample", devices=_CPU)
def parse_example(node: Any, xp: Any) -> Compute:
    attrs = node.attrs
    nsparse, ndense = int(attrs["Nsparse"]), int(attrs["Ndense"])
    sparse_types = list(attrs["sparse_types"])
    dense_types = list(attrs["Tdense"])
    dense_shapes = list(attrs["dense_shapes"])
    # Dense strings read only by a DecodeRaw, which takes them as rows of bytes
    # (runtime/function_fusion.py).
    raw_rows = frozenset(int(k) for k in attrs.get(RAW_ROWS_ATTR) or ())

    # The specs of the last call, with the key and default tensors they were made from:
    # those are usually the same constant arrays every call (kept here, so an `is` test
    # cannot meet a new array at a freed one's address).
    last: list[Any] = [((), None)]  # one (args, specs) pair, replaced whole (threads)

    def specs(args: list[Any]) -> tuple[list[FeatureSpec], list[FeatureSpec]]:
        made, got = last[0]
        if len(made) == len(args) and all(a is b for a, b in zip(made, args)):
            return got  # type: ignore[no-any-return]
        sparse_keys = [_text(k) for k in args[:nsparse]]
        dense_keys = [_text(k) for k in args[nsparse : nsparse + ndense]]
        defaults = args[nsparse + ndense :]
        got = (
            _sparse_specs(sparse_keys, sparse_types),
            _dense_specs(dense_keys, dense_types, dense_shapes, defaults),
        )
        last[0] = (tuple(args), got)
        return got

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        serialized = _vector(ins[0])
        names = _names(ins[1])
        sparse_specs, dense_specs = specs(ins[2:])
        if names is not None and len(names) != len(serialized):
            raise _invalid(
                f"Expected len(names) == len(serialized), but got: {len(names)} vs. "
                f"{len(serialized)}"
            )
        sparse, dense = example_parser.parse_examples(
            serialized, sparse_specs, dense_specs, names, raw_rows=raw_rows
        )
        return _flatten_sparse(sparse) + dense

    return compute


@kernel("ParseSingleExample", devices=_CPU)
def parse_single_example(node: Any, xp: Any) -> Compute:
    attrs = node.attrs
    sparse_specs = _sparse_specs(list(attrs["sparse_keys"]), list(attrs["sparse_types"]))
    dense_keys = list(attrs["dense_keys"])
    dense_types = list(attrs["Tdense"])
    dense_shapes = list(attrs["dense_shapes"])

    # The specs of the last defaults seen: defaults are usually constants, handed out as
    # the same arrays every step, so they are checked once (the arrays are kept, so their
    # ids stay theirs).
    cached: list[Any] = [None, None, None]

    def specs_for(defaults: list[Any]) -> tuple[list[FeatureSpec], Any]:
        last, specs, plan = cached
        if last is None or len(last) != len(defaults) or not all(map(operator.is_, last, defaults)):
            specs = _dense_specs(dense_keys, dense_types, dense_shapes, defaults)
            plan = example_parser.SingleDensePlan(specs) if not sparse_specs else None
            cached[:] = [list(defaults), specs, plan]
        return specs, plan

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        serialized = np.asarray(ins[0], dtype=object)
        if serialized.ndim != 0:
            raise _invalid(
                f"Expected serialized to be a scalar, got shape: {_shape_str(serialized.shape)}"
            )
        dense_specs, plan = specs_for(ins[1:])
        if plan is not None:
            one = plan.parse(serialized[()])
            if one is not None:
                return one
        sparse, dense = example_parser.parse_examples(
            serialized.reshape(1), sparse_specs, dense_specs, batched=False
        )
        return _flatten_sparse(sparse) + dense

    return compute


# ---- SequenceExamples --------------------------------------------------------------------------
def _sequence_specs(
    attrs: dict[str, Any],
    keys: dict[str, list[str]],
    defaults: Sequence[np.ndarray],
    missing_assumed_empty: Sequence[str],
) -> example_parser.SequenceSpecs:
    list_shapes = [tuple(TensorShape(s).as_list()) for s in attrs["feature_list_dense_shapes"]]
    for key, shape in zip(keys["feature_list_dense"], list_shapes):
        if any(d is None for d in shape):
            raise _invalid(f"Feature list dense shape for {key} must be fully defined")
    return example_parser.SequenceSpecs(
        context_sparse=_sparse_specs(keys["context_sparse"], list(attrs["context_sparse_types"])),
        context_dense=_dense_specs(
            keys["context_dense"],
            list(attrs["Tcontext_dense"]),
            list(attrs["context_dense_shapes"]),
            defaults,
        ),
        list_sparse=_sparse_specs(
            keys["feature_list_sparse"], list(attrs["feature_list_sparse_types"])
        ),
        list_dense=[
            FeatureSpec(k, t, s)
            for k, t, s in zip(
                keys["feature_list_dense"], attrs["feature_list_dense_types"], list_shapes
            )
        ],
        missing_assumed_empty=frozenset(missing_assumed_empty),
    )


def _sequence_outputs(parsed: example_parser.ParsedSequences, lengths: bool) -> list[Any]:
    out = _flatten_sparse(parsed.context_sparse) + parsed.context_dense
    out += _flatten_sparse(parsed.list_sparse) + parsed.list_dense
    if lengths:
        out += parsed.list_dense_lengths
    return out


_KEY_GROUPS = ("context_sparse", "context_dense", "feature_list_sparse", "feature_list_dense")
_COUNTS = ("Ncontext_sparse", "Ncontext_dense", "Nfeature_list_sparse", "Nfeature_list_dense")


@kernel("ParseSingleSequenceExample", devices=_CPU)
def parse_single_sequence_example(node: Any, xp: Any) -> Compute:
    attrs = node.attrs
    counts = [int(attrs[c]) for c in _COUNTS]

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        serialized = np.asarray(ins[0], dtype=object)
        if serialized.ndim != 0:
            raise _invalid(
                f"Expected serialized to be a scalar, got shape: {_shape_str(serialized.shape)}"
            )
        missing = [_text(k) for k in np.asarray(ins[1], dtype=object).reshape(-1)]
        pos = 2
        keys: dict[str, list[str]] = {}
        for group, n in zip(_KEY_GROUPS, counts):
            keys[group] = [_text(k) for k in ins[pos : pos + n]]
            pos += n
        defaults = ins[pos : pos + counts[1]]
        debug = np.asarray(ins[-1], dtype=object).reshape(-1)
        specs = _sequence_specs(attrs, keys, defaults, missing)
        parsed = example_parser.parse_sequence_examples(
            serialized.reshape(1), specs, debug if debug.size else None, batched=False
        )
        return _sequence_outputs(parsed, lengths=False)

    return compute


@kernel("ParseSequenceExample", devices=_CPU)
def parse_sequence_example(node: Any, xp: Any) -> Compute:
    attrs = node.attrs
    keys = {group: list(attrs[f"{group}_keys"]) for group in _KEY_GROUPS}
    missing = list(attrs["feature_list_dense_missing_assumed_empty"])

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        serialized = _vector(ins[0])
        names = _names(ins[1])
        specs = _sequence_specs(attrs, keys, ins[2:], missing)
        parsed = example_parser.parse_sequence_examples(serialized, specs, names)
        return _sequence_outputs(parsed, lengths=True)

    return compute


# ---- bytes and strings -------------------------------------------------------------------------
def _byte_strings(value: Any) -> tuple[np.ndarray, list[bytes]]:
    arr = np.asarray(value, dtype=object)
    return arr, [v if isinstance(v, bytes) else bytes(v) for v in arr.reshape(-1)]


@kernel("DecodeRaw", devices=_CPU)
def decode_raw(node: Any, xp: Any) -> Compute:
    out_type: dtypes.DType = node.attrs["out_type"]
    little = bool(node.attrs.get("little_endian", True))
    np_dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little else ">")
    width = np_dtype.itemsize

    rows_input = bool(node.attrs.get(RAW_ROWS_INPUT_ATTR))
    # Only a cast to another type reads the values (runtime/function_fusion.py): it makes
    # its own array of them, so a view of the rows does instead of a copy.
    lend = rows_input and bool(node.attrs.get(RAW_ROWS_LENT_ATTR)) and np_dtype.isnative

    def from_rows(rows: np.ndarray) -> tuple[Any]:
        """The strings held as the rows of a uint8 array (one string a row)."""
        size = rows.shape[1]
        if size % width:
            raise _invalid(
                f"Input to DecodeRaw has length {size} that is not a multiple of {width}, the "
                f"size of {_cc_name(out_type)}"
            )
        if lend:
            try:
                return (rows.view(np_dtype),)
            except ValueError:  # rows whose last axis is not contiguous
                pass
        values = rows.copy(order="C").view(np_dtype)  # one copy: writable, contiguous
        return (values if np_dtype.isnative else values.astype(np_dtype.newbyteorder("=")),)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        value = ins[0]
        if rows_input and isinstance(value, np.ndarray) and value.dtype == np.uint8:
            # A parser's strings handed over as rows of bytes (a fused pair).
            return from_rows(value)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            one = value.item()
            if isinstance(one, bytes) and not len(one) % width:
                # One string (a record): a read-only view of its bytes, no join, no copy.
                view = np.frombuffer(one, dtype=np_dtype)
                return (view if np_dtype.isnative else view.astype(np_dtype.newbyteorder("=")),)
        rows = cut_strings.rows_of(value)
        if rows is not None and value.ndim == 1 and rows.shape[1] % width == 0:
            # Strings a parser cut from records at one offset: their bytes in one copy.
            values = rows.copy(order="C").view(np_dtype)
            return (values if np_dtype.isnative else values.astype(np_dtype.newbyteorder("=")),)
        arr = np.asarray(value, dtype=object)
        flat = arr.reshape(-1).tolist()
        if set(map(type, flat)) - {bytes}:
            flat = _byte_strings(arr)[1]
        size = len(flat[0]) if flat else 0
        if size % width:
            raise _invalid(
                f"Input to DecodeRaw has length {size} that is not a multiple of {width}, the "
                f"size of {_cc_name(out_type)}"
            )
        lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
        if (lengths != size).any():
            i = int(np.argmax(lengths != size))
            raise _invalid(
                # TF's wording (its two sizes read the other way round).
                "DecodeRaw requires input strings to all be the same size, but element "
                f"{i} has size {size} != {lengths[i]}"
            )
        # Joined into a buffer of our own: the values are a writable view of it, no copy.
        values = np.frombuffer(bytearray().join(flat), dtype=np_dtype)
        if not np_dtype.isnative:
            values = values.astype(np_dtype.newbyteorder("="))
        return (values.reshape(*arr.shape, size // width),)

    return compute


@kernel("DecodeCSV", devices=_CPU)
def decode_csv(node: Any, xp: Any) -> Compute:
    attrs = node.attrs
    out_types = list(attrs["OUT_TYPE"])
    delim = attrs.get("field_delim", ",")
    if len(delim) != 1:
        raise _invalid("field_delim should be only 1 char")
    options = csv_parser.CsvOptions(
        delim=delim,
        use_quote_delim=bool(attrs.get("use_quote_delim", True)),
        na_value=attrs.get("na_value", ""),
        select_cols=tuple(int(c) for c in attrs.get("select_cols", []) or []),
    )

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        records, flat = _byte_strings(ins[0])
        defaults = []
        for i, d in enumerate(ins[1:]):
            d = np.asarray(d)
            if d.size > 1:
                raise _invalid(
                    "Shape of a default must be a length-0 or length-1 vector, or a scalar: "
                    f"record_defaults[{i}]"
                )
            defaults.append(d.reshape(-1)[0] if d.size else None)
        columns = csv_parser.decode_csv(flat, out_types, defaults, options)
        return [c.reshape(records.shape) for c in columns]

    return compute


@kernel("StringToNumber", devices=_CPU)
def string_to_number(node: Any, xp: Any) -> Compute:
    out_type: dtypes.DType = node.attrs["out_type"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        arr, flat = _byte_strings(ins[0])
        out = csv_parser.to_numbers(flat, out_type, csv_parser.string_to_number_error)
        return (out.reshape(arr.shape),)

    return compute


@kernel("DecodeCompressed", devices=_CPU)
def decode_compressed(node: Any, xp: Any) -> Compute:
    kind = compression.check_kind(node.attrs.get("compression_type", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        arr, flat = _byte_strings(ins[0])
        out = np.empty(len(flat), dtype=object)
        out[:] = [compression.decompress(b, kind) for b in flat]
        return (out.reshape(arr.shape),)

    return compute


@kernel("SerializeTensor", devices=_CPU)
def serialize_tensor(node: Any, xp: Any) -> Compute:
    dtype: dtypes.DType = node.attrs["T"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        proto = tensor_util.as_proto_tensor_content(np.asarray(ins[0]), dtype=dtype)
        return (np.array(proto.SerializeToString(), dtype=object),)

    return compute


@kernel("ParseTensor", devices=_CPU)
def parse_tensor(node: Any, xp: Any) -> Compute:
    out_type: dtypes.DType = node.attrs["out_type"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        arr = np.asarray(ins[0], dtype=object)
        if arr.ndim != 0:
            raise _invalid(
                f"Expected `serialized` to be a scalar, got shape: {_shape_str(arr.shape)}"
            )
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(bytes(arr.item()))
        except DecodeError:
            raise _invalid("Could not parse `serialized` as TensorProto: ''") from None
        try:
            parsed = dtypes.as_dtype(proto.dtype)
        except (TypeError, ValueError, KeyError):
            raise _invalid(f"Could not parse `serialized`: unknown dtype {proto.dtype}") from None
        if parsed != out_type:
            raise _invalid(
                f"Type mismatch between parsed tensor ({_cc_name(parsed)}) and dtype "
                f"({_cc_name(out_type)})"
            )
        return (tensor_util.make_ndarray(proto),)

    return compute
