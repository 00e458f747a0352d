"""Eigen's JacobiSVD with its column-pivoting Householder QR preconditioner: what TF 1.15's CPU
Svd kernel (Eigen's BDCSVD) runs for matrices of fewer than 16 columns, written over numpy so
the singular vectors come out with TF's signs (LAPACK's gesdd picks other ones).

Steps as Eigen's: scale by the largest |a|; a non-square matrix is reduced to a square one by
ColPivHouseholderQR (of A when it has more rows, of A^T when more columns; U or V starts as
the QR's Q, the other as its column permutation); then two-sided Jacobi sweeps (Eigen's
real_2x2_jacobi_svd: a rotation making the 2x2 block symmetric, then makeJacobi) until every
off-diagonal entry is below 2 eps * the largest diagonal entry; negative diagonal entries
flip U's column; a selection sort puts the values in descending order. Real dtypes only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

# BDCSVD's m_algoswap: from 16 columns on TF runs the divide-and-conquer SVD (not matched).
MAX_JACOBI_COLS = 15
# The Jacobi sweeps run here rotation by rotation in Python, where TF's C++ takes
# microseconds: a call costing more than this (p (p^2 + m n / 16) over its matrices, p the
# smaller side; one 15 x 15 matrix is about 3600, one 1000 x 8 about 4500) is solved by LAPACK
# instead: the same values, vectors with LAPACK's signs (not TF's).
MAX_JACOBI_WORK = 8192


def affordable(shape: tuple[int, ...]) -> bool:
    """Whether JacobiSVD solves a real (..., m, n) call here as TF's kernel would."""
    m, n = shape[-2:]
    p = min(m, n)
    if n > MAX_JACOBI_COLS:
        return False
    return math.prod(shape[:-2]) * p * (p * p + m * n / 16) <= MAX_JACOBI_WORK


def svd(a: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, u, v) of each real matrix in a (..., m, n) with fewer than 16 columns."""
    m, n = a.shape[-2:]
    p = min(m, n)
    flat = a.reshape((-1, m, n))
    s = np.empty((flat.shape[0], p), a.dtype)
    u = np.empty((flat.shape[0], m, m if full else p), a.dtype)
    v = np.empty((flat.shape[0], n, n if full else p), a.dtype)
    for b in range(flat.shape[0]):
        s[b], u[b], v[b] = _svd_one(flat[b], full)
    batch = a.shape[:-2]
    return (
        s.reshape((*batch, p)),
        u.reshape((*batch, *u.shape[1:])),
        v.reshape((*batch, *v.shape[1:])),
    )


def _householder_qr_pivoted(a: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, Any]:
    """Eigen's ColPivHouseholderQR of a (rows >= cols): (R's top square, Q (full or thin),
    the column permutation as a matrix)."""
    a = a.copy()
    rows, cols = a.shape
    size = min(rows, cols)
    dtype = a.dtype
    tiny = np.finfo(dtype).tiny
    eps = np.finfo(dtype).eps
    norms_direct = np.sqrt((a * a).sum(axis=0))
    norms = norms_direct.copy()
    downdate_threshold = np.sqrt(dtype.type(eps))
    perm = np.arange(cols)
    reflectors = []
    for k in range(size):
        best = k + int(np.argmax(norms[k:]))
        if best != k:
            a[:, [k, best]] = a[:, [best, k]]
            norms[[k, best]] = norms[[best, k]]
            norms_direct[[k, best]] = norms_direct[[best, k]]
            perm[[k, best]] = perm[[best, k]]
        x = a[k:, k]
        c0 = x[0]
        tail = x[1:]
        tail_sq = (tail * tail).sum()
        v = np.empty_like(x)
        v[0] = 1
        if tail_sq <= tiny:
            tau, beta = dtype.type(0), c0
            v[1:] = 0
        else:
            beta = np.sqrt(c0 * c0 + tail_sq)
            if c0 >= 0:
                beta = -beta
            v[1:] = tail / (c0 - beta)
            tau = (beta - c0) / beta
        a[k, k] = beta
        a[k + 1 :, k] = 0
        reflectors.append((v, tau))
        rest = a[k:, k + 1 :]
        if rest.shape[1]:
            rest -= tau * np.outer(v, (v[:, None] * rest).sum(axis=0))
        for j in range(k + 1, cols):
            if norms[j] != 0:
                t = abs(a[k, j]) / norms[j]
                t = (1 + t) * (1 - t)
                t = max(t, dtype.type(0))
                ratio = norms[j] / norms_direct[j]
                if t * ratio * ratio <= downdate_threshold:
                    norms_direct[j] = np.sqrt((a[k + 1 :, j] * a[k + 1 :, j]).sum())
                    norms[j] = norms_direct[j]
                else:
                    norms[j] *= np.sqrt(t)
    # Q's first columns only, unless the full Q is asked for (Eigen's thin U/V).
    q = np.eye(rows, rows if full else cols, dtype=dtype)
    for k in range(size - 1, -1, -1):
        v, tau = reflectors[k]
        block = q[k:, k:]
        block -= tau * np.outer(v, (v[:, None] * block).sum(axis=0))
    p_matrix = np.zeros((cols, cols), dtype)
    p_matrix[perm, np.arange(cols)] = 1
    return np.triu(a[:cols, :cols]), q, p_matrix


def _svd_one(a: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, cols = a.shape
    dtype = a.dtype
    scalar: Callable[[Any], Any] = float if dtype == np.float64 else dtype.type
    scale = np.abs(a).max() if a.size else dtype.type(0)
    if scale == 0:
        scale = dtype.type(1)
    scaled = a / scale
    if rows > cols:
        work, u, v = _householder_qr_pivoted(scaled, full)
    elif cols > rows:
        r, v, u = _householder_qr_pivoted(np.ascontiguousarray(scaled.T), full)
        work = np.ascontiguousarray(r.T)
    else:
        work = scaled.copy()
        u, v = np.eye(rows, dtype=dtype), np.eye(cols, dtype=dtype)
    _jacobi_sweeps(work, u, v, scalar)
    size = work.shape[0]
    diag = np.diagonal(work).copy()
    s = np.abs(diag)
    u[:, :size][:, diag < 0] *= -1
    s = (s * scale).astype(dtype)
    for i in range(size):
        pos = int(np.argmax(s[i:]))
        if s[i + pos] == 0:
            break
        if pos:
            j = i + pos
            s[[i, j]] = s[[j, i]]
            u[:, [i, j]] = u[:, [j, i]]
            v[:, [i, j]] = v[:, [j, i]]
    return s, u, v


def _jacobi_sweeps(w: np.ndarray, u: np.ndarray, v: np.ndarray, f: Callable[[Any], Any]) -> None:
    n = w.shape[0]
    info = np.finfo(w.dtype)
    tiny, precision = f(info.tiny), f(2 * info.eps)
    one, two = f(1), f(2)
    max_diag = f(np.abs(np.diagonal(w)).max()) if n else f(0)
    finished = False
    while not finished:
        finished = True
        for p in range(1, n):
            for q in range(p):
                threshold = max(tiny, precision * max_diag)
                if not (abs(w[p, q]) > threshold or abs(w[q, p]) > threshold):
                    continue
                finished = False
                m00, m01, m10, m11 = f(w[p, p]), f(w[p, q]), f(w[q, p]), f(w[q, q])
                # A rotation from the left making the 2x2 block symmetric ...
                t, d = m00 + m11, m10 - m01
                if abs(d) < tiny:
                    c1, s1 = one, f(0)
                else:
                    r = t / d
                    root = f(math.sqrt(one + r * r))
                    c1, s1 = r / root, one / root
                n00 = c1 * m00 + s1 * m10
                n01 = c1 * m01 + s1 * m11
                n11 = -s1 * m01 + c1 * m11
                # ... then Eigen's makeJacobi diagonalizes it from both sides.
                deno = two * abs(n01)
                if deno < tiny:
                    cr, sr = one, f(0)
                else:
                    tau = (n00 - n11) / deno
                    root = f(math.sqrt(tau * tau + one))
                    tt = one / (tau + root) if tau > 0 else one / (tau - root)
                    sign_t = one if tt > 0 else -one
                    nn = one / f(math.sqrt(tt * tt + one))
                    sr = -sign_t * (n01 / abs(n01)) * abs(tt) * nn
                    cr = nn
                # j_left = rot1 * j_right^T
                cl = c1 * cr + s1 * sr
                sl = -c1 * sr + s1 * cr
                left = np.array([[cl, sl], [-sl, cl]], w.dtype)
                right = np.array([[cr, sr], [-sr, cr]], w.dtype)
                w[[p, q]] = left @ w[[p, q]]
                u[:, [p, q]] = u[:, [p, q]] @ left.T
                w[:, [p, q]] = w[:, [p, q]] @ right
                v[:, [p, q]] = v[:, [p, q]] @ right
                max_diag = max(max_diag, f(abs(w[p, p])), f(abs(w[q, q])))
