"""Tridiagonal systems over xp: TridiagonalMatMul and TridiagonalSolve, batched.

Diagonals come as TF lays them out: [..., 3, m] rows superdiagonal (its last entry unused),
main diagonal, subdiagonal (its first entry unused). The solve is Gaussian elimination with
partial pivoting (LAPACK's gtsv: a row swap adds a second superdiagonal), or the plain Thomas
algorithm without it; it walks the m rows once, each step vectorised over the batch and the
right-hand sides. A strictly diagonally dominant system (the usual one: splines, implicit
schemes), which neither needs nor takes a pivot, is solved by parallel cyclic reduction
instead: log2(m) steps each vectorised over all rows, rather than m small steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("TridiagonalMatMul")
def tridiagonal_matmul(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        sup, main, sub, rhs = ins
        m = rhs.shape[-2]
        for name, d in (("superdiag", sup), ("maindiag", main), ("subdiag", sub)):
            if d.shape[-1] != m or d.shape[-2] != 1:
                raise u.invalid(
                    f"Expected {name} to have shape [..., 1, {m}], got {u.shape_str(d.shape)}"
                )
        out = xp.swapaxes(main, -1, -2) * rhs
        if m > 1:
            out[..., :-1, :] += xp.swapaxes(sup[..., :-1], -1, -2) * rhs[..., 1:, :]
            out[..., 1:, :] += xp.swapaxes(sub[..., 1:], -1, -2) * rhs[..., :-1, :]
        return (out,)

    return compute


def _dominant(xp: Any, sup: Any, main: Any, sub: Any) -> bool:
    """Whether every row's diagonal outweighs the rest of the row (no pivot is ever taken)."""
    off = xp.abs(sub[..., 1:])
    rest = xp.concatenate([xp.zeros_like(off[..., :1]), off], axis=-1)
    off_sup = xp.abs(sup[..., :-1])
    rest = rest + xp.concatenate([off_sup, xp.zeros_like(off_sup[..., :1])], axis=-1)
    return bool(xp.all(xp.abs(main) > rest))


def _cyclic_reduction(xp: Any, sup: Any, main: Any, sub: Any, rhs: Any) -> Any:
    """Parallel cyclic reduction: each step eliminates the neighbours at distance s from every
    row at once (doubling s), until each row holds one unknown."""
    m = main.shape[-1]
    a = sub.copy()
    a[..., 0] = 0
    c = sup.copy()
    c[..., -1] = 0
    b, d = main.copy(), rhs.copy()

    def shifted(v: Any, s: int, fill: float, rows: bool = False) -> tuple[Any, Any]:
        """(v[i - s], v[i + s]) along the row axis, `fill` outside."""
        axis = -2 if rows else -1
        pad = [(0, 0)] * v.ndim
        pad[axis] = (s, s)
        wide = xp.pad(v, pad, constant_values=fill)
        index = [slice(None)] * v.ndim
        index[axis] = slice(0, m)
        before = wide[tuple(index)]
        index[axis] = slice(2 * s, 2 * s + m)
        return before, wide[tuple(index)]

    s = 1
    while s < m:
        a_lo, a_hi = shifted(a, s, 0.0)
        b_lo, b_hi = shifted(b, s, 1.0)
        c_lo, c_hi = shifted(c, s, 0.0)
        d_lo, d_hi = shifted(d, s, 0.0, rows=True)
        alpha, gamma = -a / b_lo, -c / b_hi
        b = b + alpha * c_lo + gamma * a_hi
        d = d + alpha[..., None] * d_lo + gamma[..., None] * d_hi
        a, c = alpha * a_lo, gamma * c_hi
        s *= 2
    return d / b[..., None]


def _solve(xp: Any, diags: Any, rhs: Any, pivoting: bool) -> Any:
    """x with A x = rhs for A given by its diagonals; ValueError where a pivot is zero."""
    sup, main, sub = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    m = main.shape[-1]
    dtype = rhs.dtype
    if m > 8 and _dominant(xp, sup, main, sub):
        return _cyclic_reduction(xp, sup, main, sub, rhs).astype(dtype, copy=False)
    # Row i after elimination: d x_i + u1 x_(i+1) + u2 x_(i+2) = r.
    d = main[..., 0]
    u1 = sup[..., 0] if m > 1 else xp.zeros_like(d)
    u2 = xp.zeros_like(d)
    r = rhs[..., 0, :]
    rows: list[tuple[Any, Any, Any, Any]] = []
    for i in range(m - 1):
        low = sub[..., i + 1]
        nd, nu1 = main[..., i + 1], (sup[..., i + 1] if i + 2 < m else xp.zeros_like(d))
        nr = rhs[..., i + 1, :]
        swap = xp.abs(low) > xp.abs(d) if pivoting else xp.zeros(d.shape, dtype=bool)
        # Pivot row p (columns i, i+1, i+2) and the row o it eliminates from.
        p0, p1, p2 = xp.where(swap, low, d), xp.where(swap, nd, u1), xp.where(swap, nu1, u2)
        pr = xp.where(swap[..., None], nr, r)
        o0, o1, o2 = xp.where(swap, d, low), xp.where(swap, u1, nd), xp.where(swap, u2, nu1)
        orr = xp.where(swap[..., None], r, nr)
        if bool(xp.any(p0 == 0)):
            raise ValueError(i)
        f = o0 / p0
        rows.append((p0, p1, p2, pr))
        d, u1, u2, r = o1 - f * p1, o2 - f * p2, xp.zeros_like(d), orr - f[..., None] * pr
    if bool(xp.any(d == 0)):
        raise ValueError(m - 1)
    rows.append((d, u1, u2, r))
    x = xp.empty(rhs.shape, dtype)
    nxt = nxt2 = None
    for i in range(m - 1, -1, -1):
        p0, p1, p2, pr = rows[i]
        value = pr
        if nxt is not None:
            value = value - p1[..., None] * nxt
        if nxt2 is not None:
            value = value - p2[..., None] * nxt2
        x[..., i, :] = value / p0[..., None]
        nxt, nxt2 = x[..., i, :], nxt
    return x


@kernel("TridiagonalSolve")
def tridiagonal_solve(node: Any, xp: Any) -> Compute:
    pivoting = bool(node.attrs.get("partial_pivoting", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        diags, rhs = ins
        if diags.ndim < 2 or diags.shape[-2] != 3:
            raise u.invalid(
                f"Expected diagonals to have shape [..., 3, M], got {u.shape_str(diags.shape)}"
            )
        if rhs.ndim < 2 or rhs.shape[-2] != diags.shape[-1]:
            raise u.invalid(
                "Expected the number of left-hand sides to equal the number of right-hand "
                f"sides: diagonals {u.shape_str(diags.shape)}, rhs {u.shape_str(rhs.shape)}"
            )
        if rhs.size == 0:
            return (xp.zeros(rhs.shape, rhs.dtype),)
        try:
            return (_solve(xp, diags, rhs, pivoting),)
        except ValueError:
            if pivoting:
                raise u.invalid("The matrix is not invertible.") from None
            raise u.invalid(
                "The matrix is either not invertible, or requires pivoting. Try setting "
                "partial_pivoting = True."
            ) from None

    return compute
