"""Matrix kernels over the array module: Qr, DiagPart, MatrixDiag, MatrixSetDiag."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels.registry import kernel

Compute = Any


def _invalid(message: str) -> Exception:
    return errors.InvalidArgumentError(None, None, message)


# CPU only for now: cupy's linalg is outside the namespace the strict stand-in records.
@kernel("Qr", devices=("CPU",))
def qr(node: Any, xp: Any) -> Compute:
    mode = "complete" if node.attrs.get("full_matrices", False) else "reduced"

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        a = xp.asarray(ins[0])
        if a.ndim < 2:
            raise _invalid(f"input must have rank >= 2, got shape {list(a.shape)}")
        q, r = xp.linalg.qr(a, mode=mode)
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)

    return compute


@kernel("DiagPart")
def diag_part(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        x = xp.asarray(ins[0])
        half = x.ndim // 2
        if x.ndim == 0 or x.ndim % 2 or x.shape[:half] != x.shape[half:]:
            raise _invalid(
                f"Input must have even rank and matching halves, got shape {list(x.shape)}"
            )
        n = 1
        for d in x.shape[:half]:
            n *= d
        return (xp.diagonal(x.reshape(n, n)).reshape(x.shape[:half]).copy(),)

    return compute


@kernel("MatrixDiag")
def matrix_diag(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        d = xp.asarray(ins[0])
        if d.ndim < 1:
            raise _invalid("input must be at least 1-dim, received shape: []")
        n = d.shape[-1]
        out = xp.zeros((*d.shape, n), dtype=d.dtype)
        idx = xp.arange(n)
        out[..., idx, idx] = d
        return (out,)

    return compute


@kernel("MatrixSetDiag")
def matrix_set_diag(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        x, d = xp.asarray(ins[0]), xp.asarray(ins[1])
        if x.ndim < 2:
            raise _invalid(f"input must be at least a matrix, received shape: {list(x.shape)}")
        k = min(x.shape[-2], x.shape[-1])
        if tuple(d.shape) != (*x.shape[:-2], k):
            raise _invalid(
                f"diagonal must have shape {[*x.shape[:-2], k]}, received {list(d.shape)}"
            )
        out = x.copy()
        idx = xp.arange(k)
        out[..., idx, idx] = d
        return (out,)

    return compute
