"""Kernels of the feature-column ops: Bucketize (over xp) and SparseCross (host: strings and
FarmHash fingerprints, combined as TF's FingerprintCat64)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tfcluster.kernels import string_hash
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_INT64_MAX = (1 << 63) - 1


@kernel("Bucketize")
def bucketize(node: Any, xp: Any) -> Any:
    # The attr is a list(float): TF's kernel holds float32 boundaries and compares each value
    # with them as C++ does, in float32 for float, int32 and int64 inputs (a float32 -121.8
    # is then in the bucket that starts at the boundary -121.8), in float64 for doubles.
    bounds = np.asarray([float(b) for b in node.attrs["boundaries"]], dtype=np.float32)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        common = xp.float64 if x.dtype == xp.float64 else xp.float32
        b = xp.asarray(bounds.astype(common))
        return (xp.searchsorted(b, xp.asarray(x, dtype=common), side="right").astype(xp.int32),)

    return compute


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """tensorflow/core/lib/hash/hash.h FingerprintCat64 over unsigned 64-bit words."""
    result = fp1 ^ _MUL
    result ^= (_shift_mix((fp2 * _MUL) & _MASK) * _MUL) & _MASK
    result = (result * _MUL) & _MASK
    result = (_shift_mix(result) * _MUL) & _MASK
    return _shift_mix(result)


def _hash_feature(v: Any) -> int:
    if isinstance(v, bytes):
        return string_hash.fingerprint64(v)
    return int(v) & _MASK


def _str_feature(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(int(v))


def _rows_of_sparse(indices: np.ndarray, values: np.ndarray, batch: int) -> list[list[Any]]:
    rows: list[list[Any]] = [[] for _ in range(batch)]
    for r, v in zip(indices[:, 0].tolist(), values.tolist()):
        if r >= batch:
            raise invalid(f"Invalid SparseTensor: row {r} out of range [0, {batch})")
        rows[r].append(v)
    return rows


@kernel("SparseCross", devices=CPU_ONLY)
def sparse_cross(node: Any, xp: Any) -> Any:
    a = node.attrs
    n_sparse = int(a["N"])
    hashed = bool(a["hashed_output"])
    num_buckets = int(a["num_buckets"])
    hash_key = int(a["hash_key"]) & _MASK

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = [np.asarray(t) for t in ins[:n_sparse]]
        values = [np.asarray(t) for t in ins[n_sparse : 2 * n_sparse]]
        shapes = [np.asarray(t) for t in ins[2 * n_sparse : 3 * n_sparse]]
        dense = [np.asarray(t) for t in ins[3 * n_sparse :]]
        batches = {int(s[0]) for s in shapes} | {int(d.shape[0]) for d in dense}
        if len(batches) > 1:
            raise invalid(
                f"Expected batch size to be the same for every input, got {sorted(batches)}"
            )
        batch = batches.pop() if batches else 0
        columns = [_rows_of_sparse(i, v, batch) for i, v in zip(indices, values)]
        columns += [[list(row) for row in d.reshape(batch, -1).tolist()] for d in dense]
        out_idx: list[tuple[int, int]] = []
        out_val: list[Any] = []
        width = 0
        for b in range(batch):
            k = 0
            for combo in itertools.product(*(col[b] for col in columns)):
                if hashed:
                    h = hash_key
                    for f in combo:
                        h = fingerprint_cat64(h, _hash_feature(f))
                    # Without buckets TF still reduces mod the largest int64.
                    out_val.append(h % (num_buckets if num_buckets > 0 else _INT64_MAX))
                else:
                    out_val.append("_X_".join(_str_feature(f) for f in combo).encode())
                out_idx.append((b, k))
                k += 1
            width = max(width, k)
        idx = np.asarray(out_idx, dtype=np.int64).reshape(-1, 2)
        val = np.asarray(out_val, dtype=np.int64 if hashed else object)
        return idx, val, np.asarray([batch, width], dtype=np.int64)

    return compute
