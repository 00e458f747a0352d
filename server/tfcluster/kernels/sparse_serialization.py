"""SerializeSparse, SerializeManySparse and DeserializeManySparse: a SparseTensor's three parts
as serialized TensorProtos, the bytes TF's kernels write (tensor_content for numbers,
string_val for strings), and back. Host kernels.

With out_type=tf.variant (the form a dataset's sparse component takes, as in TF) each
serialized SparseTensor is a [3] object array holding the indices, values and dense_shape
arrays themselves: boxing costs no copy, and DeserializeSparse combines them directly."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import dtypes, errors, tensor_util
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import tensor_pb2

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _check_sparse(indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> None:
    if indices.ndim != 2:
        raise u.invalid(f"Input indices should be a matrix but received shape {indices.shape}")
    if values.ndim != 1:
        raise u.invalid(f"Input values should be a vector but received shape {values.shape}")
    if shape.ndim != 1:
        raise u.invalid(f"Input shape should be a vector but received shape {shape.shape}")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise u.invalid(
            f"Inconsistent sparse tensor: indices {u.shape_str(indices.shape)}, values "
            f"{u.shape_str(values.shape)}, shape {u.shape_str(shape.shape)}"
        )


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return bytes([tag]) + _varint(len(payload)) + payload


def content_proto(values: np.ndarray, dt: dtypes.DType) -> bytes:
    """The serialized TensorProto TF's Tensor::AsProtoTensorContent makes: dtype, shape and
    every value in tensor_content (strings as varint lengths then bytes). Written directly:
    one minibatch row after another, building proto objects would cost more than the data.
    tests/unit/test_sparse_serialization_bytes.py checks it against the proto library."""
    dims = b"".join(_field(0x12, b"\x08" + _varint(d) if d else b"") for d in values.shape)
    if dt is dtypes.string:
        content = tensor_util.strings_as_content(values) if values.size else b""
    else:
        content = np.ascontiguousarray(values, dtype=_numpy_dtype(dt.as_datatype_enum)).tobytes()
    head = _dtype_field(dt.as_datatype_enum) + _field(0x12, dims)
    return head + (_field(0x22, content) if content else b"")


@functools.cache
def _dtype_field(enum: int) -> bytes:
    return b"\x08" + _varint(enum)


@functools.cache
def _numpy_dtype(enum: int) -> np.dtype[Any]:
    return np.dtype(dtypes.as_dtype(enum).as_numpy_dtype)


def _serialized(indices: np.ndarray, values: np.ndarray, shape: np.ndarray, dt: Any) -> list[bytes]:
    return [
        content_proto(indices.astype(np.int64, copy=False), dtypes.int64),
        content_proto(values, dt),
        content_proto(shape.astype(np.int64, copy=False), dtypes.int64),
    ]


def _strings(rows: list[list[bytes]]) -> np.ndarray:
    out = np.empty((len(rows), 3), dtype=object)
    for i, row in enumerate(rows):
        out[i, :] = row
    return out


def boxed(indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """One SparseTensor in TF's variant form: a [3] object array of its three arrays."""
    out = np.empty(3, dtype=object)
    out[0], out[1], out[2] = indices, values, shape
    return out


class BoxedRows(np.ndarray):
    """[n, 3] SparseTensors in variant form, the rows of one batched SparseTensor, which it
    remembers (`batched`): DeserializeSparse of these very rows (a map's sparse results
    batched at once, read by get_next) hands it back instead of combining n rows, which is
    what combining them gives. Any array made from this one (a slice, a stack) forgets it."""

    batched: tuple[np.ndarray, np.ndarray, np.ndarray] | None

    def __array_finalize__(self, obj: Any) -> None:
        self.batched = None


def boxed_rows(
    indices: np.ndarray, values: np.ndarray, shape: np.ndarray, bounds: list[int]
) -> BoxedRows:
    """The rows of a SparseTensor sorted by its first dimension, row i holding the entries
    bounds[i]:bounds[i + 1] (its dense shape the batch's shape[1:])."""
    n = len(bounds) - 1
    inner = shape[1:]
    body = indices[:, 1:]
    cells: list[Any] = []
    for lo, hi in itertools.pairwise(bounds):
        cells += (body[lo:hi], values[lo:hi], inner)
    # The cells go in through a list ending in None: numpy then keeps each array whole as one
    # object instead of looking into it (one call instead of 3n element assignments).
    cells.append(None)
    out = np.array(cells, dtype=object)[:-1].reshape(n, 3)
    rows = out.view(BoxedRows)
    rows.batched = (indices, values, shape)
    return rows


def _is_variant(node: Any) -> bool:
    return node.attrs.get("out_type") is dtypes.variant


@kernel("SerializeSparse", devices=CPU_ONLY)
def serialize_sparse(node: Any, xp: Any) -> Compute:
    dt = node.attrs["T"]
    variant = _is_variant(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, values, shape = (np.asarray(v) for v in ins)
        _check_sparse(indices, values, shape)
        if variant:
            return (boxed(indices.astype(np.int64, copy=False), values, shape.astype(np.int64)),)
        return (_strings([_serialized(indices, values, shape, dt)]).reshape(3),)

    return compute


@kernel("SerializeManySparse", devices=CPU_ONLY)
def serialize_many_sparse(node: Any, xp: Any) -> Compute:
    dt = node.attrs["T"]
    variant = _is_variant(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, values, shape = (np.asarray(v) for v in ins)
        _check_sparse(indices, values, shape)
        if shape.shape[0] < 2:
            raise u.invalid(
                f"Rank of input SparseTensor should be > 1, but saw rank: {shape.shape[0]}"
            )
        batch = indices[:, 0]
        if batch.size and np.any(np.diff(batch) < 0):
            raise u.invalid("SparseTensor is not ordered by its first dimension (the minibatch)")
        n = int(shape[0])
        if batch.size and (int(batch.min()) < 0 or int(batch.max()) >= n):
            raise u.invalid(f"SparseTensor has a minibatch index outside [0, {n})")
        bounds = np.searchsorted(batch, np.arange(n + 1))
        if variant:
            indices = indices.astype(np.int64, copy=False)
            return (boxed_rows(indices, values, shape.astype(np.int64), bounds.tolist()),)
        rows = [
            _serialized(indices[lo:hi, 1:], values[lo:hi], shape[1:], dt)
            for lo, hi in itertools.pairwise(bounds)
        ]
        return (_strings(rows),)

    return compute


_STRING = dtypes.string.as_datatype_enum


def _parse(data: bytes, where: str) -> np.ndarray:
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(data)
        if proto.tensor_content and proto.dtype != _STRING:
            # The form SerializeSparse writes: the values' bytes as they are.
            dims = [d.size for d in proto.tensor_shape.dim]
            return np.frombuffer(proto.tensor_content, _numpy_dtype(proto.dtype)).reshape(dims)
        return tensor_util.make_ndarray(proto)
    except (DecodeError, TypeError, ValueError, errors.OpError):
        raise u.invalid(f"Could not parse {where}") from None


@kernel("DeserializeManySparse", devices=CPU_ONLY)
def deserialize_many_sparse(node: Any, xp: Any) -> Compute:
    dt: dtypes.DType = node.attrs["dtype"]
    want = np.dtype(dt.as_numpy_dtype) if dt is not dtypes.string else np.dtype(object)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        serialized = np.asarray(ins[0], dtype=object)
        if serialized.ndim != 2 or serialized.shape[1] != 3:
            raise u.invalid(
                f"Serialized sparse should be a matrix with 3 columns, got shape "
                f"{u.shape_str(serialized.shape)}"
            )
        n = serialized.shape[0]
        if n == 0:
            raise u.invalid("Serialized sparse should have non-zero size")
        parts = []
        for i in range(n):
            idx = _parse(bytes(serialized[i, 0]), f"serialized_sparse[{i}, 0]")
            vals = _parse(bytes(serialized[i, 1]), f"serialized_sparse[{i}, 1]")
            shape = _parse(bytes(serialized[i, 2]), f"serialized_sparse[{i}, 2]")
            if vals.dtype != want:
                got = dtypes.as_dtype(vals.dtype).name
                raise u.invalid(
                    f"Requested SparseTensor of type {dt.name} but "
                    f"SparseTensor[{i}].values.dtype() == {got}"
                )
            _check_sparse(idx.reshape(idx.shape or (0,)), vals, shape)
            parts.append((idx.astype(np.int64), vals, shape.astype(np.int64)))
        rank = parts[0][2].shape[0]
        for i, (_, _, shape) in enumerate(parts):
            if shape.shape[0] != rank:
                raise u.invalid(
                    f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[{i}] "
                    f"was: {rank} but rank of SparseTensor[{i}] is: {shape.shape[0]}"
                )
        dims = np.max(np.stack([p[2] for p in parts]), axis=0)
        counts = [p[0].shape[0] for p in parts]
        batch = np.repeat(np.arange(n, dtype=np.int64), counts)
        body = np.concatenate([p[0].reshape(-1, rank) for p in parts])
        indices = np.concatenate([batch[:, None], body], axis=1)
        values = np.concatenate([p[1] for p in parts]).astype(want, copy=False)
        return (indices, values, np.concatenate([[n], dims]).astype(np.int64))

    return compute


def deserialize_boxed(serialized: np.ndarray, dt: dtypes.DType) -> tuple[Any, ...] | None:
    """DeserializeSparse of [..., 3] SparseTensors in variant form (None: not that form): the
    leading dimensions become the first dimensions of one SparseTensor, the dense shape the
    largest of each other dimension, as TF's kernel combines them."""
    if isinstance(serialized, BoxedRows) and serialized.batched is not None:
        indices, values, shape = serialized.batched
        if values.dtype == np.dtype(dt.as_numpy_dtype) or dt is dtypes.string:
            return indices, values, shape
    rows = serialized.reshape(-1, 3)
    if not rows.shape[0] or isinstance(rows[0, 0], (bytes, str)):
        return None
    want = np.dtype(dt.as_numpy_dtype) if dt is not dtypes.string else np.dtype(object)
    # tolist() of an object column: the arrays themselves, in one call.
    idx_list = [np.asarray(x) for x in rows[:, 0].tolist()]
    val_list = [np.asarray(x) for x in rows[:, 1].tolist()]
    shp_list = [np.asarray(x) for x in rows[:, 2].tolist()]
    lead = serialized.shape[:-1]
    # One concatenation, then one dtype test (rows of a dataset share their dtype).
    values = np.concatenate(val_list) if len(val_list) > 1 else val_list[0]
    if values.dtype != want:
        i = next((i for i, v in enumerate(val_list) if v.dtype != want), 0)
        got = dtypes.as_dtype(val_list[i].dtype).name
        raise u.invalid(
            f"Requested SparseTensor of type {dt.name} but SparseTensor[{i}].values.dtype() == "
            f"{got}"
        )
    if not lead:
        indices, shape = idx_list[0], shp_list[0]
        return indices.astype(np.int64, copy=False), values, shape.astype(np.int64, copy=False)
    rank = shp_list[0].shape[0]
    shapes = np.concatenate(shp_list)
    if shapes.shape[0] != rank * len(shp_list) or any(x.shape[0] != rank for x in shp_list):
        i = next(i for i, x in enumerate(shp_list) if x.shape[0] != rank)
        raise u.invalid(
            f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[{i}] was: "
            f"{rank} but rank of SparseTensor[{i}] is: {shp_list[i].shape[0]}"
        )
    dims = shapes.reshape(-1, rank).max(axis=0) if rank else np.zeros(0, np.int64)
    counts = [len(x) for x in idx_list]
    flat = np.repeat(np.arange(len(idx_list), dtype=np.int64), counts)
    if len(lead) == 1:
        coords = [flat[:, None]]
    else:
        coords = [np.asarray(c, np.int64)[:, None] for c in np.unravel_index(flat, lead)]
    pieces = [x if x.ndim == 2 else x.reshape(-1, rank) for x in idx_list]
    body = np.concatenate(pieces).astype(np.int64, copy=False)
    indices = np.concatenate([*coords, body], axis=1)
    return indices, values, np.concatenate([np.asarray(lead, np.int64), dims]).astype(np.int64)
