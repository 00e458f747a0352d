"""Linear algebra kernels over xp (numpy.linalg / cupy.linalg), batched over leading dims:
inverse, determinants, Cholesky, QR, SVD, eigen-decomposition of self-adjoint matrices, solves
(general, triangular, least squares), LU, the matrix exponential, diagonal and band
extraction/insertion (MatrixDiag*/MatrixSetDiag*/MatrixDiagPart*, Diag/DiagPart), Cross and
Einsum. Failures (singular or non-positive-definite input) are TF's InvalidArgumentError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_jacobi_svd, _eigen_selfadjoint
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _square(x: Any, what: str = "Input") -> None:
    if x.ndim < 2:
        raise u.invalid(f"{what} must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise u.invalid(f"{what} matrices must be squares, got {x.shape[-2]} != {x.shape[-1]}")


def _adjoint(xp: Any, x: Any) -> Any:
    t = xp.swapaxes(x, -1, -2)
    return xp.conj(t) if x.dtype.kind == "c" else t


def _linalg_error(xp: Any) -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [np.linalg.LinAlgError]
    err = getattr(getattr(xp, "linalg", None), "LinAlgError", None)
    if isinstance(err, type) and err not in errors:
        errors.append(err)
    return tuple(errors)


def _finite_or(xp: Any, out: Any, message: str) -> Any:
    """cupy reports a singular factorisation with inf/nan instead of raising."""
    if not u.is_numpy(xp) and out.size and not bool(xp.all(xp.isfinite(out))):
        raise u.invalid(message)
    return out


def _empty_batch(x: Any) -> bool:
    return x.size == 0


@kernel("MatrixInverse")
def matrix_inverse(node: Any, xp: Any) -> Compute:
    adjoint = bool(node.attrs.get("adjoint", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if _empty_batch(x):
            return (xp.zeros_like(x),)
        a = _adjoint(xp, x) if adjoint else x
        try:
            out = xp.linalg.inv(a)
        except _linalg_error(xp):
            raise u.invalid("Input is not invertible.") from None
        return (_finite_or(xp, out, "Input is not invertible.").astype(x.dtype),)

    return compute


@kernel("MatrixDeterminant")
def matrix_determinant(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if x.shape[-1] == 0:
            return (xp.ones(x.shape[:-2], dtype=x.dtype),)
        return (xp.linalg.det(x).astype(x.dtype),)

    return compute


@kernel("LogMatrixDeterminant")
def log_matrix_determinant(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if x.shape[-1] == 0:
            ones = xp.ones(x.shape[:-2], dtype=x.dtype)
            return (ones, xp.zeros_like(ones))
        sign, logdet = xp.linalg.slogdet(x)
        return (sign.astype(x.dtype), logdet.astype(x.dtype))

    return compute


@kernel("Cholesky")
def cholesky(node: Any, xp: Any) -> Compute:
    message = "Cholesky decomposition was not successful. The input might not be valid."

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if _empty_batch(x):
            return (xp.zeros_like(x),)
        # Only the lower triangle is read, as TF's kernel does.
        lower = xp.tril(x)
        sym = lower + _adjoint(xp, xp.tril(x, -1))
        try:
            out = xp.linalg.cholesky(sym)
        except _linalg_error(xp):
            raise u.invalid(message) from None
        # cupy does not raise (outside cupyx.errstate): a factorisation that failed shows as a
        # pivot on the diagonal that is not positive (potrf stops there) or not finite.
        if not u.is_numpy(xp) and out.size:
            pivots = xp.diagonal(out, axis1=-2, axis2=-1).real
            if not bool(xp.all(pivots > 0)):
                raise u.invalid(message)
        return (_finite_or(xp, out, message).astype(x.dtype),)

    return compute


@kernel("Qr")
def qr(node: Any, xp: Any) -> Compute:
    full = bool(node.attrs.get("full_matrices", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        if x.ndim < 2:
            raise u.invalid(f"Input must have rank >= 2, got {x.ndim}")
        m, n = x.shape[-2:]
        k = m if full else min(m, n)
        if _empty_batch(x):
            return (
                xp.zeros((*x.shape[:-2], m, k), x.dtype),
                xp.zeros((*x.shape[:-2], k, n), x.dtype),
            )
        q, r = xp.linalg.qr(x, mode="complete" if full else "reduced")
        return (q.astype(x.dtype), r.astype(x.dtype))

    return compute


@kernel("Svd")
def svd(node: Any, xp: Any) -> Compute:
    compute_uv = bool(node.attrs.get("compute_uv", True))
    full = bool(node.attrs.get("full_matrices", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        if x.ndim < 2:
            raise u.invalid(f"Input must have rank >= 2, got {x.ndim}")
        m, n = x.shape[-2:]
        p = min(m, n)
        real = np.dtype(x.dtype.char.lower()) if x.dtype.kind == "c" else x.dtype
        batch = x.shape[:-2]
        if _empty_batch(x):
            uu = xp.zeros((*batch, m, m if full else p), x.dtype)
            vv = xp.zeros((*batch, n, n if full else p), x.dtype)
            return (xp.zeros((*batch, p), real), uu, vv)
        if not compute_uv:
            s = xp.linalg.svd(x, compute_uv=False)
            empty = xp.zeros((0,), x.dtype)
            return (s.astype(real), empty, empty)
        if u.is_numpy(xp) and x.dtype.kind == "f" and _eigen_jacobi_svd.affordable(x.shape):
            # TF's CPU kernel runs Eigen's JacobiSVD here: its singular vectors' signs.
            s, uu, vv = _eigen_jacobi_svd.svd(np.asarray(x), full)
            return (s, uu, vv)
        uu, s, vh = xp.linalg.svd(x, full_matrices=full)
        return (s.astype(real), uu.astype(x.dtype), _adjoint(xp, vh).astype(x.dtype))

    return compute


@kernel("SelfAdjointEigV2")
def self_adjoint_eig(node: Any, xp: Any) -> Compute:
    compute_v = bool(node.attrs.get("compute_v", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if _empty_batch(x):
            return (xp.zeros(x.shape[:-1], x.dtype), xp.zeros_like(x))
        e, v = self_adjoint_eigen(xp, x, compute_v)
        return (e, v if compute_v else xp.zeros((0,), x.dtype))

    return compute


def self_adjoint_eigen(xp: Any, x: Any, compute_v: bool) -> tuple[Any, Any]:
    """Eigenvalues (ascending, in x's dtype) and eigenvectors (None unless compute_v) of the
    self-adjoint matrices whose lower triangles x holds. On CPU Eigen's own algorithm, so the
    vectors' signs are TF's; cupy's solver on GPU (TF's GPU kernel is cuSOLVER's too)."""
    if u.is_numpy(xp):
        try:
            e, v = _eigen_selfadjoint.eigh(np.asarray(x), compute_v)
        except _eigen_selfadjoint.NoConvergence:
            raise u.invalid(_EIG_FAILED) from None
        return e.astype(x.dtype), None if v is None else v.astype(x.dtype)
    sym = xp.tril(x) + _adjoint(xp, xp.tril(x, -1))
    if not compute_v:
        return xp.linalg.eigvalsh(sym).astype(x.dtype), None
    e, v = xp.linalg.eigh(sym)
    return e.astype(x.dtype), v.astype(x.dtype)


_EIG_FAILED = "Self-adjoint eigen decomposition was not successful. The input might not be valid."


def _check_rhs(matrix: Any, rhs: Any) -> None:
    if rhs.ndim < 2:
        raise u.invalid(f"Input rhs must have rank >= 2, got {rhs.ndim}")
    if matrix.shape[:-2] != rhs.shape[:-2] or matrix.shape[-2] != rhs.shape[-2]:
        raise u.invalid(
            f"Incompatible shapes: matrix {u.shape_str(matrix.shape)} and rhs "
            f"{u.shape_str(rhs.shape)}"
        )


@kernel("MatrixSolve")
def matrix_solve(node: Any, xp: Any) -> Compute:
    adjoint = bool(node.attrs.get("adjoint", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        matrix, rhs = ins
        _square(matrix)
        _check_rhs(matrix, rhs)
        if _empty_batch(matrix) or _empty_batch(rhs):
            return (xp.zeros_like(rhs),)
        a = _adjoint(xp, matrix) if adjoint else matrix
        try:
            out = xp.linalg.solve(a, rhs)
        except _linalg_error(xp):
            raise u.invalid("Input matrix is not invertible.") from None
        return (_finite_or(xp, out, "Input matrix is not invertible.").astype(rhs.dtype),)

    return compute


def triangular_solve(xp: Any, matrix: Any, rhs: Any, lower: bool, adjoint: bool) -> Any:
    """Solves with the lower (or upper) triangle of matrix; a zero on the diagonal is a
    singular matrix."""
    tri = xp.tril(matrix) if lower else xp.triu(matrix)
    if bool(xp.any(xp.diagonal(tri, axis1=-2, axis2=-1) == 0)):
        raise u.invalid("Input matrix is not invertible.")
    a = _adjoint(xp, tri) if adjoint else tri
    return xp.linalg.solve(a, rhs)


@kernel("MatrixTriangularSolve")
def matrix_triangular_solve(node: Any, xp: Any) -> Compute:
    lower = bool(node.attrs.get("lower", True))
    adjoint = bool(node.attrs.get("adjoint", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        matrix, rhs = ins
        _square(matrix)
        _check_rhs(matrix, rhs)
        if _empty_batch(matrix) or _empty_batch(rhs):
            return (xp.zeros_like(rhs),)
        return (triangular_solve(xp, matrix, rhs, lower, adjoint).astype(rhs.dtype),)

    return compute


@kernel("MatrixSolveLs", host=(2,))
def matrix_solve_ls(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        matrix, rhs, l2_t = ins
        if matrix.ndim < 2:
            raise u.invalid(f"Input matrix must have rank >= 2, got {matrix.ndim}")
        _check_rhs(matrix, rhs)
        l2 = float(u.host(l2_t))
        m, n = matrix.shape[-2:]
        if _empty_batch(matrix) or _empty_batch(rhs):
            return (xp.zeros((*rhs.shape[:-2], n, rhs.shape[-1]), rhs.dtype),)
        adj = _adjoint(xp, matrix)
        try:
            if m >= n:
                gram = adj @ matrix + l2 * xp.eye(n, dtype=matrix.dtype)
                out = xp.linalg.solve(gram, adj @ rhs)
            else:
                gram = matrix @ adj + l2 * xp.eye(m, dtype=matrix.dtype)
                out = adj @ xp.linalg.solve(gram, rhs)
        except _linalg_error(xp):
            raise u.invalid("Input matrix is rank deficient.") from None
        return (_finite_or(xp, out, "Input matrix is rank deficient.").astype(rhs.dtype),)

    return compute


@kernel("Lu")
def lu(node: Any, xp: Any) -> Compute:
    """Doolittle LU with partial pivoting: one vectorised step per column (over the batch)."""
    idx_dtype = u.np_dtype(node, "output_idx_type")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        n = x.shape[-1]
        batch = x.shape[:-2]
        a = x.reshape((-1, n, n)).astype(x.dtype, copy=True)
        count = a.shape[0]
        perm = xp.broadcast_to(xp.arange(n), (count, n)).copy()
        rows = xp.arange(count)
        for k in range(n):
            pivot = k + xp.argmax(xp.abs(a[:, k:, k]), axis=1)
            if bool(xp.any(a[rows, pivot, k] == 0)):
                raise u.invalid("Input is not invertible.")
            # Swap rows k and pivot (in the matrix and the permutation).
            row_k, row_p = a[rows, k].copy(), a[rows, pivot].copy()
            a[rows, k], a[rows, pivot] = row_p, row_k
            perm_k, perm_p = perm[rows, k].copy(), perm[rows, pivot].copy()
            perm[rows, k], perm[rows, pivot] = perm_p, perm_k
            factors = a[:, k + 1 :, k] / a[:, k : k + 1, k]
            a[:, k + 1 :, k] = factors
            a[:, k + 1 :, k + 1 :] -= factors[:, :, None] * a[:, k : k + 1, k + 1 :]
        return (a.reshape(x.shape), perm.reshape((*batch, n)).astype(idx_dtype))

    return compute


# Pade coefficients of degree 13 (Higham 2005) and the 1-norm bound under which it is exact.
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def expm(xp: Any, x: Any) -> Any:
    """exp of each matrix: scaling and squaring with the [13/13] Pade approximant."""
    a = x.astype(np.float64 if x.dtype.kind != "c" else np.complex128)
    n = a.shape[-1]
    norm = xp.max(xp.sum(xp.abs(a), axis=-2), axis=-1) if n else xp.zeros(a.shape[:-2])
    with np.errstate(all="ignore"):
        squarings = xp.maximum(xp.ceil(xp.log2(norm / _THETA13)), 0.0)
    squarings = xp.where(xp.isfinite(squarings), squarings, 0.0)
    a = a / (2.0**squarings)[..., None, None]
    ident = xp.broadcast_to(xp.eye(n, dtype=a.dtype), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = _PADE13
    u_inner = a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
    uu = a @ (u_inner + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v_inner = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
    vv = v_inner + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    r = xp.linalg.solve(vv - uu, vv + uu)
    # Square each matrix as often as its own scaling needs (the batch shares the loop).
    steps = int(u.host(squarings.max())) if squarings.size else 0
    for i in range(steps):
        more = (squarings > i)[..., None, None]
        r = xp.where(more, r @ r, r)
    return r.astype(x.dtype)


@kernel("MatrixExponential")
def matrix_exponential(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        _square(x)
        if _empty_batch(x):
            return (xp.zeros_like(x),)
        return (expm(xp, x),)

    return compute


# ---- diagonals and bands -------------------------------------------------------------------
_ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _k_range(xp: Any, k: Any) -> tuple[int, int]:
    ks = u.host_ints(k)
    if len(ks) not in (1, 2):
        raise u.invalid(f"diag_index must be a scalar or a vector of 2 elements, got {ks}")
    lo, hi = ks[0], ks[-1]
    if lo > hi:
        raise u.invalid(f"lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}")
    return lo, hi


def _diag_len(m: int, n: int, d: int) -> int:
    return max(0, min(m + min(0, d), n - max(0, d)))


def diag_coords(
    m: int, n: int, lo: int, hi: int, max_len: int, align: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every entry of diagonals lo..hi of an m x n matrix: (row in the packed diagonals,
    column in the packed diagonals, matrix row, matrix column). Diagonals are packed from hi
    down to lo, each aligned left or right within max_len as `align` says."""
    left_super = align.startswith("LEFT")
    left_sub = align.endswith("LEFT")
    packed_rows, packed_cols, mat_i, mat_j = [], [], [], []
    for d in range(hi, lo - 1, -1):
        length = _diag_len(m, n, d)
        offset = 0 if (d >= 0 and left_super) or (d <= 0 and left_sub) else max_len - length
        j = np.arange(length)
        packed_rows.append(np.full(length, hi - d))
        packed_cols.append(offset + j)
        mat_i.append(j - min(d, 0))
        mat_j.append(j + max(d, 0))
    cat = [np.concatenate(v).astype(np.int64) for v in (packed_rows, packed_cols, mat_i, mat_j)]
    return cat[0], cat[1], cat[2], cat[3]


def _align(node: Any, version: int) -> str:
    if version < 3:
        return "LEFT_LEFT"
    align = node.attrs.get("align", "RIGHT_LEFT")
    if align not in _ALIGNS:
        raise u.invalid(f"align must be one of {', '.join(_ALIGNS)}, got {align}")
    return str(align)


def _matrix_diag(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        align = _align(node, version)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            diagonal = ins[0]
            if version == 1:
                lo = hi = 0
                rows_req = cols_req = -1
                padding = xp.zeros((), diagonal.dtype)
            else:
                lo, hi = _k_range(xp, ins[1])
                rows_req = u.host_int(ins[2], "num_rows")
                cols_req = u.host_int(ins[3], "num_cols")
                padding = ins[4].astype(diagonal.dtype)
            if diagonal.ndim < (1 if lo == hi else 2):
                raise u.invalid(f"diagonal must be at least 1-dim, got {diagonal.ndim}")
            max_len = diagonal.shape[-1]
            if lo != hi and diagonal.shape[-2] != hi - lo + 1:
                raise u.invalid(
                    f"The number of diagonals provided in the input does not match "
                    f"lower_diag_index and upper_diag_index range: {diagonal.shape[-2]} vs. "
                    f"{hi - lo + 1}"
                )
            min_rows = max_len - min(hi, 0)
            min_cols = max_len + max(lo, 0)
            if rows_req == -1 and cols_req == -1:
                rows_req = cols_req = max(min_rows, min_cols)
            elif rows_req == -1:
                rows_req = min_rows
            elif cols_req == -1:
                cols_req = min_cols
            if rows_req < min_rows or cols_req < min_cols:
                raise u.invalid(
                    f"The number of rows ({rows_req}) or columns ({cols_req}) is too small for "
                    f"the diagonals (at least {min_rows} x {min_cols})"
                )
            batch = diagonal.shape[: diagonal.ndim - (1 if lo == hi else 2)]
            packed = diagonal.reshape((*batch, hi - lo + 1, max_len))
            pr, pc, mi, mj = diag_coords(rows_req, cols_req, lo, hi, max_len, align)
            out = xp.full((*batch, rows_req, cols_req), padding, dtype=diagonal.dtype)
            out[..., xp.asarray(mi), xp.asarray(mj)] = packed[..., xp.asarray(pr), xp.asarray(pc)]
            return (out,)

        return compute

    return factory


def _matrix_diag_part(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        align = _align(node, version)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = ins[0]
            if x.ndim < 2:
                raise u.invalid(
                    f"input must be at least 2-dim, received shape: {u.shape_str(x.shape)}"
                )
            m, n = x.shape[-2:]
            if version == 1:
                lo = hi = 0
                padding = xp.zeros((), x.dtype)
            else:
                lo, hi = _k_range(xp, ins[1])
                padding = ins[2].astype(x.dtype)
            if (lo != 0 and not -m < lo < n) or (hi != 0 and not -m < hi < n):
                raise u.invalid(f"diag_index is out of bounds: [{lo}, {hi}] for a {m} x {n} matrix")
            max_len = max(_diag_len(m, n, d) for d in range(lo, hi + 1))
            batch = x.shape[:-2]
            pr, pc, mi, mj = diag_coords(m, n, lo, hi, max_len, align)
            out = xp.full((*batch, hi - lo + 1, max_len), padding, dtype=x.dtype)
            out[..., xp.asarray(pr), xp.asarray(pc)] = x[..., xp.asarray(mi), xp.asarray(mj)]
            return (out[..., 0, :] if lo == hi else out,)

        return compute

    return factory


def _matrix_set_diag(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        align = _align(node, version)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, diagonal = ins[0], ins[1]
            if x.ndim < 2:
                raise u.invalid(
                    f"input must be at least 2-dim, received shape: {u.shape_str(x.shape)}"
                )
            m, n = x.shape[-2:]
            lo, hi = (0, 0) if version == 1 else _k_range(xp, ins[2])
            max_len = max(_diag_len(m, n, d) for d in range(lo, hi + 1))
            batch = x.shape[:-2]
            want = (*batch, max_len) if lo == hi else (*batch, hi - lo + 1, max_len)
            if tuple(diagonal.shape) != want:
                raise u.invalid(
                    f"diagonal must have shape {u.shape_str(want)}, got "
                    f"{u.shape_str(diagonal.shape)}"
                )
            packed = diagonal.reshape((*batch, hi - lo + 1, max_len))
            pr, pc, mi, mj = diag_coords(m, n, lo, hi, max_len, align)
            out = x.copy()
            out[..., xp.asarray(mi), xp.asarray(mj)] = packed[..., xp.asarray(pr), xp.asarray(pc)]
            return (out,)

        return compute

    return factory


kernel("MatrixDiag")(_matrix_diag(1))
kernel("MatrixDiagV2", host=(1, 2, 3))(_matrix_diag(2))
kernel("MatrixDiagV3", host=(1, 2, 3))(_matrix_diag(3))
kernel("MatrixDiagPart")(_matrix_diag_part(1))
kernel("MatrixDiagPartV2", host=(1,))(_matrix_diag_part(2))
kernel("MatrixDiagPartV3", host=(1,))(_matrix_diag_part(3))
kernel("MatrixSetDiag")(_matrix_set_diag(1))
kernel("MatrixSetDiagV2", host=(2,))(_matrix_set_diag(2))
kernel("MatrixSetDiagV3", host=(2,))(_matrix_set_diag(3))


@kernel("Diag")
def diag(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        d = ins[0]
        if d.ndim < 1:
            raise u.invalid(f"Input must be at least rank 1, got {d.ndim}")
        size = d.size
        out = xp.zeros((size, size), dtype=d.dtype)
        idx = xp.arange(size)
        out[idx, idx] = d.reshape(-1)
        return (out.reshape(d.shape + d.shape),)

    return compute


@kernel("DiagPart")
def diag_part(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        half = x.ndim // 2
        if x.ndim == 0 or x.ndim % 2 or x.shape[:half] != x.shape[half:]:
            raise u.invalid(
                f"The input must be of even rank with matching halves, got {u.shape_str(x.shape)}"
            )
        size = int(np.prod(x.shape[:half], dtype=np.int64))
        idx = xp.arange(size)
        return (x.reshape(size, size)[idx, idx].reshape(x.shape[:half]),)

    return compute


@kernel("Cross")
def cross(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = ins
        if a.shape != b.shape:
            raise u.invalid(
                f"Both inputs must be of same shape: {u.shape_str(a.shape)} vs. "
                f"{u.shape_str(b.shape)}"
            )
        if a.ndim < 1 or a.shape[-1] != 3:
            raise u.invalid(f"Trailing dimension must be 3, got {u.shape_str(a.shape)}")
        return (xp.cross(a, b).astype(a.dtype),)

    return compute


@kernel("Einsum")
def einsum(node: Any, xp: Any) -> Compute:
    equation = str(node.attrs["equation"]).replace(" ", "")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        try:
            out = xp.einsum(equation, *ins)
        except ValueError as e:
            raise u.invalid(f"Einsum '{equation}': {e}") from None
        return (xp.asarray(out).astype(ins[0].dtype, copy=False),)

    return compute
