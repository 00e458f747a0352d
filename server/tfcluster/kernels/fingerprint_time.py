"""Fingerprint (TF's farmhash Fingerprint64 of each row of a tensor) and Timestamp (the wall
clock): host kernels."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.string_hash import fingerprint64

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _fingerprints(rows: list[bytes]) -> np.ndarray:
    """uint8 [len(rows), 8]: each row's Fingerprint64, least significant byte first."""
    values = np.array([fingerprint64(r) for r in rows], dtype=np.uint64)
    return values.astype("<u8").view(np.uint8).reshape(len(rows), 8)


@kernel("Fingerprint", devices=CPU_ONLY)
def fingerprint(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data, method = ins
        name = method.reshape(()).item() if method.size == 1 else None
        if name != b"farmhash64":
            raise u.invalid(f"Unsupported fingerprint method: {name!r}")
        if data.ndim == 0:
            raise u.invalid("Fingerprint requires data of rank >= 1")
        dim0 = data.shape[0]
        if dim0 == 0:
            return (np.zeros((0, 8), np.uint8),)
        if data.dtype == object:
            strings = [bytes(s) for s in data.reshape(-1)]
            if len(strings) == dim0:
                return (_fingerprints(strings),)
            # Several strings a row: the fingerprint of the row's string fingerprints.
            per = _fingerprints(strings).reshape(dim0, -1)
            return (_fingerprints([row.tobytes() for row in per]),)
        raw = np.ascontiguousarray(data).reshape(dim0, -1).view(np.uint8).reshape(dim0, -1)
        return (_fingerprints([row.tobytes() for row in raw]),)

    return compute


@kernel("Timestamp", devices=CPU_ONLY)
def timestamp(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.array(time.time(), dtype=np.float64),)

    return compute
