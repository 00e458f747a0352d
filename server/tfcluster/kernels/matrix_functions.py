"""Matrix functions: MatrixSquareRoot (the principal square root) and MatrixLogarithm (the
principal logarithm; complex only), on CPU only as in TF.

numpy has no Schur decomposition, so the square root is the scaled Denman-Beavers iteration
(batched inverses only) and the logarithm is inverse scaling and squaring: square roots until
the matrix is near I, then log(I + X) by Gauss-Legendre quadrature of X (I + t X)^-1 over t in
[0, 1] (the diagonal Pade approximant), times 2^k. A complex matrix whose iteration stalls
(real data with an eigenvalue on the negative real axis, where the root is complex) is done by
eigendecomposition instead. Everything runs in double precision whatever the dtype. Like TF's
kernels, a matrix without a principal root or log (a singular one, or a real one with negative
eigenvalues) gives NaNs rather than an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]

_MAX_STEPS = 64
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(10)


def _square(x: Any, what: str = "Input") -> None:
    if x.ndim < 2:
        raise u.invalid(f"{what} must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise u.invalid(f"{what} matrices must be squares, got {x.shape[-2]} != {x.shape[-1]}")


def _wide(x: Any) -> Any:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _eye_like(xp: Any, a: Any) -> Any:
    return xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape)


def _norm1(xp: Any, a: Any) -> Any:
    """The 1-norm of each matrix of a batch (largest column sum of magnitudes)."""
    return xp.abs(a).sum(axis=-2).max(axis=-1)


def sqrtm(xp: Any, a: Any) -> Any:
    """Principal square roots of a batch of [n, n] matrices (double precision), NaN where the
    iteration cannot reach one."""
    n = a.shape[-1]
    y, z = a, _eye_like(xp, a)
    with np.errstate(all="ignore"):
        for _ in range(_MAX_STEPS):
            # Determinant scaling keeps the early steps from wandering (Higham, 1986).
            _, logdet_y = xp.linalg.slogdet(y)
            _, logdet_z = xp.linalg.slogdet(z)
            mu = xp.exp(-(logdet_y + logdet_z) / (2.0 * n))[..., None, None]
            mu = xp.where(xp.isfinite(mu), mu, 1.0)
            y_inv, z_inv = xp.linalg.inv(mu * y), xp.linalg.inv(mu * z)
            y_next = 0.5 * (mu * y + z_inv)
            z_next = 0.5 * (mu * z + y_inv)
            step = _norm1(xp, y_next - y)
            y, z = y_next, z_next
            if bool(xp.all(step <= 1e-14 * _norm1(xp, y))):
                break
        ok = xp.all(xp.isfinite(y), axis=(-2, -1))
        residual = _norm1(xp, y @ y - a) <= 1e-8 * xp.maximum(_norm1(xp, a), 1e-300)
        good = ok & residual
    y = xp.where(good[..., None, None], y, xp.nan)
    if a.dtype.kind == "c" and not bool(xp.all(good)):
        y[~good] = _by_eigenvectors(a[~good], np.sqrt)
    return y


def _by_eigenvectors(a: Any, fn: Callable[[Any], Any]) -> Any:
    """V fn(w) V^-1 for A = V diag(w) V^-1 (NaN where V is too ill-conditioned to trust)."""
    w, v = np.linalg.eig(a)
    with np.errstate(all="ignore"):
        out = (v * fn(w)[..., None, :]) @ np.linalg.inv(v)
        trusted = np.linalg.cond(v) < 1e8
    return np.where(trusted[..., None, None] & np.isfinite(out), out, np.nan)


def logm(xp: Any, a: Any) -> Any:
    """Principal logarithms of a batch of complex [n, n] matrices (complex128), NaN where there
    is none (a singular matrix)."""
    eye = _eye_like(xp, a)
    roots = xp.zeros(a.shape[:-2], dtype=np.int64)
    x = a
    with np.errstate(all="ignore"):
        for _ in range(_MAX_STEPS):
            far = _norm1(xp, x - eye) > 0.25
            if not bool(xp.any(far & xp.isfinite(_norm1(xp, x)))):
                break
            x = xp.where(far[..., None, None], sqrtm(xp, x), x)
            roots = roots + far
        d = x - eye
        total = xp.zeros_like(d)
        for t, w in zip(_NODES, _WEIGHTS):
            node = 0.5 * (t + 1.0)  # [-1, 1] -> [0, 1]
            total = total + (0.5 * w) * xp.linalg.solve(eye + node * d, d)
        out = total * (2.0 ** roots.astype(np.float64))[..., None, None]
    good = xp.all(xp.isfinite(out), axis=(-2, -1))
    out = xp.where(good[..., None, None], out, xp.nan)
    if not bool(xp.all(good)):
        out[~good] = _by_eigenvectors(a[~good], np.log)
    return out


def _matrix_function(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = ins[0]
            _square(x)
            if x.size == 0:
                return (xp.zeros(x.shape, dtype),)
            return (fn(xp, _wide(x)).astype(dtype),)

        return compute

    return factory


kernel("MatrixSquareRoot", devices=("CPU",))(_matrix_function(sqrtm))
kernel("MatrixLogarithm", devices=("CPU",))(_matrix_function(logm))
