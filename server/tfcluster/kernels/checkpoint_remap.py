"""Kernels of the vocabulary-remapping checkpoint ops (CPU: they read vocabulary files and a
checkpoint where the op runs): GenerateVocabRemapping and LoadAndRemapMatrix."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import open_checkpoint
from tfcluster.kernels.registry import kernel


def _str(x: Any) -> str:
    v = x.item() if isinstance(x, np.ndarray) else x
    return v.decode() if isinstance(v, bytes) else str(v)


def _vocab_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    lines = data.decode().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


@kernel("GenerateVocabRemapping", devices=("CPU",))
def generate_vocab_remapping(node: Any, xp: Any) -> Any:
    offset = int(node.attrs["new_vocab_offset"])
    count = int(node.attrs["num_new_vocab"])
    old_size = int(node.attrs.get("old_vocab_size", -1))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        new_vocab = _vocab_lines(_str(ins[0]))
        old_vocab = _vocab_lines(_str(ins[1]))
        if old_size != -1:
            old_vocab = old_vocab[:old_size]
        if offset + count > len(new_vocab):
            raise errors.InvalidArgumentError(
                None, None, "lookup table size must be larger than last new vocab entry's line"
            )
        where: dict[str, int] = {}
        for i, word in enumerate(old_vocab):
            if word in where:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"HashTable has different value for same key. Key {word} has "
                    f"{where[word]} and trying to add value {i}",
                )
            where[word] = i
        remapping = np.array(
            [where.get(w, -1) for w in new_vocab[offset : offset + count]], dtype=np.int64
        )
        return remapping, np.int32(np.count_nonzero(remapping != -1))

    return compute


@kernel("LoadAndRemapMatrix", devices=("CPU",))
def load_and_remap_matrix(node: Any, xp: Any) -> Any:
    num_rows = int(node.attrs["num_rows"])
    num_cols = int(node.attrs["num_cols"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        path, name = _str(ins[0]), _str(ins[1])
        rows = np.asarray(ins[2], dtype=np.int64).reshape(-1)
        cols = np.asarray(ins[3], dtype=np.int64).reshape(-1)
        init = np.asarray(ins[4], dtype=np.float32).reshape(-1)
        if rows.size != num_rows:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Size of row_remapping is {rows.size} instead of being equal to "
                f"num_rows={num_rows}",
            )
        if cols.size == 0:
            cols = np.arange(num_cols, dtype=np.int64)
        elif cols.size != num_cols:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Provided col_remapping, but its size is {cols.size} instead of "
                f"being equal to num_cols={num_cols}",
            )
        old = np.asarray(open_checkpoint(path).get_tensor(name))
        if old.ndim != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor {name} in {path} is not a matrix: shape {list(old.shape)}"
            )
        for what, index, limit in (("row", rows, old.shape[0]), ("col", cols, old.shape[1])):
            bad = index[(index < -1) | (index >= limit)]
            if bad.size:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{what} remapping entry {int(bad[0])} is out of range "
                    f"[-1, {limit}) for tensor {name} of shape {list(old.shape)}",
                )
        present = (rows != -1)[:, None] & (cols != -1)[None, :]
        missing = int(present.size - np.count_nonzero(present))
        if init.size < missing:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"initializing_values contained {init.size} elements, but more missing values "
                "remain.",
            )
        if init.size > missing:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Mismatch in number of elements: initializing_values has {init.size} but "
                f"{missing} cells are missing from the checkpoint",
            )
        out = np.empty((num_rows, num_cols), dtype=np.float32)
        out[present] = old[np.ix_(np.maximum(rows, 0), np.maximum(cols, 0))][present]
        out[~present] = init  # boolean-mask order is row-major, as TF fills them
        return (out,)

    return compute
