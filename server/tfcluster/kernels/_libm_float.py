"""glibc's float expf, expm1f, logf, log1pf, sincosf, tanf and powf, as TensorFlow's CPU kernels get
them, vectorised.

TF's Box-Muller normal draws call logf and sincosf; Eigen's scalar path (a tensor's last size %
8 values, a row's tail inside a softmax's sums) calls expf, logf and log1pf. glibc's versions
are not correctly rounded. logf of normal values and sincosf under 120 in magnitude run glibc's
own table and polynomials in numpy (_glibc_poly: its bits, at any size). The others compute in
double and round once, which gives glibc's result except where the exact value is close to
halfway between two floats, where glibc's own approximation may round the other way: those
elements are computed by glibc itself, through ctypes; without glibc the double-rounded values
stand. A call through ctypes costs about half a microsecond, so only draws with up to
_MAX_GLIBC_CALLS such elements get glibc's bits.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

import numpy as np

from tfcluster.kernels import _glibc_poly

# |exact - float| / ulp above which glibc's double approximation may round to the other float.
_NEAR_HALFWAY = 0.25
# expf's errors stay under 0.502 ulp: it rounds otherwise only within 0.002 ulp of halfway (the
# closest of 648 in 1M uniform draws was 0.4986 ulp from its float).
_EXPF_NEAR_HALFWAY = 0.45
# Near-halfway elements of one draw that glibc computes (about 35 ms of ctypes calls).
_MAX_GLIBC_CALLS = 1 << 16


@cache
def _libm() -> dict[str, np.ufunc] | None:
    """glibc's expf, expm1f, logf, log1pf, sinf, cosf (sinf and cosf share sincosf's code) and tanf
    as object ufuncs."""
    name = ctypes.util.find_library("m")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        fns = {}
        for fn in ("expf", "expm1f", "logf", "log1pf", "sinf", "cosf", "tanf"):
            c_fn = getattr(lib, fn)
            c_fn.restype, c_fn.argtypes = ctypes.c_float, [ctypes.c_float]
            fns[fn] = np.frompyfunc(c_fn, 1, 1)
    except (OSError, AttributeError):
        return None
    return fns


def _glibc(
    fn: str, x: np.ndarray, exact: np.ndarray, near_halfway: float = _NEAR_HALFWAY
) -> np.ndarray:
    """exact rounded to float32, with glibc's own answer where it may round otherwise (where
    exact is more than near_halfway ulp from its float)."""
    out = exact.astype(np.float32)
    fns = _libm()
    if fns is None:
        return out
    ulp = np.spacing(np.abs(out)).astype(np.float64)
    near = np.abs(exact - out.astype(np.float64)) > near_halfway * ulp
    count = int(np.count_nonzero(near))
    if 0 < count <= _MAX_GLIBC_CALLS:
        out[near] = fns[fn](x[near].astype(np.float64)).astype(np.float32)
    return out


def expf(x: np.ndarray) -> np.ndarray:
    """glibc's expf of a float32 array (0.502 ulp at worst: only values near halfway
    differ from the double-rounded ones, one in about 1600 uniform draws)."""
    return _glibc("expf", x, np.exp(x.astype(np.float64)), near_halfway=_EXPF_NEAR_HALFWAY)


def log1pf(x: np.ndarray) -> np.ndarray:
    """glibc's log1pf of a float32 array. Its errors reach about 1 ulp (one value in twelve
    rounds otherwise than the double-rounded one), so glibc computes every value not exactly
    a float."""
    return _glibc("log1pf", x, np.log1p(x.astype(np.float64)), near_halfway=0.0)


def expm1f(x: np.ndarray) -> np.ndarray:
    """glibc's expm1f of a float32 array (fdlibm's, under 1 ulp but not correctly rounded), so
    glibc computes every value not exactly a float; only a tensor's last few values come here."""
    return _glibc("expm1f", x, np.expm1(x.astype(np.float64)), near_halfway=0.0)


def logf(x: np.ndarray, near_halfway: float = _NEAR_HALFWAY) -> np.ndarray:
    """glibc's logf of a float32 array: positive normal values by glibc's own table and
    polynomial (_glibc_poly); zeros, subnormals, negatives, inf and nan through glibc, with
    near_halfway the cut of _glibc."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    normal = (bits >= np.uint32(0x00800000)) & (bits < np.uint32(0x7F800000))
    if normal.all():
        return _glibc_poly.logf_normal(x)
    out = np.empty(x.shape, dtype=np.float32)
    out[normal] = _glibc_poly.logf_normal(x[normal])
    rest = ~normal
    with np.errstate(all="ignore"):
        out[rest] = _glibc("logf", x[rest], np.log(x[rest].astype(np.float64)), near_halfway)
    return out


def sincosf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's sincosf of a float32 array: (sin, cos). Values under 120 in magnitude by glibc's
    own reduction and polynomials (_glibc_poly); larger ones, inf and nan through glibc."""
    x = np.asarray(x, dtype=np.float32)
    sin, cos, covered = _glibc_poly.sincosf_reduced_range(x)
    if not covered.all():
        rest = ~covered
        xd = x[rest].astype(np.float64)
        with np.errstate(all="ignore"):
            sin[rest] = _glibc("sinf", x[rest], np.sin(xd))
            cos[rest] = _glibc("cosf", x[rest], np.cos(xd))
    return sin, cos


@cache
def _powf() -> np.ufunc | None:
    """glibc's powf as an object ufunc of two arguments."""
    name = ctypes.util.find_library("m")
    if name is None:
        return None
    try:
        c_fn = ctypes.CDLL(name).powf
    except (OSError, AttributeError):
        return None
    c_fn.restype, c_fn.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    return np.frompyfunc(c_fn, 2, 1)


# powf rounds otherwise than the double-rounded value only within 0.002 ulp of halfway (the
# closest of 707 in 1.2M draws over bases up to e^80 and exponents in [-5, 5] was 0.4984 ulp from
# its float).
_POWF_NEAR_HALFWAY = 0.49


def powf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """glibc's powf of two float32 arrays that broadcast together (TF's Pow kernel calls it
    for every float32 value: Eigen's scalar_pow_op has no packet form in TF 1.15). numpy's own
    float32 power rounds otherwise in about one value in six."""
    with np.errstate(all="ignore"):
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
        out = np.asarray(exact.astype(np.float32))
        # Near halfway: more than _POWF_NEAR_HALFWAY of an ulp from the float it rounds to.
        # (The error is scaled in float64: the ulp scaled in float32 underflows to 0 at 0.)
        err = np.abs(exact - out)
        err *= 1 / _POWF_NEAR_HALFWAY
        near = err > np.abs(np.spacing(out))
    count = int(np.count_nonzero(near))
    fn = _powf()
    if fn is not None and 0 < count <= _MAX_GLIBC_CALLS:
        xs, ys = (_at(a, near, count) for a in (x, y))
        out[near] = fn(xs, ys).astype(np.float32)
    return out


def _at(a: np.ndarray, where: np.ndarray, count: int) -> np.ndarray:
    """a's values where `where` (a's shape broadcast to it) is set."""
    if a.shape == where.shape:
        return a[where]
    if a.size == 1:
        return np.full(count, a.reshape(()), a.dtype)
    return np.broadcast_to(a, where.shape)[where]


def tanf(x: np.ndarray) -> np.ndarray:
    """glibc's tanf of a float32 array (TF's Tan kernel calls it for every value). Its
    errors reach 0.8 ulp, so glibc computes every value not exactly a float (up to
    _MAX_GLIBC_CALLS of them)."""
    return _glibc("tanf", x, np.tan(x.astype(np.float64)), near_halfway=0.0)
