"""SnapshotDataset: the first iterator over it writes its input's elements under
`path/<fingerprint>/<run id>/` while passing them on; once a run has written every element it
is marked finished in `path/<fingerprint>/snapshot.metadata`, and later iterators (in any
session or process) read the snapshot instead of computing the input. While a run is being
written (and younger than pending_snapshot_expiry_seconds) other iterators pass the input
through. The files are TF 1.15's: records of an 8-byte length and a SnapshotRecord (the
element's TensorProtos), the metadata a SnapshotMetadataRecord; GZIP compresses each file.
The fingerprint is tfcluster's own hash of the input's graph (ops/dataset_form_ops.py), so
tfcluster and TF do not read each other's snapshots."""

from __future__ import annotations

import gzip
import os
import struct
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import IO, Any

import numpy as np

from tfcluster.framework import errors, tensor_util
from tfcluster.framework.tensor_bundle import varint
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.ops.dataset_form_ops import SNAPSHOT_FINGERPRINT_ATTR, SNAPSHOT_VOLATILE_ATTR
from tfcluster.protos import tensor_pb2

_METADATA = "snapshot.metadata"
_LENGTH = struct.Struct("<Q")
_GZIP = "GZIP"


# ---- protobuf fields of TF's snapshot.proto, written by hand (two tiny messages) ----------
def _varint(n: int) -> bytes:
    out = bytearray()
    varint.put_varint(out, n)
    return bytes(out)


def _fields(data: bytes) -> Iterator[tuple[int, Any]]:
    """(field number, value) of a serialized message: ints for varints, bytes otherwise."""
    try:
        yield from _parsed_fields(data)
    except (ValueError, IndexError):
        raise errors.DataLossError(None, None, "Corrupted snapshot record") from None


def _parsed_fields(data: bytes) -> Iterator[tuple[int, Any]]:
    at = 0
    while at < len(data):
        key, at = varint.get_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint.get_varint(data, at)
            yield number, value
        elif wire == 2:
            size, at = varint.get_varint(data, at)
            yield number, data[at : at + size]
            at += size
        else:
            raise errors.DataLossError(None, None, f"Unexpected wire type {wire} in a snapshot")


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _metadata(fingerprint: str, run_id: str, finalized: bool) -> bytes:
    out = _bytes_field(1, fingerprint.encode()) + _bytes_field(2, run_id.encode())
    out += _varint(3 << 3) + _varint(int(time.time() * 1e6))
    if finalized:
        out += _varint(1000 << 3) + _varint(1)
    return out


# ---- files --------------------------------------------------------------------------------
def _open(path: str, mode: str, compression: str) -> IO[bytes]:
    if compression == _GZIP:
        return gzip.open(path, mode)  # type: ignore[return-value]
    return open(path, mode)


def _write_record(f: IO[bytes], payload: bytes) -> None:
    f.write(_LENGTH.pack(len(payload)) + payload)


def _records(path: str, compression: str) -> Iterator[bytes]:
    with _open(path, "rb", compression) as f:
        data = f.read()
    at = 0
    while at < len(data):
        if at + _LENGTH.size > len(data):
            raise errors.DataLossError(None, None, f"Truncated snapshot record in {path}")
        (size,) = _LENGTH.unpack_from(data, at)
        at += _LENGTH.size
        if at + size > len(data):
            raise errors.DataLossError(None, None, f"Truncated snapshot record in {path}")
        yield data[at : at + size]
        at += size


def _read_metadata(folder: str) -> dict[str, Any] | None:
    path = os.path.join(folder, _METADATA)
    if not os.path.exists(path):
        return None
    for record in _records(path, ""):
        found: dict[str, Any] = {"run_id": "", "created": 0, "finalized": False}
        for number, value in _fields(record):
            if number == 2:
                found["run_id"] = value.decode()
            elif number == 3:
                found["created"] = value
            elif number == 1000:
                found["finalized"] = bool(value)
        return found
    return None


def _write_metadata(folder: str, fingerprint: str, run_id: str, finalized: bool) -> None:
    path = os.path.join(folder, _METADATA)
    part = f"{path}.{uuid.uuid4().hex}.tmp"
    with open(part, "wb") as f:
        _write_record(f, _metadata(fingerprint, run_id, finalized))
    os.replace(part, path)


def _element_record(element: base.Element, specs: Sequence[base.LeafSpec]) -> bytes:
    out = b""
    for tensor, spec in zip(base.element_tensors(element, specs), _flat_specs(specs)):
        proto = tensor_util.make_tensor_proto(np.asarray(tensor), dtype=spec)
        out += _bytes_field(1, proto.SerializeToString())
    return out


def _flat_specs(specs: Sequence[base.LeafSpec]) -> list[Any]:
    from tfcluster.framework import dtypes

    out: list[Any] = []
    for s in specs:
        out += [dtypes.int64, s.dtype, dtypes.int64] if s.kind == base.SPARSE else [s.dtype]
    return out


def _element_from_record(record: bytes, specs: Sequence[base.LeafSpec]) -> base.Element:
    tensors = []
    for number, value in _fields(record):
        if number == 1:
            tensors.append(tensor_util.make_ndarray(tensor_pb2.TensorProto.FromString(value)))
    if len(tensors) != sum(s.num_tensors for s in specs):
        raise errors.DataLossError(
            None, None, f"A snapshot record holds {len(tensors)} tensors, expected more or fewer"
        )
    return base.element_from_tensors(tensors, specs)


# ---- the dataset --------------------------------------------------------------------------
class _Snapshot(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        folder: str,
        options: dict[str, Any],
    ) -> None:
        super().__init__(specs)
        self.data, self.folder, self.options = data, folder, options

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        o = self.options
        meta = None if o["volatile"] else _read_metadata(self.folder)
        if meta is not None and meta["finalized"]:
            return _SnapshotReader(self, os.path.join(self.folder, meta["run_id"]))
        expiry = o["pending_expiry"]
        pending = meta is not None and (time.time() - meta["created"] / 1e6) < expiry
        if o["volatile"] or pending:
            return self.data.iterate(pipeline)
        return _SnapshotWriter(self, self.data.iterate(pipeline))

    def cardinality(self) -> int:
        return self.data.cardinality()


class _SnapshotWriter(base.ElementIterator):
    def __init__(self, data: _Snapshot, it: base.ElementIterator) -> None:
        self._data, self._it = data, it
        self._run_id = uuid.uuid4().hex[:16]
        self._run = os.path.join(data.folder, self._run_id)
        os.makedirs(self._run, exist_ok=True)
        _write_metadata(data.folder, data.options["fingerprint"], self._run_id, False)
        self._file: IO[bytes] | None = None
        self._shard = 0
        self._written = 0

    def next(self) -> base.Element | None:
        item = self._it.next()
        d = self._data
        if item is None:
            if self._file is not None:
                self._file.close()
                self._file = None
                _write_metadata(d.folder, d.options["fingerprint"], self._run_id, True)
            return None
        if self._file is None or self._written >= d.options["shard_size"]:
            if self._file is not None:
                self._file.close()
                self._shard += 1
            name = os.path.join(self._run, f"{self._shard:08d}.snapshot")
            self._file = _open(name, "wb", d.options["compression"])
            self._written = 0
        record = _element_record(item, d.specs)
        _write_record(self._file, record)
        self._written += len(record) + _LENGTH.size
        return item

    def close(self) -> None:
        if self._file is not None:
            self._file.close()  # an unfinished run: never read
            self._file = None
        self._it.close()


class _SnapshotReader(base.ElementIterator):
    def __init__(self, data: _Snapshot, run: str) -> None:
        self._data = data
        files = (
            sorted(f for f in os.listdir(run) if f.endswith(".snapshot"))
            if os.path.isdir(run)
            else []
        )
        self._records = (
            record
            for name in files
            for record in _records(os.path.join(run, name), data.options["compression"])
        )

    def next(self) -> base.Element | None:
        record = next(self._records, None)
        if record is None:
            return None
        return _element_from_record(record, self._data.specs)


@kernel("SnapshotDataset", devices=CPU_ONLY)
def snapshot_dataset(node: Any, xp: Any) -> Any:
    attrs = node.attrs
    specs = base.leaf_specs(attrs)
    compression = attrs.get("compression", "") or ""
    if isinstance(compression, bytes):
        compression = compression.decode()
    if compression not in ("", _GZIP):
        raise errors.InvalidArgumentError(None, None, "compression must be either '' or 'GZIP'.")
    shard_size = int(attrs.get("shard_size_bytes", -1))
    expiry = int(attrs.get("pending_snapshot_expiry_seconds", -1))
    fingerprint = attrs.get(SNAPSHOT_FINGERPRINT_ATTR)
    if isinstance(fingerprint, bytes):
        fingerprint = fingerprint.decode()
    options: dict[str, Any] = {
        "compression": compression,
        "shard_size": shard_size if shard_size > 0 else 10 * 1024**3,
        "pending_expiry": expiry if expiry > 0 else 86400,
        "fingerprint": fingerprint or "",
        # Without a fingerprint (a node not built by tfcluster's graph) nothing is read back.
        "volatile": bool(attrs.get(SNAPSHOT_VOLATILE_ATTR)) or not fingerprint,
    }
    prefixes = [attrs.get(k, "") or "" for k in ("reader_path_prefix", "writer_path_prefix")]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        path = np.asarray(ins[1], dtype=object)
        if path.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"path must be a scalar, got shape {list(path.shape)}"
            )
        raw = path.item()
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        prefix = prefixes[1].decode() if isinstance(prefixes[1], bytes) else prefixes[1]
        folder = os.path.join(prefix + text, options["fingerprint"] or "unfingerprinted")
        return (_Snapshot(specs, data, folder, options),)

    return compute
