"""float32 exp, log and log1p as TensorFlow 1.15's CPU kernels compute them, and what TF builds on
them (softplus, elu, selu, softmax, the softmax cross entropies).

TF 1.15's wheel evaluates elementwise ops with Eigen over AVX packets of eight floats, built
without FMA: exp and log are Cephes polynomials (Eigen's pexp_float / plog_float). A tensor's
last `size % 8` values take the scalar path: std::exp / std::log (libm, correctly rounded but
for rare cases: computed here in float64 and rounded). numpy's own functions round differently
in the last bit or two, which RL programs printing rewards with many digits (a softplus scale,
a softmax policy) and sampling programs (a nucleus threshold on cumulative probabilities)
showed after a few steps. Each function here repeats Eigen's float32 operations one by one
(numpy's float32 arithmetic rounds as the AVX instructions do), so the bits are TF's.

tanh and the logistic stay numpy's (a few ulps from Eigen's rational functions): repeating
Eigen's ~25 float32 passes made them ~10x slower than numpy's vectorized functions, which
made an LSTM training step 1.2x and its forward 1.4x slower (bench/compare_revisions.py,
lstm_training), in the loops where these activations run hundreds of times per step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_sum

_PACKET = 8
_F = np.float32
_MIN_NORMAL = np.array(0x00800000, np.int32).view(_F)
Fn = Callable[[np.ndarray], np.ndarray]


def applies(xp: Any, x: Any) -> bool:
    """Whether a kernel gives TF 1.15's Eigen bits for `x`: float32 on the host (other dtypes
    and GPUs keep their own functions, as TF's GPUs do)."""
    return xp is np and x.dtype == np.float32


def _flush(a: np.ndarray) -> np.ndarray:
    """Subnormals to signed zeros, in place: TF's executor runs kernels with the CPU's
    flush-to-zero and denormals-are-zero modes on."""
    tiny = np.abs(a) < _MIN_NORMAL
    if tiny.any():
        a[tiny] = np.copysign(_F(0), a[tiny])
    return a


def _packets_then_tail(x: np.ndarray, packet: Fn, scalar: Fn) -> np.ndarray:
    """packet over the whole tensor, then its last size % 8 values again by scalar."""
    flat = _flush(np.array(x, dtype=_F).reshape(-1))
    with np.errstate(all="ignore"):
        out = packet(flat)
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            out[tail:] = scalar(flat[tail:])
    return _flush(out).reshape(np.shape(x))


def _libm(fn: Fn) -> Fn:
    return lambda v: fn(v.astype(np.float64)).astype(_F)


# ---- exp (pexp_float) ------------------------------------------------------------------------
_EXP_POLY = (8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)


def _exp_packet(a: np.ndarray) -> np.ndarray:
    x = np.clip(a, _F(-88.3762626647949), _F(88.3762626647950))
    # m = floor(x * log2(e) + 1/2); r = x - m*ln 2 in two parts (no FMA)
    m = x * _F(1.44269504088896341)
    m += _F(0.5)
    np.floor(m, out=m)
    r = x
    r -= m * _F(0.693359375)
    r -= m * _F(-2.12194440e-4)
    r2 = r * r
    y = r * _F(1.9875691500e-4)
    y += _F(1.3981999507e-3)
    for c in _EXP_POLY:
        y *= r
        y += _F(c)
    y *= r2
    y += r
    y += _F(1)
    # 2**m built from its exponent bits (m = -127 gives 0, m = 128 infinity), as pldexp
    m += _F(127)
    scale = (m.astype(np.int32) << 23).view(_F)
    y *= scale
    return np.maximum(y, a, out=y)


def exp(x: np.ndarray) -> np.ndarray:
    return _packets_then_tail(x, _exp_packet, _libm(np.exp))


# ---- log (plog_float) ------------------------------------------------------------------------


def _log_packet(a: np.ndarray) -> np.ndarray:
    x = np.maximum(a, _MIN_NORMAL)
    bits = x.view(np.int32)
    # frexp: the mantissa in [0.5, 1), the exponent as a float
    e = (bits >> 23).astype(_F)
    e -= _F(126)
    x = ((bits & np.int32(~0x7F800000)) | np.int32(0x3F000000)).view(_F)
    below = x < _F(0.707106781186547524)
    tmp = np.where(below, x, _F(0))
    x -= _F(1)
    e -= below.astype(_F)
    x += tmp
    x2 = x * x
    x3 = x2 * x
    y = x * _F(7.0376836292e-2)
    y += _F(-1.1514610310e-1)
    y1 = x * _F(-1.2420140846e-1)
    y1 += _F(1.4249322787e-1)
    y2 = x * _F(2.0000714765e-1)
    y2 += _F(-2.4999993993e-1)
    y *= x
    y += _F(1.1676998740e-1)
    y1 *= x
    y1 += _F(-1.6668057665e-1)
    y2 *= x
    y2 += _F(3.3333331174e-1)
    y *= x3
    y += y1
    y *= x3
    y += y2
    y *= x3
    y += e * _F(-2.12194440e-4)
    x -= x2 * _F(0.5)
    x += y
    x += e * _F(0.693359375)
    # log(0) = -inf, log(inf) = inf, log of a negative or NaN is NaN
    x[a == np.inf] = np.inf
    x[~(a >= 0)] = np.nan
    x[a == 0] = -np.inf
    return x


def log(x: np.ndarray) -> np.ndarray:
    return _packets_then_tail(x, _log_packet, _libm(np.log))


# ---- log1p (generic_plog1p: Kahan's formula over plog) ---------------------------------------


def _log1p_packet(a: np.ndarray) -> np.ndarray:
    xp1 = a + _F(1)
    log1 = _log_packet(xp1)
    large = a * (log1 / (xp1 - _F(1)))
    # x itself where 1 + x rounds to 1, and where the log is infinite (1 + x = inf)
    return np.where((xp1 == _F(1)) | (xp1 == log1), a, large)


def log1p(x: np.ndarray) -> np.ndarray:
    return _packets_then_tail(x, _log1p_packet, _libm(np.log1p))


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
    with np.errstate(all="ignore"):
        pos = _flush(x * SELU_SCALE)
        return np.where(x <= -_MIN_NORMAL, SELU_SCALE_ALPHA * (exp(x) - _F(1)), pos)


# ---- softmax cross entropy (TF 1.15's XentEigenImpl / SparseXentEigenImpl) --------------------
def _exps(shifted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """exp(shifted) twice, as TF's kernel reads it: inside the row sums (Eigen's inner-most
    reducer reads each row's first 8k values by packets, the rest by the scalar path) and
    elementwise for the backprop (packets over the flat tensor, its last size % 8 values by
    the scalar path). The packet formula is elementwise: one pass over the tensor serves both."""
    rows, cols = shifted.shape
    flat = _flush(np.array(shifted, dtype=_F).reshape(-1))
    with np.errstate(all="ignore"):
        packets = _flush(_exp_packet(flat))
        in_sums = packets.reshape(rows, cols)
        k = cols - cols % _PACKET
        if k < cols:
            in_sums = in_sums.copy()
            in_sums[:, k:] = _flush(_libm(np.exp)(flat.reshape(rows, cols)[:, k:]))
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            packets[tail:] = _flush(_libm(np.exp)(flat[tail:]))
    return in_sums, packets.reshape(rows, cols)


def _shifted_and_sums(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shifted logits, their exp (elementwise) and each row's sum of exps."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    in_sums, elementwise = _exps(shifted)
    return shifted, elementwise, _eigen_sum.rows_sum(in_sums)


def softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = sum(labels * (log(sum) - shifted)), backprop =
    exp(shifted) / sum - labels."""
    shifted, e, sums = _shifted_and_sums(logits)
    with np.errstate(all="ignore"):
        loss = _eigen_sum.rows_sum(labels * (log(sums)[:, None] - shifted))
        backprop = e / sums[:, None] - labels
    return loss, backprop


def sparse_softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = log(sum) - shifted[label] (libm's log), backprop =
    exp(shifted) / sum - onehot(label)."""
    shifted, e, sums = _shifted_and_sums(logits)
    rows = np.arange(logits.shape[0])
    with np.errstate(all="ignore"):
        loss = _libm(np.log)(sums) - shifted[rows, labels]
        backprop = e / sums[:, None]
    backprop[rows, labels] -= _F(1)
    return loss, backprop
