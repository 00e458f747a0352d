"""float32 exp, expm1, log and log1p as TensorFlow 1.15's CPU kernels compute them, and what TF
builds on them (softplus, elu, selu, softmax, the softmax cross entropies).

TF 1.15's wheel evaluates elementwise ops with Eigen over AVX packets of eight floats, built
without FMA: exp and log are Cephes polynomials (Eigen's pexp_float / plog_float). A tensor's
last `size % 8` values take the scalar path: std::exp / std::log / std::log1p, glibc's expf,
logf and log1pf (not correctly rounded: _libm_float computes them in float64 and asks glibc
where its answer may round the other way). numpy's own functions round differently
in the last bit or two, which RL programs printing rewards with many digits (a softplus scale,
a softmax policy) and sampling programs (a nucleus threshold on cumulative probabilities)
showed after a few steps. Each function here repeats Eigen's float32 operations one by one
(numpy's float32 arithmetic rounds as the AVX instructions do), so the bits are TF's.

tanh and the logistic are in _eigen_activations, used on small tensors only: repeating
Eigen's ~25 float32 passes made them ~10x slower than numpy's vectorized functions, which
made an LSTM training step 1.2x and its forward 1.4x slower (bench/compare_revisions.py,
lstm_training), in the loops where these activations run hundreds of times per step.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_sum, _libm_float
from tfcluster.runtime import float_errors

_PACKET = 8
# Values per pass of exp and log: their scratch arrays stay in the caches between the 20-35
# operations, where whole-tensor temporaries went to memory (and to the allocator) at each one.
# Over [64, 5000] (SeqGAN's softmax policy), median of 5 on a loaded machine: log 12.7 ms whole,
# 5.2 / 3.7 / 2.9 / 2.5 ms in blocks of 4K / 8K / 16K / 32K values; exp 2.9 ms whole, 1.5 ms
# in blocks of 32K (smaller blocks pay numpy's per-call cost more often).
_BLOCK = 32768
_F = np.float32
_MIN_NORMAL = np.array(0x00800000, np.int32).view(_F)
Fn = Callable[[np.ndarray], np.ndarray]


def applies(xp: Any, x: Any) -> bool:
    """Whether a kernel gives TF 1.15's Eigen bits for `x`: float32 on the host (other dtypes
    and GPUs keep their own functions, as TF's GPUs do)."""
    return xp is np and x.dtype == np.float32


def flush(a: np.ndarray) -> np.ndarray:
    """Subnormals to signed zeros, in place: TF's executor runs kernels with the CPU's
    flush-to-zero and denormals-are-zero modes on."""
    tiny = np.abs(a) < _MIN_NORMAL
    if tiny.any():
        a[tiny] = np.copysign(_F(0), a[tiny])
    return a


def flushed(a: np.ndarray) -> np.ndarray:
    """a with subnormals as signed zeros: a itself when it has none (it may be an input's
    read-only array), else a copy."""
    if a.ndim == 0:  # a scalar operand (x ** 2.0): a Python comparison, not three numpy calls
        return a if not abs(float(a)) < _MIN_NORMAL else np.copysign(_F(0), a)
    tiny = np.abs(a) < _MIN_NORMAL
    if not tiny.any():
        return a
    out = np.array(a, copy=True)
    out[tiny] = np.copysign(_F(0), out[tiny])
    return out


def packets_then_tail(x: np.ndarray, packet: Fn, scalar: Fn) -> np.ndarray:
    """packet over the whole tensor, then its last size % 8 values again by scalar."""
    flat = flush(np.array(x, dtype=_F).reshape(-1))
    with np.errstate(all="ignore"):
        out = packet(flat)
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            out[tail:] = scalar(flat[tail:])
    return flush(out).reshape(np.shape(x))


def _libm(fn: Fn) -> Fn:
    """glibc's float function on a float32 array (a copy: `v` may be a view)."""
    return lambda v: fn(np.ascontiguousarray(v, dtype=_F))


_EXPF = _libm(_libm_float.expf)
# Every logf value glibc may round otherwise (the few tail values of a tensor, a sum per row).
_LOGF = _libm(lambda v: _libm_float.logf(v, near_halfway=0.1))
_LOG1PF = _libm(_libm_float.log1pf)
_EXPM1F = _libm(_libm_float.expm1f)


# ---- exp (pexp_float) ------------------------------------------------------------------------
# Eigen's float32 constants, as numpy scalars made once. On the small tensors of a softmax or a
# loss each numpy call's fixed cost is what counts, so every step below is one call writing into
# an array the function owns (no temporaries, no conversions of Python floats).
_EXP_HI, _EXP_LO = _F(88.3762626647950), _F(-88.3762626647949)
_LOG2E, _HALF, _ONE = _F(1.44269504088896341), _F(0.5), _F(1)
_LN2_HI, _LN2_LO = _F(0.693359375), _F(-2.12194440e-4)
_EXP_POLY = tuple(
    _F(c)
    for c in (
        1.9875691500e-4,
        1.3981999507e-3,
        8.3334519073e-3,
        4.1665795894e-2,
        1.6666665459e-1,
        5.0000001201e-1,
    )
)
# m + 127 + 2**23 puts m + 127 in a float32's low mantissa bits (m is an integer in
# [-127, 128]: the sum is exact); shifted left by 23 they are 2**m's exponent bits and the
# 2**23 leaves the word. m = -127 gives 0, m = 128 infinity, as pldexp.
_EXP_BIAS = _F(127 + (1 << 23))
# exp of anything at or above this is a normal float (exp(-87.3365) = 2**-126): only a tensor
# holding smaller values (or NaN) needs the pass that flushes subnormal results.
_EXP_NORMAL_FROM = _F(-87.3)


def _exp_packet(a: np.ndarray) -> np.ndarray:
    """Eigen's pexp_float on every value of the 1-D float32 `a` (not written), block by block
    through scratch arrays that stay in the cache (_BLOCK)."""
    size = a.size
    out = np.empty(size, _F)
    if size == 0:
        return out
    n = min(_BLOCK, size)
    xs, ms, ts = np.empty(n, _F), np.empty(n, _F), np.empty(n, _F)
    for start in range(0, size, n):
        k = min(n, size - start)
        _exp_block(a[start : start + k], out[start : start + k], xs[:k], ms[:k], ts[:k])
    return out


# Up to this many values a pass's constant operands are whole arrays: numpy's loop for two
# contiguous operands of one length skips the scalar's broadcast set-up, 2-3x faster on a
# softmax's 32x10 logits (where each call's fixed cost is the whole cost). Larger passes
# take the scalars (their arrays would only push the data out of the caches).
_CONST_ROWS_UP_TO = 4096


@functools.lru_cache(maxsize=16)
def _exp_constants(n: int) -> tuple[Any, ...]:
    """_exp_block's constants, each spread to an array of n values (read-only) where n is
    small, else as the scalars themselves."""
    scalars = (_EXP_HI, _EXP_LO, _LOG2E, _HALF, _LN2_HI, _LN2_LO, *_EXP_POLY, _ONE, _EXP_BIAS)
    if n > _CONST_ROWS_UP_TO:
        return scalars
    rows = np.empty((len(scalars), n), _F)
    for row, value in zip(rows, scalars):
        row.fill(value)
    rows.flags.writeable = False
    return tuple(rows)


def _exp_block(a: np.ndarray, y: np.ndarray, x: np.ndarray, m: np.ndarray, t: np.ndarray) -> None:
    """pexp_float of `a` into `y`; x, m and t are scratch arrays of the same length. (The
    binary passes name their output by position: numpy parses that faster than out=.)"""
    mul, add, sub = np.multiply, np.add, np.subtract
    hi, lo, log2e, half, ln2_hi, ln2_lo, p0, p1, p2, p3, p4, p5, one, bias = _exp_constants(a.size)
    np.minimum(a, hi, out=x)
    np.maximum(x, lo, out=x)
    # m = floor(x * log2(e) + 1/2); r = x - m*ln 2 in two parts (no FMA)
    mul(x, log2e, m)
    add(m, half, m)
    np.floor(m, m)
    mul(m, ln2_hi, t)
    r = sub(x, t, x)
    mul(m, ln2_lo, t)
    sub(r, t, r)
    mul(r, p0, y)
    add(y, p1, y)
    for c in (p2, p3, p4, p5):
        mul(y, r, y)
        add(y, c, y)
    r2 = mul(r, r, t)
    mul(y, r2, y)
    add(y, r, y)
    add(y, one, y)
    add(m, bias, m)
    bits = m.view(np.int32)
    np.left_shift(bits, 23, bits)
    mul(y, m, y)
    np.maximum(y, a, out=y)


def _has_small(a: np.ndarray, above: np.float32) -> bool:
    """Whether `a` holds a value below `above` or a NaN (one numpy call: the check that
    spares a tensor of normal results the flush pass)."""
    return bool(a.size) and not np.minimum.reduce(a, axis=None) >= above


def _exp_tail(flat: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The packets' `out` with the last size % 8 values of the 1-D `flat` again by libm.
    Inputs are not flushed first: a subnormal's exp is 1 on either path, as zero's is."""
    tail = flat.size - flat.size % _PACKET
    if tail < flat.size:
        out[tail:] = _EXPF(flat[tail:])
    return out


def _exp_flat(flat: np.ndarray) -> np.ndarray:
    """exp of the 1-D float32 `flat` as TF's kernel: packets, the scalar tail, subnormal
    results flushed (checked only where some value is small enough to give one)."""
    out = _exp_tail(flat, _exp_packet(flat))
    return flush(out) if _has_small(flat, _EXP_NORMAL_FROM) else out


def exp(x: np.ndarray) -> np.ndarray:
    flat = np.asarray(x, dtype=_F).reshape(-1)
    if float_errors.silenced():
        return _exp_flat(flat).reshape(np.shape(x))
    with np.errstate(all="ignore"):
        return _exp_flat(flat).reshape(np.shape(x))


# ---- log (plog_float) ------------------------------------------------------------------------


# plog_float's constants: the three interleaved polynomials' coefficients (y, y1, y2: the
# first, second and third pair, then each one's last), ln 2 in two parts, sqrt(1/2).
_LOG_P = tuple(
    _F(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_SQRT_HALF = _F(0.707106781186547524)


def _log_normal(x: np.ndarray) -> np.ndarray:
    """plog_float's arithmetic on the 1-D float32 `x` of positive normal values (not written),
    block by block into scratch arrays; infinity gives a finite number here (_log_packet
    fixes it)."""
    mul, add, sub = np.multiply, np.add, np.subtract
    p0, p1, p2, p3, p4, p5, p6, p7, p8 = _LOG_P
    size = x.size
    out = np.empty(size, _F)
    if size == 0:
        return out
    n = min(_BLOCK, size)
    ints, e, m = np.empty(n, np.int32), np.empty(n, _F), np.empty(n, _F)
    below, x2, x3 = np.empty(n, bool), np.empty(n, _F), np.empty(n, _F)
    y1, y2 = np.empty(n, _F), np.empty(n, _F)
    bits_all = x.view(np.int32)
    for start in range(0, size, n):
        k = min(n, size - start)
        bits, y = bits_all[start : start + k], out[start : start + k]
        i_, e_, m_, b_ = ints[:k], e[:k], m[:k], below[:k]
        x2_, x3_, y1_, y2_ = x2[:k], x3[:k], y1[:k], y2[:k]
        # frexp: the exponent as a float, the mantissa in [0.5, 1)
        np.right_shift(bits, 23, out=i_)
        np.copyto(e_, i_, casting="unsafe")
        sub(e_, _F(126), out=e_)
        np.bitwise_and(bits, np.int32(~0x7F800000), out=i_)
        np.bitwise_or(i_, np.int32(0x3F000000), out=i_)
        v = i_.view(_F)
        # below sqrt(1/2): x = 2m - 1 as (m - 1) + m, and the exponent one less
        np.less(v, _SQRT_HALF, out=b_)
        mul(v, b_, out=m_)
        sub(v, _ONE, out=v)
        sub(e_, b_, out=e_, casting="unsafe")
        add(v, m_, out=v)
        mul(v, v, out=x2_)
        mul(x2_, v, out=x3_)
        mul(v, p0, out=y)
        add(y, p1, out=y)
        mul(v, p3, out=y1_)
        add(y1_, p4, out=y1_)
        mul(v, p6, out=y2_)
        add(y2_, p7, out=y2_)
        mul(y, v, out=y)
        add(y, p2, out=y)
        mul(y1_, v, out=y1_)
        add(y1_, p5, out=y1_)
        mul(y2_, v, out=y2_)
        add(y2_, p8, out=y2_)
        mul(y, x3_, out=y)
        add(y, y1_, out=y)
        mul(y, x3_, out=y)
        add(y, y2_, out=y)
        mul(y, x3_, out=y)
        mul(e_, _LOG_Q1, out=m_)
        add(y, m_, out=y)
        mul(x2_, _HALF, out=x2_)
        sub(v, x2_, out=v)
        add(v, y, out=v)
        mul(e_, _LOG_Q2, out=m_)
        add(v, m_, out=y)
    return out


def _log_packet(a: np.ndarray) -> np.ndarray:
    x = _log_normal(np.maximum(a, _MIN_NORMAL))
    # log(0) = -inf, log(inf) = inf, log of a negative or NaN is NaN
    x[a == np.inf] = np.inf
    x[~(a >= 0)] = np.nan
    x[a == 0] = -np.inf
    return x


def log(x: np.ndarray) -> np.ndarray:
    flat = np.asarray(x, dtype=_F).reshape(-1)
    if flat.size and np.minimum.reduce(flat) >= _MIN_NORMAL and np.maximum.reduce(flat) < np.inf:
        # Positive normal finite values (a loss's probabilities, counts): nothing to flush on
        # the way in, no special value to fix, and no result is subnormal (the smallest
        # nonzero |log| of a float32 is about 6e-8): the packets' arithmetic alone, with the
        # bits of the general path.
        out = _log_normal(flat)
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            out[tail:] = _LOGF(flat[tail:])
        return out.reshape(np.shape(x))
    return packets_then_tail(x, _log_packet, _LOGF)


# ---- log1p (generic_plog1p: Kahan's formula over plog) ---------------------------------------


def _log1p_packet(a: np.ndarray) -> np.ndarray:
    xp1 = a + _F(1)
    log1 = _log_packet(xp1)
    large = a * (log1 / (xp1 - _F(1)))
    # x itself where 1 + x rounds to 1, and where the log is infinite (1 + x = inf)
    return np.where((xp1 == _F(1)) | (xp1 == log1), a, large)


def log1p(x: np.ndarray) -> np.ndarray:
    return packets_then_tail(x, _log1p_packet, _LOG1PF)


# ---- expm1 (generic_expm1: Kahan's formula over pexp and plog) ------------------------------


def _expm1_packet(a: np.ndarray) -> np.ndarray:
    u = _exp_packet(a)
    u_minus_one = u - _F(1)
    log_u = _log_packet(u)
    out = u_minus_one * (a / log_u)
    out = np.where(log_u == u, u, out)  # exp(x) = inf
    # x itself where exp(x) rounds to 1, -1 where exp(x) - 1 rounds to -1
    return np.where(u == _F(1), a, np.where(u_minus_one == _F(-1), _F(-1), out))


def expm1(x: np.ndarray) -> np.ndarray:
    """Eigen's packet expm1 over AVX packets, std::expm1 (glibc's expm1f) on the tail. The
    packets compute on subnormals read as zero, but where exp(x) is 1 they select x's own
    bits: a subnormal comes back unchanged (the tail's arithmetic gives a signed zero)."""
    given = np.array(x, dtype=_F).reshape(-1)
    out = packets_then_tail(given, _expm1_packet, _EXPM1F)
    packed = given.size - given.size % _PACKET
    tiny = np.abs(given[:packed]) < _MIN_NORMAL
    if tiny.any():
        out[:packed][tiny] = given[:packed][tiny]
    return out.reshape(np.shape(x))


# ---- activations built from them, as TF 1.15's functors write them -----------------------------
# Softplus: log(epsilon) + 2 (Eigen's std::log of float32 epsilon).
_SOFTPLUS_THRESHOLD = _F(np.log(np.float64(np.finfo(_F).eps))) + _F(2)
SELU_SCALE = _F(1.0507009873554804934193349852946)
SELU_SCALE_ALPHA = _F(1.7580993408473768599402175208123)


def softplus(x: np.ndarray) -> np.ndarray:
    """x above -threshold, exp(x) below threshold, else log(exp(x) + 1)."""
    e = exp(x)
    with np.errstate(all="ignore"):
        out = log(e + _F(1))
    out = np.where(x < _SOFTPLUS_THRESHOLD, e, out)
    return np.where(x > -_SOFTPLUS_THRESHOLD, x, out)


def elu(x: np.ndarray) -> np.ndarray:
    """exp(x) - 1 where x < 0 (not expm1: TF's bits near zero); a subnormal x compares as
    zero and passes through the select unchanged."""
    return np.where(x <= -_MIN_NORMAL, exp(x) - _F(1), x)


def selu(x: np.ndarray) -> np.ndarray:
    """scale * x where x >= 0, a subnormal x read as zero (denormals-are-zero): a product
    of the largest subnormals is normal."""
    with np.errstate(all="ignore"):
        pos = flush(flush(np.array(x, dtype=_F)) * SELU_SCALE)
        return np.where(x <= -_MIN_NORMAL, SELU_SCALE_ALPHA * (exp(x) - _F(1)), pos)


# ---- softmax and the softmax cross entropies (TF 1.15's SoftmaxEigenImpl, XentEigenImpl and ---
# SparseXentEigenImpl)
def _quietly(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) with numpy's float warnings off (TF returns inf and NaN quietly); entering
    np.errstate only where the executor has not already (float_errors)."""
    if float_errors.silenced():
        return fn(*args)
    with np.errstate(all="ignore"):
        return fn(*args)


def _shifted(logits: np.ndarray) -> np.ndarray:
    """Each row minus its largest value (a new array)."""
    return np.subtract(logits, np.maximum.reduce(logits, axis=1, keepdims=True))


def _may_give_subnormals(shifted: np.ndarray) -> bool:
    """Whether a softmax of these shifted logits may hold subnormal values (exps, or
    probabilities exp / sum with sum <= cols): only then the flush passes run. Their exps
    at or above e * cols * 2**-126 give normal probabilities."""
    cols = shifted.shape[1]
    return _has_small(shifted, _EXP_NORMAL_FROM + _F(math.log(cols) + 1))


def _softmax(rows: np.ndarray) -> np.ndarray:
    shifted = _shifted(rows)
    flat = shifted.reshape(-1)
    small = _may_give_subnormals(shifted)
    e = _exp_tail(flat, _exp_packet(flat)).reshape(rows.shape)
    if small:
        flush(e)
    inverse = np.divide(_ONE, _eigen_sum.rows_sum(e))
    out = np.multiply(e, inverse[:, None], out=e)
    return flush(out) if small else out


def softmax(rows: np.ndarray) -> np.ndarray:
    """Softmax of each row of a 2-D float32 array: Eigen's exp of the shifted logits, each
    row's sum in Eigen's order, times its inverse (not a division); subnormal exps and
    probabilities flushed to zero, as TF's CPU runs."""
    return _quietly(_softmax, rows)  # type: ignore[no-any-return]


def _log_softmax(rows: np.ndarray) -> np.ndarray:
    shifted = _shifted(rows)
    in_sums, _ = _exps(shifted, _may_give_subnormals(shifted))
    return flush(np.subtract(shifted, log(_eigen_sum.rows_sum(in_sums))[:, None], out=shifted))


def log_softmax(rows: np.ndarray) -> np.ndarray:
    """Log-softmax of each row of a 2-D float32 array, as TF 1.15's LogSoftmax: the shifted
    logits minus the log of each row's sum of exps (the exps as the row sums read them, the
    sums in Eigen's order, their log over the vector of sums: packets, then the scalar tail)."""
    return _quietly(_log_softmax, rows)  # type: ignore[no-any-return]


def _exps(shifted: np.ndarray, small: bool) -> tuple[np.ndarray, np.ndarray]:
    """exp(shifted) twice, as TF's kernel reads it: inside the row sums (Eigen's inner-most
    reducer reads each row's first 8k values by packets, the rest by the scalar path) and
    elementwise for the backprop (packets over the flat tensor, its last size % 8 values by
    the scalar path). The packet formula is elementwise: one pass over the tensor serves both.
    `shifted` is a new contiguous array (_shifted); small: _may_give_subnormals(shifted)."""
    rows, cols = shifted.shape
    flat = shifted.reshape(-1)
    packets = _exp_packet(flat)
    in_sums = packets.reshape(rows, cols)
    k = cols - cols % _PACKET
    if k < cols:
        in_sums = in_sums.copy()
        in_sums[:, k:] = _EXPF(shifted[:, k:])
    _exp_tail(flat, packets)
    if small:
        flush(in_sums)
        flush(packets)
    return in_sums, packets.reshape(rows, cols)


def _shifted_and_sums(
    logits: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The shifted logits, their exp (elementwise), each row's sum of exps, and whether
    subnormal values may arise (_may_give_subnormals)."""
    shifted = _shifted(logits)
    small = _may_give_subnormals(shifted)
    in_sums, elementwise = _exps(shifted, small)
    return shifted, elementwise, _eigen_sum.rows_sum(in_sums), small


def _softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    shifted, e, sums, small = _shifted_and_sums(logits)
    loss = _eigen_sum.rows_sum(labels * (log(sums)[:, None] - shifted))
    backprop = np.divide(e, sums[:, None], out=e)
    if small:
        flush(backprop)
    # exp / sum - labels may be subnormal wherever labels are near the probabilities
    return loss, flush(np.subtract(backprop, labels, out=backprop))


def softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = sum(labels * (log(sum) - shifted)), backprop =
    exp(shifted) / sum - labels."""
    return _quietly(_softmax_xent, logits, labels)  # type: ignore[no-any-return]


def _sparse_softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    shifted, e, sums, small = _shifted_and_sums(logits)
    rows = np.arange(logits.shape[0])
    loss = _LOGF(sums)
    loss -= shifted[rows, labels]
    backprop = np.divide(e, sums[:, None], out=e)
    if small:
        flush(backprop)
    # (a probability minus 1 is a multiple of 2**-24: never subnormal)
    backprop[rows, labels] -= _ONE
    return loss, backprop


def sparse_softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = log(sum) - shifted[label] (libm's log), backprop =
    exp(shifted) / sum - onehot(label)."""
    return _quietly(_sparse_softmax_xent, logits, labels)  # type: ignore[no-any-return]
