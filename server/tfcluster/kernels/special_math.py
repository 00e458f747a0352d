"""Special functions over xp (numpy has none of them, and the project does not depend on
scipy): erf, erfc, lgamma, digamma, the regularized incomplete gamma and beta functions,
Hurwitz zeta, polygamma and the scaled modified Bessel functions I0e/I1e.

Every function works in float64 whatever the op's dtype (results are cast back), with the
classic algorithms: Lanczos' approximation for lgamma, the asymptotic series plus recurrence
for digamma, Legendre's series and continued fraction for the incomplete gamma function (and
with it erf/erfc), Lentz's continued fraction for the incomplete beta function, the
Euler-Maclaurin sum for zeta, power series and asymptotic expansions for the Bessel
functions. Iterative parts loop over iterations, never over elements, and stop as soon as
every element has converged.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_double
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]

_EPS = np.finfo(np.float64).eps
# Converged when a step changes the result by less than this (a few ulps: rounding can keep
# the last step's factor a bit or two away from exactly 1).
_TOL = 4 * _EPS
_TINY = 1e-300
_MAX_ITER = 2000
_CHECK_EVERY = 8

# Lanczos' coefficients for g = 7, n = 9 (accurate to about 1e-15 for Re(z) > 0.5).
_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def lgamma(xp: Any, x: Any) -> Any:
    """log|Gamma(x)|; +inf at the poles (0, -1, -2, ...)."""
    x = xp.asarray(x, dtype=np.float64)
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x) - 1.0
    series = xp.full(z.shape, _LANCZOS[0])
    for i, coef in enumerate(_LANCZOS[1:], 1):
        series = series + coef / (z + i)
    t = z + _LANCZOS_G + 0.5
    with np.errstate(all="ignore"):
        direct = _HALF_LOG_2PI + (z + 0.5) * xp.log(t) - t + xp.log(series)
        # Gamma(x) Gamma(1 - x) = pi / sin(pi x); |sin(pi x)| from the distance to the
        # nearest integer keeps its zeros exact and its small values precise.
        sin_pi = xp.abs(xp.sin(math.pi * (x - xp.round(x))))
        reflected = math.log(math.pi) - xp.log(sin_pi) - direct
    out = xp.where(reflect, reflected, direct)
    pole = (x <= 0) & (x == xp.floor(x))
    out = xp.where(pole, np.inf, out)
    # Gamma(1) = Gamma(2) = 1: exact zeros, as the C library gives.
    out = xp.where((x == 1.0) | (x == 2.0), 0.0, out)
    return xp.where(xp.isinf(x), np.inf, out)


def digamma(xp: Any, x: Any) -> Any:
    """psi(x) = d/dx log Gamma(x); NaN at the poles (0, -1, -2, ...) as in TF."""
    x = xp.asarray(x, dtype=np.float64)
    reflect = x < 0.5
    y = xp.where(reflect, 1.0 - x, x)
    shift = xp.zeros_like(y)
    # psi(y) = psi(y + 1) - 1 / y until y >= 10, where the asymptotic series is exact enough.
    for _ in range(10):
        small = y < 10.0
        if not bool(xp.any(small)):
            break
        shift = shift - xp.where(small, 1.0 / xp.where(small, y, 1.0), 0.0)
        y = xp.where(small, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    tail = inv2 * (
        1.0 / 12
        - inv2
        * (
            1.0 / 120
            - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * 691.0 / 32760)))
        )
    )
    psi = xp.log(y) - 0.5 / y - tail + shift
    with np.errstate(all="ignore"):
        # tan has period pi: the distance to the nearest integer keeps it precise.
        psi = xp.where(reflect, psi - math.pi / xp.tan(math.pi * (x - xp.round(x))), psi)
    pole = (x <= 0) & (x == xp.floor(x))
    psi = xp.where(pole, np.nan, psi)
    return xp.where(x == np.inf, np.inf, psi)


State = dict[str, Any]


def _converge(xp: Any, state: State, step: Callable[[State, int], Any], result: str) -> Any:
    """Iterates `step(state, i)` (it updates the arrays of `state`, all of one length, and
    returns which elements are still moving) until every element has converged or the cap.
    Converged elements leave the state as they finish, so later iterations only touch the
    slow ones; `state[result]` of each element, once final, goes into the returned array."""
    n = next(iter(state.values())).shape[0]
    out = xp.empty(n, dtype=np.float64)
    index = xp.arange(n)
    for i in range(1, _MAX_ITER + 1):
        moving = step(state, i)
        if i % _CHECK_EVERY and i != _MAX_ITER:
            continue
        finished = ~moving
        if bool(finished.any()):
            out[index[finished]] = state[result][finished]
            index = index[moving]
            for key, value in state.items():
                state[key] = value[moving]
            if index.size == 0:
                return out
    out[index] = state[result]
    return out


def _igamma_prefix(xp: Any, a: Any, x: Any) -> Any:
    """x^a e^-x / Gamma(a), in logs so large arguments do not overflow."""
    with np.errstate(all="ignore"):
        return xp.exp(a * xp.log(x) - x - lgamma(xp, a))


def _series_step(state: State, i: int) -> Any:
    state["ap"] = state["ap"] + 1.0
    state["term"] = state["term"] * state["x"] / state["ap"]
    state["total"] = state["total"] + state["term"]
    return abs(state["term"]) > abs(state["total"]) * _TOL


def _igamma_series(xp: Any, a: Any, x: Any) -> Any:
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum x^n / ((a + 1) ... (a + n)), for x < a + 1."""
    term = 1.0 / a
    state = {"x": x, "ap": a.copy(), "term": term, "total": term.copy()}
    return _converge(xp, state, _series_step, "total") * _igamma_prefix(xp, a, x)


def _tiny_guard(xp: Any, v: Any) -> Any:
    return xp.where(abs(v) < _TINY, _TINY, v)


def _fraction_step_for(xp: Any) -> Callable[[State, int], Any]:
    def step(state: State, i: int) -> Any:
        an = -i * (i - state["a"])
        b = state["b"] + 2.0
        d = 1.0 / _tiny_guard(xp, an * state["d"] + b)
        c = _tiny_guard(xp, b + an / state["c"])
        delta = d * c
        state["b"], state["c"], state["d"] = b, c, d
        state["h"] = state["h"] * delta
        return abs(delta - 1.0) > _TOL

    return step


def _igammac_fraction(xp: Any, a: Any, x: Any) -> Any:
    """Q(a, x) by Legendre's continued fraction (modified Lentz), for x >= a + 1."""
    b = x + 1.0 - a
    d = 1.0 / b
    state = {"a": a, "b": b, "c": xp.full(a.shape, 1.0 / _TINY), "d": d, "h": d.copy()}
    h = _converge(xp, state, _fraction_step_for(xp), "h")
    return h * _igamma_prefix(xp, a, x)


def igamma_pq(xp: Any, a: Any, x: Any) -> tuple[Any, Any]:
    """The regularized lower and upper incomplete gamma functions P(a, x), Q(a, x)."""
    a, x = xp.broadcast_arrays(xp.asarray(a, np.float64), xp.asarray(x, np.float64))
    a, x = a.copy(), x.copy()
    p = xp.full(a.shape, np.nan)
    q = xp.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0) & ~xp.isnan(a) & ~xp.isnan(x)
    zero = valid & (x == 0)
    inf = valid & xp.isinf(x) & ~zero
    by_series = valid & ~zero & ~inf & (x < a + 1.0)
    by_fraction = valid & ~zero & ~inf & ~by_series
    p[zero], q[zero] = 0.0, 1.0
    p[inf], q[inf] = 1.0, 0.0
    if bool(xp.any(by_series)):
        ps = _igamma_series(xp, a[by_series], x[by_series])
        p[by_series], q[by_series] = ps, 1.0 - ps
    if bool(xp.any(by_fraction)):
        qf = _igammac_fraction(xp, a[by_fraction], x[by_fraction])
        p[by_fraction], q[by_fraction] = 1.0 - qf, qf
    return p, q


def erf(xp: Any, x: Any) -> Any:
    """erf(x) = sign(x) P(1/2, x^2)."""
    x = xp.asarray(x, dtype=np.float64)
    p, _ = igamma_pq(xp, xp.full(x.shape, 0.5), x * x)
    return xp.where(xp.isnan(x), np.nan, xp.sign(x) * p)


def erfc(xp: Any, x: Any) -> Any:
    """erfc(x) = Q(1/2, x^2) for x >= 0, 2 - Q(1/2, x^2) below: exact in the far tail."""
    x = xp.asarray(x, dtype=np.float64)
    _, q = igamma_pq(xp, xp.full(x.shape, 0.5), x * x)
    return xp.where(xp.isnan(x), np.nan, xp.where(x >= 0, q, 2.0 - q))


def _betacf_step_for(xp: Any) -> Callable[[State, int], Any]:
    def step(state: State, m: int) -> Any:
        a, b, x = state["a"], state["b"], state["x"]
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2))
        d = 1.0 / _tiny_guard(xp, 1.0 + aa * state["d"])
        c = _tiny_guard(xp, 1.0 + aa / state["c"])
        h = state["h"] * d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))
        d = 1.0 / _tiny_guard(xp, 1.0 + aa * d)
        c = _tiny_guard(xp, 1.0 + aa / c)
        delta = d * c
        state["c"], state["d"], state["h"] = c, d, h * delta
        return abs(delta - 1.0) > _TOL

    return step


def _betacf(xp: Any, a: Any, b: Any, x: Any) -> Any:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    d = 1.0 / _tiny_guard(xp, 1.0 - (a + b) * x / (a + 1.0))
    state = {"a": a, "b": b, "x": x, "c": xp.ones(a.shape), "d": d, "h": d.copy()}
    return _converge(xp, state, _betacf_step_for(xp), "h")


def lbeta(xp: Any, a: Any, b: Any) -> Any:
    return lgamma(xp, a) + lgamma(xp, b) - lgamma(xp, a + b)


def betainc(xp: Any, a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = (xp.asarray(v, np.float64) for v in xp.broadcast_arrays(a, b, x))
    out = xp.full(a.shape, np.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    inner = valid & (x > 0) & (x < 1)
    if bool(xp.any(inner)):
        ai, bi, xi = a[inner], b[inner], x[inner]
        with np.errstate(all="ignore"):
            front = xp.exp(ai * xp.log(xi) + bi * xp.log1p(-xi) - lbeta(xp, ai, bi))
        # The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry
        # I_x(a, b) = 1 - I_{1-x}(b, a) beyond.
        swap = xi >= (ai + 1.0) / (ai + bi + 2.0)
        aa, bb = xp.where(swap, bi, ai), xp.where(swap, ai, bi)
        xx = xp.where(swap, 1.0 - xi, xi)
        frac = front * _betacf(xp, aa, bb, xx) / aa
        out[inner] = xp.where(swap, 1.0 - frac, frac)
    return out


def _zeta_coefficients() -> tuple[float, ...]:
    """(2j)! / B_2j for j = 1..12: the Euler-Maclaurin correction terms of the zeta sum."""
    bernoulli = [
        Fraction(1, 6),
        Fraction(-1, 30),
        Fraction(1, 42),
        Fraction(-1, 30),
        Fraction(5, 66),
        Fraction(-691, 2730),
        Fraction(7, 6),
        Fraction(-3617, 510),
        Fraction(43867, 798),
        Fraction(-174611, 330),
        Fraction(854513, 138),
        Fraction(-236364091, 2730),
    ]
    return tuple(float(math.factorial(2 * j) / b) for j, b in enumerate(bernoulli, 1))


_ZETA_A = _zeta_coefficients()
_ZETA_TERMS = 9
# Negative q needs one direct term per unit below 9: capped (far below, zeta is ~0 anyway).
_ZETA_MAX_SHIFT = 10000


def zeta(xp: Any, x: Any, q: Any) -> Any:
    """The Hurwitz zeta function sum_k (q + k)^-x, for x > 1 (Cephes' algorithm)."""
    x, q = (xp.asarray(v, np.float64) for v in xp.broadcast_arrays(x, q))
    out = xp.full(x.shape, np.nan)
    out[x == 1] = np.inf
    q_pole = (q <= 0) & (q == xp.floor(q))
    valid = (x > 1) & ~q_pole & ~((q <= 0) & (x != xp.floor(x)))
    out[(x > 1) & q_pole] = np.inf
    if not bool(xp.any(valid)):
        return out
    xv, qv = x[valid], q[valid]
    # Sum the first terms directly until q + k is past 9 (at least 9 of them).
    per_elem = _ZETA_TERMS + xp.minimum(xp.maximum(xp.ceil(9.0 - qv), 0.0), _ZETA_MAX_SHIFT)
    count = int(u.host(per_elem.max()))
    total = xp.zeros(xv.shape)
    with np.errstate(all="ignore"):
        for term in range(count):
            total = total + xp.where(term < per_elem, (qv + term) ** -xv, 0.0)
        w = qv + per_elem
        b = w**-xv
        total = total + b * w / (xv - 1.0) + 0.5 * b
        factor = xp.ones(xv.shape)
        k = 0.0
        for coef in _ZETA_A:
            factor = factor * (xv + k)
            b = b / w
            total = total + factor * b / coef
            k += 1.0
            factor = factor * (xv + k)
            b = b / w
            k += 1.0
    out[valid] = total
    return out


def polygamma(xp: Any, n: Any, x: Any) -> Any:
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x); digamma for n = 0; NaN for other n."""
    n, x = (xp.asarray(v, np.float64) for v in xp.broadcast_arrays(n, x))
    integral = (n == xp.floor(n)) & (n >= 0)
    safe_n = xp.where(integral, n, 1.0)
    factorial = xp.exp(lgamma(xp, safe_n + 1.0))
    sign = xp.where(xp.fmod(safe_n, 2.0) == 0, -1.0, 1.0)
    higher = sign * factorial * zeta(xp, safe_n + 1.0, x)
    out = xp.where(n == 0, digamma(xp, x), higher)
    return xp.where(integral, out, np.nan)


_BESSEL_SERIES_LIMIT = 20.0


def _bessel_ie(xp: Any, x: Any, order: int) -> Any:
    """exp(-|x|) I_order(x) for order 0 or 1: the power series up to |x| = 20, the
    asymptotic expansion beyond."""
    x = xp.asarray(x, dtype=np.float64)
    ax = xp.abs(x)
    out = xp.zeros(x.shape)
    small = ax <= _BESSEL_SERIES_LIMIT
    if bool(xp.any(small)):
        s = ax[small]
        quarter = s * s / 4.0
        term = xp.ones(s.shape)
        total = term.copy()
        for k in range(1, 80):
            term = term * quarter / (k * (k + order))
            total = total + term
        lead = 1.0 if order == 0 else s / 2.0
        out[small] = lead * total * xp.exp(-s)
    large = ~small & ~xp.isnan(x)
    if bool(xp.any(large)):
        s = ax[large]
        mu = 4.0 * order * order
        term = xp.ones(s.shape)
        total = term.copy()
        for k in range(1, 30):
            term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * s)
            total = total + term
        out[large] = total / xp.sqrt(2.0 * math.pi * s)
    out = xp.where(xp.isnan(x), np.nan, out)
    return out if order == 0 else xp.sign(x) * out


def _unary(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            with np.errstate(all="ignore"):
                return (fn(xp, ins[0]).astype(dtype),)

        return compute

    return factory


def _nary(fn: Callable[..., Any], same_shapes: bool = False) -> Callable[[Any, Any], Compute]:
    """Element-wise ops of 2 or 3 inputs: broadcasting (or, as TF's Betainc wants, equal
    shapes where not scalars)."""

    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shapes = [tuple(v.shape) for v in ins]
            if same_shapes:
                full = {s for s in shapes if s}
                if len(full) > 1:
                    listed = ", ".join(u.shape_str(s) for s in shapes)
                    raise u.invalid(f"Shapes of a, b and x are inconsistent: {listed}")
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                listed = " vs. ".join(u.shape_str(s) for s in shapes)
                raise u.invalid(f"Incompatible shapes: {listed}") from None
            with np.errstate(all="ignore"):
                return (fn(xp, *ins).astype(dtype),)

        return compute

    return factory


def _glibc_double_or(name: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """float64 on CPU: glibc's erf / erfc value by value, as TF 1.15's kernel calls them
    (_eigen_double); otherwise the incomplete gamma form."""

    def pick(xp: Any, x: Any) -> Any:
        if _eigen_double.applies(xp, x):
            return _eigen_double.scalar(name, x)
        return fn(xp, x)

    return pick


kernel("Erf")(_unary(_glibc_double_or("erf", erf)))
kernel("Erfc")(_unary(_glibc_double_or("erfc", erfc)))
kernel("Lgamma")(
    _unary(
        lambda xp, x: (
            _eigen_double.lgamma(x, lambda v: lgamma(np, v))
            if _eigen_double.applies(xp, x)
            else lgamma(xp, x)
        )
    )
)
kernel("Digamma")(_unary(digamma))
kernel("BesselI0e")(_unary(lambda xp, x: _bessel_ie(xp, x, 0)))
kernel("BesselI1e")(_unary(lambda xp, x: _bessel_ie(xp, x, 1)))
kernel("Igamma")(_nary(lambda xp, a, x: igamma_pq(xp, a, x)[0]))
kernel("Igammac")(_nary(lambda xp, a, x: igamma_pq(xp, a, x)[1]))
kernel("Zeta")(_nary(zeta))
kernel("Polygamma")(_nary(polygamma))
kernel("Betainc")(_nary(betainc, same_shapes=True))


def igamma_grad_a(xp: Any, a: Any, x: Any) -> Any:
    """d P(a, x) / d a by a central difference in float64 (step relative to a): TF's
    IgammaGradA differentiates the series instead; both agree to about 1e-9."""
    a, x = (xp.asarray(v, np.float64) for v in xp.broadcast_arrays(a, x))
    h = 1e-5 * xp.maximum(xp.abs(a), 1.0)
    h = xp.minimum(h, a / 2.0)
    upper = igamma_pq(xp, a + h, x)[0]
    lower = igamma_pq(xp, a - h, x)[0]
    return (upper - lower) / (2.0 * h)


kernel("IgammaGradA")(_nary(igamma_grad_a))
