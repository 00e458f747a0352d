"""float64 element-wise functions as TensorFlow 1.15's CPU kernels compute them.

TF 1.15's Eigen has one packet function for doubles, exp (pexp_double, a Cephes rational
function over AVX packets of four, built without FMA). Exp, Sigmoid (1 / (1 + exp(-x))), Elu
and Selu (exp(x) - 1 in a select) run it on all but a tensor's last size % 4 values, which
take std::exp. Every other double function has no packet form, so TF calls glibc value by
value: tanh, log, log1p, expm1, the trigonometric and hyperbolic inverses, sinh, cosh, erf,
erfc, lgamma, pow, and Softplus (its log has no double packet, so its whole expression runs
scalar).

numpy's float64 functions are its own SIMD ones (from SVML on AVX-512 hosts), an ulp or two
from glibc's in one value in 3 to 30; glibc's come here through Python's math module, whose
functions are libm's (about 0.1 us a value; lgamma, which CPython computes itself, through
ctypes), on the values inside each function's domain (numpy gives the same NaN or infinity
outside it). That costs ~5x TF's own loop, so tensors of more than GLIBC_UP_TO values (or
PACKETS_UP_TO for the exp packets, repeated in numpy at ~7x numpy's exp) keep numpy's
functions (a float64 tensor that large is rare in TF1 programs; its values then differ from
TF's in the last bit or two). TF's executor runs kernels with the CPU's flush-to-zero and
denormals-are-zero modes on: the exp packets write subnormal results as zero (a subnormal
input gives what zero gives), and glibc's functions are called with the modes on
(_flushing_denormals), which is what they give in TF (tanh and erf of a subnormal are 0, asin
and sinh of one itself; log reads one as zero).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import math
import platform
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

_D = np.float64
_PACKET = 4
_MIN_NORMAL = _D(np.finfo(_D).tiny)

# pexp_double's constants.
_EXP_HI, _EXP_LO = _D(709.437), _D(-709.436139303)
_LOG2E = _D(1.4426950408889634073599)
_EXP_P = (
    _D(1.26177193074810590878e-4),
    _D(3.02994407707441961300e-2),
    _D(9.99999999999999999910e-1),
)
_EXP_Q = (
    _D(3.00198505138664455042e-6),
    _D(2.52448340349684104192e-3),
    _D(2.27265548208155028766e-1),
    _D(2.00000000000000000009e0),
)
_LN2_HI, _LN2_LO = _D(0.693145751953125), _D(1.42860682030941723212e-6)
# The largest |x| whose sinh and cosh are finite (math raises OverflowError above).
_HYPERBOLIC_MAX = 710.4758600739439
# Tensors of up to this many values get glibc's functions value by value (~7 ms at most),
# and up to PACKETS_UP_TO the exp packets (~8 ms, 7x numpy's exp): larger ones numpy's.
GLIBC_UP_TO = 1 << 16
PACKETS_UP_TO = 1 << 20
# The largest x whose exp is finite in glibc (math.exp raises OverflowError above).
_EXP_MAX = 709.782712893384


def applies(xp: Any, x: Any) -> bool:
    """Whether a kernel gives TF 1.15's bits here: float64 on the host."""
    return xp is np and x.dtype == _D


def _few(v: np.ndarray) -> bool:
    return v.size <= GLIBC_UP_TO


def _flush(a: np.ndarray) -> np.ndarray:
    """Subnormals to signed zeros, in place."""
    tiny = np.abs(a) < _MIN_NORMAL
    if tiny.any():
        a[tiny] = np.copysign(_D(0), a[tiny])
    return a


def _flat(x: np.ndarray) -> np.ndarray:
    """A flushed float64 copy of x, flat."""
    return _flush(np.array(x, dtype=_D).reshape(-1))


# Values per pass of _pexp: its scratch arrays stay in the caches between its ~20 operations
# (whole-tensor temporaries went to memory at each one: 8x slower over a million values).
_BLOCK = 16384


def _pexp(a: np.ndarray) -> np.ndarray:
    """pexp_double of every value of the 1-D `a` (not written), block by block."""
    out = np.empty(a.size, _D)
    n = min(_BLOCK, a.size)
    scratch = (np.empty(n, _D), np.empty(n, _D), np.empty(n, _D))
    for start in range(0, a.size, n):
        k = min(n, a.size - start)
        _pexp_block(a[start : start + k], out[start : start + k], *(t[:k] for t in scratch))
    return out


def _pexp_block(a: np.ndarray, y: np.ndarray, x: np.ndarray, fx: np.ndarray, t: np.ndarray) -> None:
    """pexp_double of `a` into `y` (x, fx, t: scratch of the same length). AVX's min and max
    give their second operand for a NaN, so a NaN is clamped, computed, and given back by the
    last max; products and sums round one by one (no FMA)."""
    mul, add, sub = np.multiply, np.add, np.subtract
    np.fmin(a, _EXP_HI, out=x)  # fmin/fmax take the bound for a NaN, as AVX's min/max here
    np.fmax(x, _EXP_LO, out=x)
    mul(x, _LOG2E, fx)
    add(fx, 0.5, fx)
    np.floor(fx, fx)
    mul(fx, _LN2_HI, t)
    sub(x, t, x)
    mul(fx, _LN2_LO, t)
    sub(x, t, x)
    x2 = mul(x, x, t)
    mul(x2, _EXP_P[0], y)  # px
    add(y, _EXP_P[1], y)
    mul(y, x2, y)
    add(y, _EXP_P[2], y)
    mul(y, x, y)
    mul(x2, _EXP_Q[0], x)  # qx (x is no longer needed)
    add(x, _EXP_Q[1], x)
    mul(x, x2, x)
    add(x, _EXP_Q[2], x)
    mul(x, x2, x)
    add(x, _EXP_Q[3], x)
    sub(x, y, x)
    np.divide(y, x, y)
    mul(y, 2.0, y)
    add(y, 1.0, y)
    # 2**fx from its exponent bits (fx + 1023 in [0, 2047]: 0 gives 0, 2047 infinity).
    bits = t.view(np.int64)
    np.copyto(bits, fx, casting="unsafe")
    add(bits, 1023, bits)
    np.left_shift(bits, 52, bits)
    mul(y, t, y)
    np.maximum(y, a, out=y)  # y is never NaN: a NaN `a` comes back through here


@functools.cache
def _libm() -> Any:
    name = ctypes.util.find_library("m")
    return ctypes.CDLL(name) if name is not None else None


# glibc's x86-64 fenv_t: the x87 environment (28 bytes), then the SSE control word, MXCSR,
# whose bits 15 (flush to zero) and 6 (denormals are zero) TF's executor sets.
_MXCSR_AT, _FTZ_DAZ = 28, 0x8040


@contextlib.contextmanager
def _flushing_denormals() -> Iterator[None]:
    """This thread's SSE arithmetic with flush-to-zero and denormals-are-zero on, as TF's
    kernels run (only on x86-64 with glibc; elsewhere as it is)."""
    libm = _libm()
    saved = ctypes.create_string_buffer(32)
    if libm is None or platform.machine() != "x86_64" or libm.fegetenv(saved) != 0:
        yield
        return
    mxcsr = int.from_bytes(saved.raw[_MXCSR_AT : _MXCSR_AT + 4], "little") | _FTZ_DAZ
    flushing = ctypes.create_string_buffer(saved.raw[:_MXCSR_AT] + mxcsr.to_bytes(4, "little"), 32)
    libm.fesetenv(flushing)
    try:
        yield
    finally:
        libm.fesetenv(saved)


def _libm_exp(v: np.ndarray) -> np.ndarray:
    return _glibc(math.exp, v, v < _EXP_MAX, np.exp)


def _glibc(
    fn: Callable[[float], float],
    v: np.ndarray,
    inside: np.ndarray | None,
    fallback: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """fn (a math-module function: glibc's) on the values where `inside` holds (all when
    None); numpy's fallback elsewhere (outside the domain, where math raises)."""
    out = np.array(fallback(v), dtype=_D)
    with _flushing_denormals():
        if inside is None:
            out[...] = np.frompyfunc(fn, 1, 1)(v)
        elif inside.any():
            out[inside] = np.frompyfunc(fn, 1, 1)(v[inside])
    return out


def flush(a: np.ndarray) -> np.ndarray:
    """Subnormals of the float64 array `a` to signed zeros, in place (as TF's CPU threads
    write them)."""
    return _flush(a)


def exp_packets(flat: np.ndarray) -> np.ndarray:
    """pexp_double of every value of the 1-D float64 `flat` (not flushed)."""
    with np.errstate(all="ignore"):
        return _pexp(flat)


def exp_scalar(v: np.ndarray) -> np.ndarray:
    """glibc's exp of every value of the float64 array `v`."""
    with np.errstate(all="ignore"):
        return _libm_exp(v)


# exp of anything at or above this is a normal double (exp(-708.39) = 2**-1022): only a tensor
# holding smaller values (or NaN) needs the pass that flushes subnormal results.
_EXP_NORMAL_FROM = -708.0


def _packets_then_tail(
    x: np.ndarray,
    packet: Callable[[np.ndarray], np.ndarray],
    scalar: Callable[[np.ndarray], np.ndarray],
    numpy_form: Callable[[np.ndarray], np.ndarray],
    small_below: float = _EXP_NORMAL_FROM,
) -> np.ndarray:
    """packet over the whole tensor, its last size % 4 values again by scalar, subnormal
    results flushed (checked only where some value is below small_below). A subnormal input
    gives what zero gives here (exp of either is 1), so inputs are not flushed."""
    flat = np.ascontiguousarray(x, dtype=_D).reshape(-1)
    if flat.size > PACKETS_UP_TO:
        with np.errstate(all="ignore"):
            return np.asarray(numpy_form(np.asarray(x, _D)), _D)
    with np.errstate(all="ignore"):
        out = packet(flat)
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            out[tail:] = scalar(flat[tail:])
    if flat.size and not np.minimum.reduce(flat) >= small_below:
        _flush(out)
    return out.reshape(np.shape(x))


def exp(x: np.ndarray) -> np.ndarray:
    return _packets_then_tail(x, _pexp, _libm_exp, np.exp)


def _logistic_packet(v: np.ndarray) -> np.ndarray:
    out = _pexp(np.negative(v))
    np.add(out, 1.0, out)
    return np.divide(1.0, out, out)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Eigen's scalar_logistic_op<double>: 1 / (1 + exp(-x)); its results are subnormal only
    past -708 (exp(-x) near the largest double)."""
    return _packets_then_tail(
        x,
        _logistic_packet,
        lambda v: 1.0 / (1.0 + _libm_exp(-v)),
        lambda v: 1.0 / (1.0 + np.exp(-v)),
        small_below=-708.0,
    )


def elu(x: np.ndarray) -> np.ndarray:
    """exp(x) - 1 where x < 0 (a subnormal x compares as zero), x elsewhere."""
    neg = np.asarray(x) <= -_MIN_NORMAL
    return np.where(neg, _packets_then_tail(x, _pexp, _libm_exp, np.exp) - 1.0, x)


# TF's Selu constants, as its functor writes them (scale * alpha is its own literal).
_SELU_SCALE = _D(1.0507009873554804934193349852946)
_SELU_SCALE_ALPHA = _D(1.7580993408473768599402175208123)


def selu(x: np.ndarray) -> np.ndarray:
    """scale_alpha * (exp(x) - 1) where x < 0, scale * x elsewhere."""
    neg = np.asarray(x) <= -_MIN_NORMAL
    e = _packets_then_tail(x, _pexp, _libm_exp, np.exp)
    with np.errstate(all="ignore"):
        pos = _flush(_flat(x) * _SELU_SCALE).reshape(np.shape(x))
        return np.where(neg, _SELU_SCALE_ALPHA * (e - 1.0), pos)


# Softplus's threshold: std::log of double's epsilon, plus 2.
_SOFTPLUS_THRESHOLD = math.log(float(np.finfo(_D).eps)) + 2.0


def softplus(x: np.ndarray) -> np.ndarray:
    """x above -threshold, exp(x) below threshold, else log(exp(x) + 1): all glibc's."""
    v = _flat(x)
    if not _few(v):
        return np.logaddexp(np.asarray(x, _D), 0.0)
    with np.errstate(all="ignore"):
        e = _libm_exp(v)
        middle = (v >= _SOFTPLUS_THRESHOLD) & (v <= -_SOFTPLUS_THRESHOLD)
        out = _glibc(math.log, e + 1.0, middle, np.log)
        out = np.where(v < _SOFTPLUS_THRESHOLD, e, out)
        out = np.where(v > -_SOFTPLUS_THRESHOLD, v, out)
    return _flush(out).reshape(np.shape(x))


def _domain_all(v: np.ndarray) -> None:
    return None


# name -> (glibc's function through math, the values it takes, numpy's function)
_SCALAR: dict[str, tuple[Callable[[float], float], Callable[[np.ndarray], Any], Any]] = {
    "tanh": (math.tanh, _domain_all, np.tanh),
    # TF's Log reads a subnormal as zero (-inf): kept out of glibc's domain here.
    "log": (
        math.log,
        lambda v: v >= _MIN_NORMAL,
        lambda v: np.log(np.where(np.abs(v) < _MIN_NORMAL, 0.0, v)),
    ),
    "log1p": (math.log1p, lambda v: v > -1, np.log1p),
    "expm1": (math.expm1, lambda v: v < _EXP_MAX, np.expm1),
    "asin": (math.asin, lambda v: np.abs(v) <= 1, np.arcsin),
    "acos": (math.acos, lambda v: np.abs(v) <= 1, np.arccos),
    "atan": (math.atan, _domain_all, np.arctan),
    "tan": (math.tan, np.isfinite, np.tan),
    "sinh": (math.sinh, lambda v: np.abs(v) < _HYPERBOLIC_MAX, np.sinh),
    "cosh": (math.cosh, lambda v: np.abs(v) < _HYPERBOLIC_MAX, np.cosh),
    "asinh": (math.asinh, _domain_all, np.arcsinh),
    "acosh": (math.acosh, lambda v: v >= 1, np.arccosh),
    "atanh": (math.atanh, lambda v: np.abs(v) < 1, np.arctanh),
    "erf": (math.erf, _domain_all, None),
    "erfc": (math.erfc, _domain_all, None),
}


def scalar(name: str, x: np.ndarray) -> np.ndarray:
    """glibc's double `name` on every value of x (NaN stays NaN)."""
    fn, domain, fallback = _SCALAR[name]
    v = np.array(x, dtype=_D).reshape(-1)
    with np.errstate(all="ignore"):
        if not _few(v):
            out = np.array((fallback or np.frompyfunc(fn, 1, 1))(v), dtype=_D)
        elif fallback is None:  # defined everywhere: NaN passes through math's function
            with _flushing_denormals():
                out = np.array(np.frompyfunc(fn, 1, 1)(v), dtype=_D)
        else:
            out = _glibc(fn, v, domain(v), fallback)
    return out.reshape(np.shape(x))


@functools.cache
def _libm_lgamma() -> Callable[[float], float] | None:
    """glibc's lgamma (CPython's math.lgamma is its own)."""
    libm = _libm()
    if libm is None:
        return None
    fn = libm.lgamma
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn  # type: ignore[no-any-return]


def lgamma(x: np.ndarray, fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """glibc's lgamma of every finite value (fallback's elsewhere, or everywhere without
    glibc)."""
    fn = _libm_lgamma()
    v = np.array(x, dtype=_D).reshape(-1)
    with np.errstate(all="ignore"):
        out = np.array(fallback(v), dtype=_D)
        if fn is not None and _few(v):
            finite = np.isfinite(v)
            with _flushing_denormals():
                out[finite] = np.frompyfunc(fn, 1, 1)(v[finite])
    return out.reshape(np.shape(x))


def power(x: Any, y: Any) -> np.ndarray:
    """glibc's pow of each pair (broadcast), where its result is finite (math.pow raises for
    the others: numpy's NaN or infinity stands there)."""
    a, b = np.broadcast_arrays(np.asarray(x, _D), np.asarray(y, _D))
    with np.errstate(all="ignore"):
        out = np.array(np.power(a, b), dtype=_D)
        finite = np.isfinite(out)
        if finite.any() and _few(out):
            with _flushing_denormals():
                out[finite] = np.frompyfunc(math.pow, 2, 1)(a[finite], b[finite])
    return out
