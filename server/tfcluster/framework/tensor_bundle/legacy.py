"""tfcluster's checkpoint format before TF's V2 (tfcluster 0.1): read-only, and a converter.

Such a checkpoint is P.index, JSON naming each tensor's slot, shape and dtype and the
sha256 of the data, and P.data-00000-of-00001, an npz of the slots (strings as one uint8
blob plus int64 lengths). It stays restorable for one release; `convert(prefix)` rewrites
it in place as a V2 checkpoint that TensorFlow reads.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import bundle, slices

FORMAT = "tfcluster-checkpoint-v1"
_ENUM_BY_NAME = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
                 "string": 7, "complex64": 8, "int64": 9, "bool": 10, "float16": 19}  # fmt: skip


def is_legacy(prefix: str) -> bool:
    """Whether prefix.index is the JSON index of tfcluster's earlier format."""
    try:
        with open(bundle.index_filename(prefix), "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and FORMAT.encode() in head


class LegacyReader:
    """The reader interface of bundle.BundleReader over an old tfcluster checkpoint."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        index_path = bundle.index_filename(prefix)
        data_path = bundle.data_filename(prefix, 0, 1)
        with open(index_path, encoding="utf-8") as f:
            self._index = json.load(f)
        if self._index.get("format") != FORMAT:
            raise errors.DataLossError(None, None, f"{index_path} is not a tfcluster index")
        with open(data_path, "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != self._index.get("data_sha256"):
            raise errors.DataLossError(
                None, None, f"Checksum mismatch in {data_path}: the checkpoint is corrupt"
            )
        self._data = np.load(io.BytesIO(raw), allow_pickle=False)
        self._tensors: dict[str, Any] = self._index["tensors"]

    def tensor_keys(self) -> list[str]:
        return sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._tensors

    def stored_entries(self) -> list[tuple[bytes, int, list[int]]]:
        return [(k.encode(), self.dtype_enum(k), self.shape(k)) for k in self.tensor_keys()]

    def _entry(self, key: str) -> Any:
        entry = self._tensors.get(key)
        if entry is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return entry

    def shape(self, key: str) -> list[int]:
        return list(self._entry(key)["shape"])

    def dtype_enum(self, key: str) -> int:
        return _ENUM_BY_NAME[self._entry(key)["dtype"]]

    def get_tensor(self, key: str) -> np.ndarray:
        entry = self._entry(key)
        slot = entry["slot"]
        if entry["dtype"] == "string":
            blob = self._data[slot].tobytes()
            out = np.empty(len(self._data[slot + "_len"]), dtype=object)
            pos = 0
            for i, n in enumerate(self._data[slot + "_len"]):
                out[i] = blob[pos : pos + int(n)]
                pos += int(n)
            return out.reshape(entry["shape"])
        return np.asarray(self._data[slot]).reshape(entry["shape"])

    def read_slice(self, key: str, extents: slices.Extents) -> np.ndarray:
        full = self.get_tensor(key)
        return np.array(full[slices.index(full.shape, extents)])


def convert(prefix: str, output_prefix: str | None = None) -> str:
    """Rewrites the old tfcluster checkpoint `prefix` as a V2 checkpoint at output_prefix
    (default: in place); returns the new prefix."""
    reader = LegacyReader(prefix)
    tensors = [bundle.TensorToSave(k, reader.get_tensor(k)) for k in reader.tensor_keys()]
    target = output_prefix or prefix
    bundle.write_bundle(target, [tensors])
    return target
