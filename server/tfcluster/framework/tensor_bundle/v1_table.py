"""TensorFlow's checkpoint format V1 (TensorSliceWriter / TensorSliceReader): one table file per
shard whose entry under the empty key is a SavedTensorSliceMeta (every tensor's name, shape,
type and saved slices) and whose other entries, keyed by the slice (slices.encode_key), hold
each slice's values as a SavedSlice (a TensorProto of typed values, no dtype or shape).

Written by SaveSlices / Save (tf.train.Saver(write_version=V1)); read by Restore, RestoreSlice
and RestoreV2 when the prefix has no .index (as TF's RestoreV2 falls back to V1).
"""

from __future__ import annotations

import glob
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import slices, table
from tfcluster.protos import saved_tensor_slice_pb2, tensor_shape_pb2

# The format's own version (TF_CHECKPOINT_VERSION), written into the meta.
CHECKPOINT_VERSION = 1

# DataType enum -> (TensorProto field holding the values, numpy dtype).
_FIELDS: dict[int, tuple[str, Any]] = {
    1: ("float_val", np.float32),
    2: ("double_val", np.float64),
    3: ("int_val", np.int32),
    4: ("int_val", np.uint8),
    5: ("int_val", np.int16),
    6: ("int_val", np.int8),
    7: ("string_val", object),
    8: ("scomplex_val", np.complex64),
    9: ("int64_val", np.int64),
    10: ("bool_val", np.bool_),
    18: ("dcomplex_val", np.complex128),
    19: ("half_val", np.float16),
}
_ENUM_BY_DTYPE = {np.dtype(dt): enum for enum, (_, dt) in _FIELDS.items() if dt is not object}


def dtype_enum(value: np.ndarray) -> int:
    if value.dtype == object or value.dtype.kind in "SU":
        return 7
    enum = _ENUM_BY_DTYPE.get(value.dtype)
    if enum is None:
        raise errors.UnimplementedError(
            None, None, f"The V1 checkpoint format cannot hold {value.dtype} tensors"
        )
    return enum


def _fill(proto: Any, enum: int, value: np.ndarray) -> None:
    """The values into their typed field, as TF's TensorSliceWriter fills them."""
    name, _ = _FIELDS[enum]
    flat = value.reshape(-1)
    target = getattr(proto, name)
    if enum == 7:
        target.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat.tolist())
    elif enum in (8, 18):
        target.extend(np.stack([flat.real, flat.imag], -1).reshape(-1).tolist())
    elif enum == 19:
        target.extend(flat.view(np.uint16).astype(np.int64).tolist())
    else:
        target.extend(flat.tolist())


def _values(proto: Any, enum: int, shape: Sequence[int], key: str) -> np.ndarray:
    name, dtype = _FIELDS[enum]
    raw = getattr(proto, name)
    count = int(np.prod(shape, dtype=np.int64))
    if enum == 7:
        out = np.empty(len(raw), dtype=object)
        out[:] = list(raw)
    elif enum in (8, 18):
        pairs = np.asarray(raw, dtype=np.float32 if enum == 8 else np.float64).reshape(-1, 2)
        out = np.empty(pairs.shape[0], dtype=dtype)
        out.real, out.imag = pairs[:, 0], pairs[:, 1]
    elif enum == 19:
        out = np.asarray(raw, dtype=np.uint16).view(np.float16)
    else:
        out = np.asarray(raw, dtype=dtype)
    if out.size != count:
        raise errors.DataLossError(
            None, None, f"Checkpoint slice of {key} holds {out.size} values where {count} belong"
        )
    return out.reshape(shape)


@dataclass
class SliceToSave:
    name: str
    full_shape: list[int]
    extents: slices.Extents  # (0, -1) per dimension for the whole tensor
    value: np.ndarray


def _shape_proto(shape: Sequence[int]) -> tensor_shape_pb2.TensorShapeProto:
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add(size=int(d))
    return proto


def table_bytes(items: Sequence[SliceToSave]) -> bytes:
    """The file TF's TensorSliceWriter writes for these slices (in the order they are given)."""
    meta = saved_tensor_slice_pb2.SavedTensorSlices()
    metas: dict[str, Any] = {}
    data: dict[bytes, bytes] = {}
    for item in items:
        enum = dtype_enum(item.value)
        entry = metas.get(item.name)
        if entry is None:
            entry = meta.meta.tensor.add(name=item.name, type=enum)
            entry.shape.CopyFrom(_shape_proto(item.full_shape))
            metas[item.name] = entry
        elif entry.type != enum or list(d.size for d in entry.shape.dim) != item.full_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Mismatching shape or type for the slices of {item.name}"
            )
        entry.slice.add().CopyFrom(slices.to_proto(item.extents))
        key = slices.encode_key(item.name, item.extents)
        if key in data:
            raise errors.InvalidArgumentError(
                None, None, f"Slice of {item.name} saved twice in one checkpoint file"
            )
        saved = saved_tensor_slice_pb2.SavedTensorSlices()
        saved.data.name = item.name
        saved.data.slice.CopyFrom(slices.to_proto(item.extents))
        _fill(saved.data.data, enum, np.asarray(item.value))
        data[key] = saved.SerializeToString()
    meta.meta.versions.producer = CHECKPOINT_VERSION
    builder = table.TableBuilder()
    builder.add(b"", meta.SerializeToString())
    for key in sorted(data):
        builder.add(key, data[key])
    return builder.finish()


def write(filename: str, items: Sequence[SliceToSave]) -> None:
    """Writes the file whole or not at all (a temporary file renamed over it, as TF does)."""
    content = table_bytes(items)
    tmp = f"{filename}.tempstate{uuid.uuid4().int % 10**19}"
    try:
        with open(tmp, "wb") as f:
            f.write(content)
        os.replace(tmp, filename)
    except OSError as e:
        raise errors.NotFoundError(None, None, f"Failed to write {filename}: {e}") from None


@dataclass
class _Tensor:
    enum: int
    shape: list[int]
    # (file, extents) of each saved slice
    parts: list[tuple[str, slices.Extents]] = field(default_factory=list)


def is_v1(pattern: str) -> bool:
    """Whether `pattern` names V1 checkpoint files (a prefix without the V2 .index)."""
    if os.path.exists(pattern + ".index"):
        return False
    return any(os.path.isfile(p) for p in glob.glob(pattern))


class V1Reader:
    """The reader interface of bundle.BundleReader over the V1 files matching a pattern."""

    def __init__(self, pattern: str) -> None:
        self.prefix = pattern
        files = sorted(glob.glob(pattern))
        if not files:
            raise errors.NotFoundError(
                None,
                None,
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
                f"for {pattern}",
            )
        self._entries: dict[str, dict[bytes, bytes]] = {}
        self._tensors: dict[str, _Tensor] = {}
        for path in files:
            self._load(path)

    def _load(self, path: str) -> None:
        try:
            with open(path, "rb") as f:
                entries = dict(table.read_table(f.read(), path))
            meta = saved_tensor_slice_pb2.SavedTensorSlices.FromString(entries.get(b"", b""))
        except (OSError, DecodeError, errors.DataLossError) as e:
            raise errors.DataLossError(
                None,
                None,
                f"Unable to open table file {path}: {e}. Perhaps your file is in a different file "
                "format and you need to use a different restore operator?",
            ) from None
        if not meta.HasField("meta"):
            raise errors.DataLossError(None, None, f"{path} is not a V1 checkpoint (no meta)")
        self._entries[path] = entries
        for t in meta.meta.tensor:
            shape = [int(d.size) for d in t.shape.dim]
            known = self._tensors.setdefault(t.name, _Tensor(int(t.type), shape))
            if known.enum != int(t.type) or known.shape != shape:
                raise errors.DataLossError(
                    None, None, f"Tensor {t.name} has different shapes or types across files"
                )
            known.parts.extend((path, slices.from_proto(s)) for s in t.slice)

    # ---- the reader interface --------------------------------------------------------------
    def tensor_keys(self) -> list[str]:
        return sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._tensors

    def _tensor(self, key: str) -> _Tensor:
        found = self._tensors.get(key)
        if found is None:
            raise errors.NotFoundError(
                None, None, f'Tensor name "{key}" not found in checkpoint files {self.prefix}'
            )
        return found

    def shape(self, key: str) -> list[int]:
        return list(self._tensor(key).shape)

    def dtype_enum(self, key: str) -> int:
        return self._tensor(key).enum

    def stored_entries(self) -> list[tuple[bytes, int, list[int]]]:
        return [(k.encode(), self.dtype_enum(k), self.shape(k)) for k in self.tensor_keys()]

    def get_tensor(self, key: str) -> np.ndarray:
        return self.read_slice(key, tuple((0, -1) for _ in self._tensor(key).shape))

    def read_slice(self, key: str, extents: slices.Extents) -> np.ndarray:
        t = self._tensor(key)
        if t.enum not in _FIELDS:
            raise errors.UnimplementedError(
                None, None, f"Tensor {key} has a dtype tfcluster cannot read from V1 files"
            )
        want = slices.index(t.shape, extents)
        out_shape = [s.stop - s.start for s in want]
        out = np.empty(out_shape, dtype=_FIELDS[t.enum][1])
        covered = np.zeros(out_shape, dtype=bool)
        for path, stored in t.parts:
            have = slices.index(t.shape, stored)
            lo = [max(a.start, b.start) for a, b in zip(want, have)]
            hi = [min(a.stop, b.stop) for a, b in zip(want, have)]
            if any(h <= low for low, h in zip(lo, hi)) and out.size:
                continue
            part = self._slice_values(path, key, t, stored, have)
            src = tuple(slice(low - h.start, u - h.start) for low, u, h in zip(lo, hi, have))
            dst = tuple(slice(low - w.start, u - w.start) for low, u, w in zip(lo, hi, want))
            out[dst] = part[src]
            covered[dst] = True
        if not covered.all():
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Can not find the requested slice of {key} in the checkpoint files {self.prefix}",
            )
        return out

    def _slice_values(
        self, path: str, key: str, t: _Tensor, stored: slices.Extents, have: tuple[slice, ...]
    ) -> np.ndarray:
        raw = self._entries[path].get(slices.encode_key(key, stored))
        if raw is None:
            raise errors.DataLossError(None, None, f"Slice of {key} missing from {path}")
        saved = saved_tensor_slice_pb2.SavedTensorSlices.FromString(raw)
        shape = [s.stop - s.start for s in have]
        return _values(saved.data.data, t.enum, shape, key)
