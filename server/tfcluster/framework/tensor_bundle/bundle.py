"""Checkpoint format V2, the tensor bundle, as TensorFlow 1.x writes and reads it.

A bundle with prefix P is P.index, a table (table.py) mapping each tensor's name to a
BundleEntryProto (under the empty key: a BundleHeaderProto), and the shards
P.data-00000-of-0000N holding the tensors' bytes back to back, in the order they were added:
numbers as their little-endian bytes, strings as their varint64 lengths, a masked crc32c of
those lengths, then the string bytes. A slice of a partitioned tensor is stored under its own
key (slices.encode_key) and listed in the full tensor's entry.

Writers write every file to a temporary name and rename it into place, data first and index
last: a checkpoint exists once its index does, and a crash never leaves half of one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import checksum, slices
from tfcluster.framework.tensor_bundle.table import TableBuilder, read_table
from tfcluster.framework.tensor_bundle.varint import fixed32, get_varint, put_varint
from tfcluster.protos import tensor_bundle_pb2, tensor_shape_pb2

HEADER_KEY = b""
BUNDLE_VERSION = 1  # kTensorBundleVersion
BUNDLE_MIN_CONSUMER = 0
DT_STRING = 7

# DataType enum -> numpy dtype, for every dtype a checkpoint can hold as plain bytes.
_NUMPY_BY_ENUM: dict[int, np.dtype[Any]] = {
    1: np.dtype("<f4"),
    2: np.dtype("<f8"),
    3: np.dtype("<i4"),
    4: np.dtype("u1"),
    5: np.dtype("<i2"),
    6: np.dtype("i1"),
    8: np.dtype("<c8"),
    9: np.dtype("<i8"),
    10: np.dtype("?"),
    17: np.dtype("<u2"),
    18: np.dtype("<c16"),
    19: np.dtype("<f2"),
    22: np.dtype("<u4"),
    23: np.dtype("<u8"),
}
_ENUM_BY_KIND = {(dt.kind, dt.itemsize): enum for enum, dt in _NUMPY_BY_ENUM.items()}
_DTYPE_NAMES = {1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
                6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64", 10: "DT_BOOL",
                14: "DT_BFLOAT16", 17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF",
                22: "DT_UINT32", 23: "DT_UINT64"}  # fmt: skip


def data_filename(prefix: str, shard: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def dtype_name(enum: int) -> str:
    return _DTYPE_NAMES.get(enum, f"DataType({enum})")


def dtype_enum(value: np.ndarray) -> int:
    """The DataType a numpy array is stored as."""
    if value.dtype == object or value.dtype.kind in "SU":
        return DT_STRING
    enum = _ENUM_BY_KIND.get((value.dtype.kind, value.dtype.itemsize))
    if enum is None:
        raise errors.InvalidArgumentError(
            None, None, f"A checkpoint cannot hold numpy dtype {value.dtype}"
        )
    return enum


def numpy_dtype(enum: int, key: str) -> np.dtype[Any]:
    if enum == DT_STRING:
        return np.dtype(object)
    found = _NUMPY_BY_ENUM.get(enum)
    if found is None:
        raise errors.UnimplementedError(
            None, None, f"Tensor {key} has dtype {dtype_name(enum)}, which tfcluster cannot read"
        )
    return found


def _shape_proto(shape: Iterable[int]) -> tensor_shape_pb2.TensorShapeProto:
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add().size = int(d)
    return proto


def _shape_of(proto: tensor_shape_pb2.TensorShapeProto, key: str) -> list[int]:
    dims = [d.size for d in proto.dim]
    if proto.unknown_rank or any(d < 0 for d in dims):
        raise errors.DataLossError(None, None, f"Invalid tensor shape: {key} {dims}")
    return dims


def _as_bytes(x: Any) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode()
    return bytes(x)


def _atomic_replace(tmp: str, path: str) -> None:
    os.replace(tmp, path)


def _create_temp(path: str) -> tuple[int, str]:
    """A new file beside `path` ("<name>.tempstate<random>", as TF's bundle writer names it),
    created as TF creates files: mode 0666 less the umask (tempfile.mkstemp's 0600 would leave
    checkpoints and graphs unreadable to other users)."""
    while True:
        tmp = f"{path}.tempstate{secrets.randbits(64)}"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def _write_atomically(path: str, data: bytes) -> None:
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        _atomic_replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class _ShardWriter:
    """One data file: tensors appended in order, their entries kept (shard id unset)."""

    def __init__(self, path: str) -> None:
        self.path = path
        directory = os.path.dirname(path) or "."
        os.makedirs(directory, exist_ok=True)
        fd, self._tmp = _create_temp(path)
        self._file: BinaryIO = os.fdopen(fd, "wb")
        self._size = 0
        self.entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}

    def add(self, key: bytes, value: Any) -> None:
        if key == HEADER_KEY:
            raise ValueError("A tensor cannot be stored under the empty key")
        if key in self.entries:
            raise errors.InvalidArgumentError(
                None, None, f"Adding duplicate key: {key.decode(errors='replace')}"
            )
        # A fetched string scalar is Python bytes: numpy's fixed-width 'S' would drop its
        # trailing NUL bytes (a serialized proto may end in one), so it is kept as an object.
        arr = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
        enum = dtype_enum(arr)
        entry = tensor_bundle_pb2.BundleEntryProto(dtype=enum, offset=self._size)
        entry.shape.CopyFrom(_shape_proto(arr.shape))
        if enum == DT_STRING:
            size, crc = self._write_strings(arr)
        else:
            flat = np.ascontiguousarray(arr, dtype=_NUMPY_BY_ENUM[enum]).reshape(-1)
            data = memoryview(flat.view(np.uint8).data)
            self._file.write(data)
            size, crc = len(data), checksum.value(data)
        entry.size = size
        entry.crc32c = checksum.mask(crc)
        self._size += size
        self.entries[key] = entry

    def _write_strings(self, arr: np.ndarray) -> tuple[int, int]:
        items = [_as_bytes(x) for x in arr.reshape(-1)]
        lengths = bytearray()
        crc = 0
        for item in items:
            put_varint(lengths, len(item))
            # TF checksums each length as a little-endian uint32 (uint64 past 4 GiB).
            width = 4 if len(item) <= 0xFFFFFFFF else 8
            crc = checksum.value(len(item).to_bytes(width, "little"), crc)
        length_checksum = fixed32(checksum.mask(crc))
        crc = checksum.value(length_checksum, crc)
        self._file.write(lengths)
        self._file.write(length_checksum)
        size = len(lengths) + 4
        for item in items:
            self._file.write(item)
            crc = checksum.value(item, crc)
            size += len(item)
        return size, crc

    def add_slice(
        self, key: str, full_shape: Sequence[int], extents: slices.Extents, value: Any
    ) -> tensor_bundle_pb2.BundleEntryProto | None:
        """Stores a slice under its own key; returns the full tensor's entry to merge into,
        or None when the slice is the whole tensor (then stored under `key` itself)."""
        if slices.is_full(full_shape, extents):
            self.add(key.encode(), value)
            return None
        arr = np.asarray(value)
        full = self.entries.setdefault(key.encode(), tensor_bundle_pb2.BundleEntryProto())
        full.dtype = dtype_enum(arr)
        full.shape.CopyFrom(_shape_proto(full_shape))
        full.slices.add().CopyFrom(slices.to_proto(extents))
        self.add(slices.encode_key(key, extents), arr)
        return full

    def close(self) -> None:
        """Flushes the data file into place."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        _atomic_replace(self._tmp, self.path)

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._tmp)


def _header(num_shards: int) -> tensor_bundle_pb2.BundleHeaderProto:
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=num_shards)
    header.version.producer = BUNDLE_VERSION
    header.version.min_consumer = BUNDLE_MIN_CONSUMER
    return header


def _index_bytes(
    header: tensor_bundle_pb2.BundleHeaderProto,
    entries: Mapping[bytes, tensor_bundle_pb2.BundleEntryProto],
) -> bytes:
    builder = TableBuilder()
    builder.add(HEADER_KEY, header.SerializeToString())
    for key in sorted(entries):
        builder.add(key, entries[key].SerializeToString())
    return builder.finish()


@dataclass
class TensorToSave:
    """One tensor of a save: its checkpoint key, value, and for a slice of a partitioned
    variable the full shape and the slice's extents."""

    key: str
    value: Any
    full_shape: Sequence[int] | None = None
    extents: slices.Extents | None = None


def write_bundle(prefix: str, shards: Sequence[Sequence[TensorToSave]]) -> None:
    """Writes the checkpoint `prefix` with one data file per shard (the tensors of one device,
    in order), byte for byte what TF's SaveV2 per shard followed by MergeV2Checkpoints
    writes; the index goes last."""
    num_shards = len(shards)
    merged: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}
    writers: list[_ShardWriter] = []
    try:
        for shard_id, tensors in enumerate(shards):
            writer = _ShardWriter(data_filename(prefix, shard_id, num_shards))
            writers.append(writer)
            for t in tensors:
                if t.extents is None:
                    writer.add(t.key.encode(), t.value)
                else:
                    assert t.full_shape is not None
                    writer.add_slice(t.key, t.full_shape, t.extents, t.value)
            _merge_entries(merged, writer.entries, shard_id, data_filename(prefix, 0, 1))
        for writer in writers:
            writer.close()
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    _write_atomically(index_filename(prefix), _index_bytes(_header(num_shards), merged))


def _merge_entries(
    merged: dict[bytes, tensor_bundle_pb2.BundleEntryProto],
    entries: Mapping[bytes, tensor_bundle_pb2.BundleEntryProto],
    shard_id: int,
    where: str,
) -> None:
    """Adds one shard's entries as MergeBundles does: a key seen before must be the full
    entry of a sliced tensor, whose slice lists are joined."""
    for key in sorted(entries):
        entry = entries[key]
        existing = merged.get(key)
        if existing is not None:
            if not existing.slices or not entry.slices:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Duplicate tensor keyed by {key.decode(errors='replace')} encountered, "
                    f"when merging prefix: {where}",
                )
            existing.slices.extend(entry.slices)
            continue
        copy = tensor_bundle_pb2.BundleEntryProto()
        copy.CopyFrom(entry)
        copy.shard_id = shard_id + entry.shard_id
        merged[key] = copy


def merge_bundles(prefixes: Sequence[str], merged_prefix: str) -> None:
    """MergeV2Checkpoints: joins single bundles into one, renaming their data files."""
    merged: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}
    renames: dict[str, int] = {}
    num_shards = 0
    version: bytes | None = None
    for prefix in prefixes:
        reader = BundleReader(prefix)
        header = reader.header
        if version is None:
            version = header.version.SerializeToString()
        elif header.version.SerializeToString() != version:
            raise errors.InvalidArgumentError(
                None, None, "Merging bundles with different format versions"
            )
        for key in sorted(reader.raw_entries):
            entry = reader.raw_entries[key]
            existing = merged.get(key)
            if existing is not None:
                if not existing.slices or not entry.slices:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"Duplicate tensor keyed by {key.decode(errors='replace')} "
                        f"encountered, when merging prefix: {prefix}",
                    )
                existing.slices.extend(entry.slices)
                continue
            source = data_filename(prefix, entry.shard_id, header.num_shards)
            shard = renames.setdefault(source, len(renames))
            copy = tensor_bundle_pb2.BundleEntryProto()
            copy.CopyFrom(entry)
            copy.shard_id = shard
            merged[key] = copy
        num_shards += header.num_shards
    os.makedirs(os.path.dirname(merged_prefix) or ".", exist_ok=True)
    for source, shard in renames.items():
        os.replace(source, data_filename(merged_prefix, shard, len(renames)))
    _write_atomically(index_filename(merged_prefix), _index_bytes(_header(num_shards), merged))
    for prefix in prefixes:
        with contextlib.suppress(OSError):
            os.remove(index_filename(prefix))


class BundleReader:
    """Reads a V2 checkpoint: its entries from the index, tensors from the shards on demand,
    every tensor's checksum verified."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        path = index_filename(prefix)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            parent = os.path.dirname(prefix)
            if parent and not os.path.isdir(parent):
                # TF's file matching fails on the directory itself first (InvalidArgument).
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Unsuccessful TensorSliceReader constructor: Failed to get matching files "
                    f"on {prefix}: Not found: {parent}; No such file or directory",
                ) from None
            raise errors.NotFoundError(
                None,
                None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                f"files for {prefix}",
            ) from None
        table = read_table(raw, path)
        if not table or table[0][0] != HEADER_KEY:
            raise errors.DataLossError(
                None, None, f"Unable to read checkpoint index {path}: no header entry"
            )
        self.header = tensor_bundle_pb2.BundleHeaderProto()
        self.raw_entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}
        try:
            self.header.ParseFromString(table[0][1])
            for key, value in table[1:]:
                entry = tensor_bundle_pb2.BundleEntryProto()
                entry.ParseFromString(value)
                self.raw_entries[key] = entry
        except Exception:
            raise errors.DataLossError(
                None, None, f"Unable to read checkpoint index {path}: an entry is not parseable"
            ) from None
        if self.header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {prefix} is big-endian, which tfcluster cannot read"
            )
        if self.header.version.min_consumer > BUNDLE_VERSION:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Checkpoint {prefix} needs a reader of version "
                f"{self.header.version.min_consumer}; this one is {BUNDLE_VERSION}",
            )
        # The keys that are slices of a partitioned tensor are not tensors of their own.
        slice_keys = set()
        for key, entry in self.raw_entries.items():
            for proto in entry.slices:
                slice_keys.add(slices.encode_key(key.decode(), slices.from_proto(proto)))
        self._tensor_keys = sorted(
            k.decode(errors="replace") for k in self.raw_entries if k not in slice_keys
        )

    # ---- metadata -----------------------------------------------------------------------
    def tensor_keys(self) -> list[str]:
        """The names of the tensors (slices of partitioned tensors left out), sorted."""
        return list(self._tensor_keys)

    def has_tensor(self, key: str) -> bool:
        return key.encode() in self.raw_entries

    def stored_entries(self) -> list[tuple[bytes, int, list[int]]]:
        """(table key, dtype, shape) of every stored tensor, the slices of partitioned ones
        under their encoded keys (what TF's DebugString lists)."""
        return [
            (key, int(entry.dtype), [d.size for d in entry.shape.dim])
            for key, entry in sorted(self.raw_entries.items())
            if not entry.slices
        ]

    def entry(self, key: str) -> tensor_bundle_pb2.BundleEntryProto:
        found = self.raw_entries.get(key.encode())
        if found is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return found

    def shape(self, key: str) -> list[int]:
        return _shape_of(self.entry(key).shape, key)

    def dtype_enum(self, key: str) -> int:
        return int(self.entry(key).dtype)

    # ---- values -------------------------------------------------------------------------
    def get_tensor(self, key: str) -> np.ndarray:
        entry = self.entry(key)
        if entry.slices:
            shape = _shape_of(entry.shape, key)
            return self.read_slice(key, tuple((0, -1) for _ in shape))
        return self._read_entry(key, entry)

    def read_slice(self, key: str, extents: slices.Extents) -> np.ndarray:
        """The part `extents` of tensor `key`, put together from the stored slices."""
        entry = self.entry(key)
        full_shape = _shape_of(entry.shape, key)
        if not entry.slices:
            return np.array(self._read_entry(key, entry)[slices.index(full_shape, extents)])
        want = slices.index(full_shape, extents)
        out_shape = [s.stop - s.start for s in want]
        out = np.empty(out_shape, dtype=numpy_dtype(entry.dtype, key))
        covered = np.zeros(out_shape, dtype=bool)
        for proto in entry.slices:
            stored = slices.from_proto(proto)
            have = slices.index(full_shape, stored)
            lo = [max(a.start, b.start) for a, b in zip(want, have)]
            hi = [min(a.stop, b.stop) for a, b in zip(want, have)]
            if any(h <= l for l, h in zip(lo, hi)) and out.size:
                continue
            part = self._read_entry(key, self.entry_for_slice(key, stored))
            src = tuple(slice(l - h.start, u - h.start) for l, u, h in zip(lo, hi, have))
            dst = tuple(slice(l - w.start, u - w.start) for l, u, w in zip(lo, hi, want))
            out[dst] = part[src]
            covered[dst] = True
        if not covered.all():
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Does not have sufficient slices for partitioned tensor {key} to restore in "
                f"slice_spec: {slices.slice_spec_string(full_shape, extents)}",
            )
        return out

    def entry_for_slice(
        self, key: str, extents: slices.Extents
    ) -> tensor_bundle_pb2.BundleEntryProto:
        found = self.raw_entries.get(slices.encode_key(key, extents))
        if found is None:
            raise errors.NotFoundError(
                None, None, f"Slice {extents} of {key} not found in checkpoint {self.prefix}"
            )
        return found

    def _read_entry(self, key: str, entry: tensor_bundle_pb2.BundleEntryProto) -> np.ndarray:
        shape = _shape_of(entry.shape, key)
        dtype = numpy_dtype(entry.dtype, key)
        count = int(np.prod(shape, dtype=np.int64))
        path = data_filename(self.prefix, entry.shard_id, self.header.num_shards)
        if entry.dtype != DT_STRING and entry.size != count * dtype.itemsize:
            raise errors.DataLossError(
                None,
                None,
                f"Invalid size in bundle entry: key {key}; stored size {entry.size}; expected "
                f"size {count * dtype.itemsize}",
            )
        buf = bytearray(entry.size)
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                got = f.readinto(buf)
        except FileNotFoundError:
            raise errors.NotFoundError(
                None, None, f"{path}: checkpoint data file not found (tensor {key})"
            ) from None
        if got != entry.size:
            raise errors.DataLossError(
                None,
                None,
                f"Checkpoint data file {path} is truncated: tensor {key} needs bytes "
                f"{entry.offset}..{entry.offset + entry.size}, the file ends before",
            )
        if entry.dtype == DT_STRING:
            value, crc = _decode_strings(buf, count, key, path)
        else:
            value, crc = np.frombuffer(buf, dtype=dtype).reshape(shape), checksum.value(buf)
        if checksum.unmask(entry.crc32c) != crc:
            raise errors.DataLossError(
                None,
                None,
                f"Checksum does not match for tensor {key} in {path} ({entry.size} bytes): the "
                f"checkpoint is corrupt",
            )
        return value.reshape(shape)


def _decode_strings(buf: bytearray, count: int, key: str, path: str) -> tuple[np.ndarray, int]:
    pos = 0
    lengths = []
    crc = 0
    try:
        for _ in range(count):
            n, pos = get_varint(buf, pos)
            lengths.append(n)
            crc = checksum.value(n.to_bytes(4 if n <= 0xFFFFFFFF else 8, "little"), crc)
    except ValueError:
        raise errors.DataLossError(None, None, f"Bad string lengths for {key} in {path}") from None
    stored = buf[pos : pos + 4]
    if len(stored) != 4 or checksum.unmask(int.from_bytes(stored, "little")) != crc:
        raise errors.DataLossError(
            None, None, f"The length checksum does not match for {key} in {path}"
        )
    crc = checksum.value(stored, crc)
    pos += 4
    out = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = bytes(buf[pos : pos + n])
        pos += n
    if pos != len(buf):
        raise errors.DataLossError(None, None, f"Bad string tensor {key} in {path}")
    crc = checksum.value(buf[pos - sum(lengths) : pos], crc)
    return out, crc
