"""Eigen's SelfAdjointEigenSolver (the algorithm of TF 1.15's CPU SelfAdjointEigV2 and
SelfAdjointEig kernels), written over numpy so eigenvectors come out with TF's signs.

LAPACK's solvers give the same eigenvalues but each eigenvector's sign is an accident of the
algorithm, and no simple rule maps LAPACK's signs to Eigen's. So the steps are Eigen's own:
scale by the largest |a| of the lower triangle, Householder tridiagonalization (Eigen's
reflector convention: beta = -sign(re a0) * norm), the implicit symmetric QR iteration with a
Wilkinson shift whose Givens rotations (Eigen's makeGivens signs) accumulate into Q, Eigen's
deflation test, then a selection sort into ascending order and the scale put back. The scalar
recurrences run in Python on the input's precision (np.float32 scalars for float32 input, as
TF computes float32 in float32); each reflection and rotation is one vectorised numpy step.
Products are numpy's own sums, not BLAS, so the result does not depend on the BLAS build.

Signs match TF's exactly where the QR iteration deflates at the same steps as Eigen's. In
float64 it does on generic matrices (60 of 60 recorded, 1 to 40 rows); in float32 a converged
subdiagonal entry often sits at rounding-noise level, next to Eigen's deflation threshold, so
Eigen's own (AVX) rounding decides whether one more QR step runs, which may flip vectors: every
recorded float32 matrix of up to 16 rows (48) has TF's signs, 6 of 12 with 20 to 40 rows some
other. Repeated eigenvalues leave the basis of their eigenspace to rounding, in TF too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

_MAX_ITERATIONS = 30  # Eigen's m_maxIterations: NoConvergence after 30 * n QR steps.


class NoConvergence(ArithmeticError):
    """The QR iteration did not converge (Eigen's ComputationInfo::NoConvergence)."""


# Eigen's QR iteration runs here rotation by rotation in Python (about 2 n^2 rotations, each
# a few numpy calls), where TF's C++ takes microseconds: a call whose matrices hold more than
# this many n^3 in all (one 48 x 48 matrix, some 20 ms) is solved by LAPACK instead, so that a
# program decomposing every step stays near TF's speed: the same values, vectors with
# LAPACK's signs (not TF's).
MAX_EIGEN_WORK = 48**3


def affordable(shape: tuple[int, ...]) -> bool:
    """Whether Eigen's algorithm solves a call of this (..., n, n) shape (MAX_EIGEN_WORK)."""
    return math.prod(shape[:-2]) * shape[-1] ** 3 <= MAX_EIGEN_WORK


def eigh(a: np.ndarray, compute_v: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Eigenvalues (ascending, real) and eigenvectors (columns) of each Hermitian matrix in
    `a` (..., n, n), reading only its lower triangle; vectors are None unless `compute_v`."""
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    n = a.shape[-1]
    lower = np.tril(a)
    finite = bool(np.isfinite(lower).all())
    if (not compute_v and finite) or not affordable(a.shape):
        # Values have no sign to match: LAPACK's agree with Eigen's to rounding. (Eigen's
        # iteration also decides what inf and nan give, so those take its path.)
        herm = lower + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
        if not compute_v:
            return np.linalg.eigvalsh(herm).astype(real), None
        w_all, v_all = np.linalg.eigh(herm)
        return w_all.astype(real), v_all.astype(a.dtype)
    batch = a.shape[:-2]
    flat = a.reshape((-1, n, n))
    values = np.empty((flat.shape[0], n), real)
    vectors = np.empty_like(flat) if compute_v else None
    for b in range(flat.shape[0]):
        w, v = _eigh_one(flat[b], compute_v)
        values[b] = w
        if vectors is not None and v is not None:
            vectors[b] = v
    return values.reshape((*batch, n)), (
        None if vectors is None else vectors.reshape((*batch, n, n))
    )


def _eigh_one(a: np.ndarray, compute_v: bool) -> tuple[np.ndarray, np.ndarray | None]:
    n = a.shape[0]
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    if n == 1:
        return np.array([a[0, 0].real], real), np.ones((1, 1), a.dtype)
    lower = np.tril(a)
    scale = np.abs(lower).max()
    if scale == 0:
        scale = real.type(1)
    lower = lower / scale
    herm = lower + np.conj(np.tril(lower, -1)).T
    if herm.dtype.kind == "c":
        # Eigen's self-adjoint products read only the real part of the diagonal.
        herm[np.diag_indices(n)] = herm.diagonal().real
    diag, sub, q = _tridiagonalize(herm, compute_v)
    # Q's transpose, so the columns each rotation mixes are contiguous rows.
    qt = None if q is None else np.ascontiguousarray(q.T)
    scalar: Callable[[Any], Any] = float if real == np.float64 else real.type
    d = [scalar(x) for x in diag]
    e = [scalar(x) for x in sub]
    _tridiagonal_qr(d, e, qt, real)
    values = np.array(d, real)
    # Eigen's selection sort: the first smallest of the rest swaps into place.
    for i in range(n - 1):
        k = int(np.argmin(values[i:]))
        if k > 0:
            values[[i, i + k]] = values[[i + k, i]]
            if qt is not None:
                qt[[i, i + k]] = qt[[i + k, i]]
    values = (values * scale).astype(real)
    return values, None if qt is None else np.ascontiguousarray(qt.T)


def _tridiagonalize(
    a: np.ndarray, want_q: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Householder reduction H_{n-2}..H_0 A H_0..H_{n-2} = T (Eigen's tridiagonalization_inplace):
    T's diagonal and subdiagonal (real), and Q = H_0 .. H_{n-2} when asked."""
    n = a.shape[0]
    a = a.copy()
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    tiny = np.finfo(real).tiny
    sub = np.empty(n - 1, real)
    reflectors: list[tuple[np.ndarray, Any]] = []
    for i in range(n - 1):
        x = a[i + 1 :, i]
        c0 = x[0]
        tail = x[1:]
        tail_sq = (tail.real * tail.real + tail.imag * tail.imag).sum()
        v = np.empty_like(x)
        v[0] = 1
        if tail_sq <= tiny and c0.imag * c0.imag <= tiny:
            tau = a.dtype.type(0)
            beta = c0.real
            v[1:] = 0
        else:
            beta = np.sqrt(real.type(c0.real * c0.real + c0.imag * c0.imag) + tail_sq)
            if c0.real >= 0:
                beta = -beta
            v[1:] = tail / (c0 - beta)
            tau = np.conj((beta - c0) / beta)
        sub[i] = beta
        reflectors.append((v, tau))
        block = a[i + 1 :, i + 1 :]
        ch = np.conj(tau)
        w = (block * (ch * v)).sum(axis=1)
        w += (ch * real.type(-0.5) * (np.conj(w) * v).sum()) * v
        block -= np.outer(v, np.conj(w)) + np.outer(w, np.conj(v))
    diag = np.ascontiguousarray(np.diagonal(a).real)
    if not want_q:
        return diag, sub, None
    q = np.eye(n, dtype=a.dtype)
    for k in range(n - 2, -1, -1):
        v, tau = reflectors[k]
        corner = q[k + 1 :, k + 1 :]
        corner -= np.conj(tau) * np.outer(v, (np.conj(v)[:, None] * corner).sum(axis=0))
    return diag, sub, q


def _hypot(x: Any, y: Any) -> Any:
    p, m = (abs(x), abs(y)) if abs(x) >= abs(y) else (abs(y), abs(x))
    if p == 0:
        return p
    r = m / p
    return p * _sqrt(1 + r * r)


def _sqrt(x: Any) -> Any:
    return type(x)(math.sqrt(x))


def _givens(p: Any, q: Any) -> tuple[Any, Any]:
    """Eigen's JacobiRotation::makeGivens for reals: (c, s) with [c -s; s c]^T [p; q] = [r; 0]."""
    one = type(p)(1)
    if q == 0:
        return (-one if p < 0 else one), q * 0
    if p == 0:
        return p * 0, (one if q < 0 else -one)
    if abs(p) > abs(q):
        t = q / p
        u = _sqrt(one + t * t)
        if p < 0:
            u = -u
        c = one / u
        return c, -t * c
    t = p / q
    u = _sqrt(one + t * t)
    if q < 0:
        u = -u
    s = -one / u
    return -t * s, s


def _tridiagonal_qr(d: list[Any], e: list[Any], qt: np.ndarray | None, real: np.dtype) -> None:
    """Eigen's computeFromTridiagonal_impl: d becomes the (unsorted) eigenvalues, the rows of
    qt (Q's columns) are rotated with every Givens rotation of every implicit QR step."""
    n = len(d)
    tiny = real.type(np.finfo(real).tiny)
    precision = real.type(2 * np.finfo(real).eps)
    if real == np.float64:
        tiny, precision = float(tiny), float(precision)
    end, start, iterations = n - 1, 0, 0
    while end > 0:
        for i in range(start, end):
            if abs(e[i]) <= (abs(d[i]) + abs(d[i + 1])) * precision or abs(e[i]) <= tiny:
                e[i] = e[i] * 0
        while end > 0 and e[end - 1] == 0:
            end -= 1
        if end <= 0:
            break
        iterations += 1
        if iterations > _MAX_ITERATIONS * n:
            raise NoConvergence("Self-adjoint eigen decomposition did not converge")
        start = end - 1
        while start > 0 and e[start - 1] != 0:
            start -= 1
        _qr_step(d, e, start, end, qt)


def _qr_step(d: list[Any], e: list[Any], start: int, end: int, qt: np.ndarray | None) -> None:
    """One implicit symmetric QR step with Wilkinson shift on d/e[start..end] (Golub & Van
    Loan 8.3.2, as Eigen's tridiagonal_qr_step writes it)."""
    half = type(d[0])(0.5)
    td = (d[end - 1] - d[end]) * half
    ee = e[end - 1]
    mu = d[end]
    if td == 0:
        mu -= abs(ee)
    else:
        e2 = ee * ee
        h = _hypot(td, ee)
        if e2 == 0:
            mu -= (ee / (td + (1 if td > 0 else -1))) * (ee / h)
        else:
            mu -= e2 / (td + (h if td > 0 else -h))
    x = d[start] - mu
    z = e[start]
    for k in range(start, end):
        c, s = _givens(x, z)
        sdk = s * d[k] + c * e[k]
        dkp1 = s * e[k] + c * d[k + 1]
        d[k] = c * (c * d[k] - s * e[k]) - s * (c * e[k] - s * d[k + 1])
        d[k + 1] = s * sdk + c * dkp1
        e[k] = c * sdk - s * dkp1
        if k > start:
            e[k - 1] = c * e[k - 1] - s * z
        x = e[k]
        if k < end - 1:
            z = -s * e[k + 1]
            e[k + 1] = c * e[k + 1]
        if qt is not None:
            # Q.applyOnTheRight(k, k+1, rot): columns (x, y) -> (c x - s y, s x + c y).
            pair = qt[k : k + 2]
            qt[k : k + 2] = np.array([[c, -s], [s, c]], dtype=qt.real.dtype) @ pair
