"""float32 tanh and the logistic as TensorFlow 1.15's CPU kernels compute them.

TF 1.15's Tanh and Sigmoid run Eigen over AVX packets of eight floats, built without FMA:
tanh is generic_fast_tanh_float (the input clamped to [-9, 9], a degree-13 odd numerator over
a degree-6 even denominator, Horner in float32), the logistic scalar_logistic_op<float>'s
packet form (clamped to [-18, 18], a degree-9 / degree-10 rational function of the shifted
logistic, plus 1/2, clamped to [0, 1]). A tensor's last `size % 8` values take the scalar
path: the same rational tanh (std::min / std::max clamp NaN as the packets do), but for the
logistic 0 below -18, 1 above 18, else 1 / (1 + expf(-x)) with glibc's expf. Subnormal inputs
read as zero and subnormal products flush to zero (TF runs kernels with FTZ and DAZ on).

Each function repeats Eigen's float32 operations one by one (numpy's float32 arithmetic rounds
as the AVX instructions do), over blocks that stay in cache, in arrays owned by the call.

That is about 24 numpy passes where numpy's tanh makes one (its AVX-512 tanh) and the current
logistic five, and numpy's fixed cost per call (~0.3 us) makes even a scalar's ~10 us. So the
kernels give these bits only to tensors of up to EXACT_UP_TO values (a printed scalar, an
actor's few actions, a toy RNN's gates); larger ones keep numpy's functions, a few ulps from
TF's. Measured on 1 core of a loaded 2-core host (medians of repeats): np.tanh -> this tanh:
8 values 0.25 -> 10-18 us, [64, 256] 3 -> 70-100 us, [3200, 1024] 0.6 -> 18-27 ms; current
logistic -> this one: [64, 256] 13-50 -> 85-130 us, [3200, 1024] 7-10 -> 19-33 ms. With every
tensor up to 256 values exact, a BasicLSTMCell dynamic_rnn of batch 1-4 and 32-64 units ran
its forward 1.6-2.9x and its training step 1.1-2.7x slower, and a chain of 20 (tanh, sigmoid)
on 8 values 7x slower (TF 1.15: 1-1.6x the old time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_math, _libm_float
from tfcluster.runtime import float_errors

_F = np.float32
_PACKET = 8
# Values per block: the input, the output and three scratch arrays of this many floats stay
# in a core's L2 cache; numpy's fixed cost per call (about half a microsecond) is small
# against a block.
_BLOCK = 8192
_MIN_NORMAL = _F(np.finfo(_F).tiny)
# Tensors of up to this many values get TF's bits from the kernels (see above).
EXACT_UP_TO = 8

_TANH_CLAMP = _F(9)
_TANH_NUM = tuple(
    _F(c)
    for c in (
        -2.76076847742355e-16,
        2.00018790482477e-13,
        -8.60467152213735e-11,
        5.12229709037114e-08,
        1.48572235717979e-05,
        6.37261928875436e-04,
        4.89352455891786e-03,
    )
)
_TANH_DEN = tuple(
    _F(c)
    for c in (
        1.19825839466702e-06,
        1.18534705686654e-04,
        2.26843463243900e-03,
        4.89352518554385e-03,
    )
)
# Below this |x| the odd numerator's last product x * alpha_1 is subnormal, which TF flushes:
# tanh is +-0 there (also for subnormal x, read as zero). x * x is subnormal long before,
# but the polynomials' values do not change with it: only this product matters.
_TANH_FLUSH_BELOW = _F(2.0**-126 / 4.89352455891786e-03)
# A block whose smallest x * x is at or above this holds no |x| below _TANH_FLUSH_BELOW.
_TANH_TINY_SQUARE = _F(2.0**-100)

_LOGISTIC_CLAMP = _F(18)
_LOGISTIC_NUM = tuple(
    _F(c)
    for c in (
        4.37031012579801e-11,
        1.15627324459942e-07,
        6.08574864600143e-05,
        8.51377133304701e-03,
        2.48287947061529e-01,
    )
)
_LOGISTIC_DEN = tuple(
    _F(c)
    for c in (
        6.10247389755681e-13,
        5.76102136993427e-09,
        6.29106785017040e-06,
        1.70198817374094e-03,
        1.16817656904453e-01,
        9.93151921023180e-01,
    )
)
_HALF, _ONE, _ZERO = _F(0.5), _F(1), _F(0)


def _spread(value: float) -> np.ndarray:
    """A read-only block of `value`: numpy's maximum and minimum take their vectorized loop
    only between two arrays (against a scalar, a generic one several times slower)."""
    out = np.full(_BLOCK, value, _F)
    out.flags.writeable = False
    return out


_TANH_HI, _TANH_LO = _spread(9), _spread(-9)
_LOGISTIC_HI, _LOGISTIC_LO = _spread(18), _spread(-18)
_ONES, _ZEROS = _spread(1), _spread(0)


def cheap(xp: Any, x: Any) -> bool:
    """Whether a kernel gives `x` TF 1.15's bits: a float32 host tensor of up to EXACT_UP_TO
    values (other dtypes and GPUs keep their own functions, as TF's GPUs do)."""
    return xp is np and x.dtype == _F and x.size <= EXACT_UP_TO


def _horner(x2: np.ndarray, coefs: tuple[np.float32, ...], out: np.ndarray) -> np.ndarray:
    """((c0 * x2 + c1) * x2 + c2) ... into out: Eigen's pmadd without FMA, a product then a
    sum, each rounded."""
    np.multiply(x2, coefs[0], out)
    out += coefs[1]
    for c in coefs[2:]:
        out *= x2
        out += c
    return out


def _tanh_block(
    a: np.ndarray, out: np.ndarray, x: np.ndarray, x2: np.ndarray, q: np.ndarray
) -> None:
    """generic_fast_tanh_float of the 1-D `a` into `out` (the scratch arrays as long)."""
    m = a.size
    np.minimum(a, _TANH_HI[:m], out=x)  # NaN stays NaN, as pmin/pmax's order keeps it
    np.maximum(x, _TANH_LO[:m], out=x)
    np.multiply(x, x, x2)
    p = _horner(x2, _TANH_NUM, out)
    p *= x
    np.divide(p, _horner(x2, _TANH_DEN, q), out)
    # (a NaN minimum hides the others: then each is compared)
    if x2.size and not np.minimum.reduce(x2) >= _TANH_TINY_SQUARE:
        tiny = np.abs(a) < _TANH_FLUSH_BELOW
        out[tiny] = np.copysign(_ZERO, a[tiny])


def _logistic_block(
    a: np.ndarray, out: np.ndarray, x: np.ndarray, x2: np.ndarray, q: np.ndarray
) -> None:
    """scalar_logistic_op<float>'s packet form of the 1-D `a` into `out`. Its products never
    flush where the result would change: x * alpha_1 is tiny only where the 1/2 added swallows
    it, and no result is subnormal."""
    m = a.size
    np.minimum(a, _LOGISTIC_HI[:m], out=x)
    np.maximum(x, _LOGISTIC_LO[:m], out=x)
    np.multiply(x, x, x2)
    p = _horner(x2, _LOGISTIC_NUM, out)
    p *= x
    np.divide(p, _horner(x2, _LOGISTIC_DEN, q), out)
    out += _HALF
    np.minimum(out, _ONES[:m], out=out)
    np.maximum(out, _ZEROS[:m], out=out)


Block = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


def _blocked(flat: np.ndarray, block_fn: Block) -> np.ndarray:
    """block_fn over `flat` (1-D float32) in cache-sized blocks, into a new array."""
    n = flat.size
    out = np.empty(n, _F)
    size = min(n, _BLOCK)
    x, x2, q = np.empty(size, _F), np.empty(size, _F), np.empty(size, _F)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        m = stop - start
        block_fn(flat[start:stop], out[start:stop], x[:m], x2[:m], q[:m])
    return out


def _logistic_tail(v: np.ndarray) -> np.ndarray:
    """The scalar path: 0 below -18, 1 above 18, else 1 / (1 + expf(-x)) (NaN stays NaN)."""
    v = _eigen_math.flush(np.array(v, dtype=_F))
    out = np.reciprocal(_ONE + _libm_float.expf(np.negative(v)))
    out[v < -_LOGISTIC_CLAMP] = _ZERO
    out[v > _LOGISTIC_CLAMP] = _ONE
    return out


def _flat(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=_F).reshape(-1)


def tanh(x: np.ndarray) -> np.ndarray:
    """TF 1.15's float32 Tanh on the CPU: the rational function on every value (the scalar
    tail computes the same)."""
    if float_errors.silenced():
        return _blocked(_flat(x), _tanh_block).reshape(np.shape(x))
    with np.errstate(all="ignore"):
        return _blocked(_flat(x), _tanh_block).reshape(np.shape(x))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """TF 1.15's float32 Sigmoid on the CPU: packets, then the last size % 8 values by the
    scalar path."""
    if float_errors.silenced():
        return _sigmoid(x)
    with np.errstate(all="ignore"):
        return _sigmoid(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    flat = _flat(x)
    out = _blocked(flat, _logistic_block)
    tail = flat.size - flat.size % _PACKET
    if tail < flat.size:
        out[tail:] = _logistic_tail(flat[tail:])
    return out.reshape(np.shape(x))
