"""float32 sin, cos and tan as TensorFlow 1.15's CPU kernels compute them.

TF 1.15's wheel runs Sin and Cos with Eigen over AVX packets of eight floats, built without
FMA: Eigen's psincos_float (a 4-part Cody-Waite reduction by pi/2 below a threshold,
Payne-Hanek above it, then a degree-8 cos or degree-7 sin polynomial picked by the
quadrant). A tensor's last `size % 8` values take the scalar path, glibc's sinf / cosf, and
Tan has no packet version: glibc's tanf on every value. numpy's float32 functions differ in
the last bit for about one value in ten, which a notebook printing a scalar loop of sin/cos
terms showed after 100 steps. The packet code below repeats Eigen's float32 operations one by
one (numpy's float32 arithmetic rounds as the AVX instructions do).
"""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _eigen_math, _libm_float

_F = np.float32
_TWO_OVER_PI = _F(0.636619746685028076171875)
_ROUNDING_MAGIC = _F(12582912)  # 1.5 * 2**23: adding it leaves round(y) in the low bits
# -pi/2 in four float32 parts (Eigen's coefficients without FMA).
_PIO2_PARTS = tuple(
    _F(c)
    for c in (
        -1.5703125,
        -0.000483989715576171875,
        1.62865035235881805419921875e-07,
        5.5644315544167710640977020375430583953857421875e-11,
    )
)
# Above these, the reduction is Payne-Hanek's (Eigen keeps 2 ulps up to them without FMA).
_HUGE_SIN, _HUGE_COS = _F(25966.0), _F(18838.0)
_COS_POLY = tuple(
    _F(c)
    for c in (
        2.4372266125283204019069671630859375e-05,
        -0.00138865201734006404876708984375,
        0.041666619479656219482421875,
        -0.5,
        1.0,
    )
)
_SIN_POLY = tuple(
    _F(c)
    for c in (
        -0.0001959234114083702898469196984621021329076029360294342041015625,
        0.0083326873655616851693794799871284340042620897293090820312500000,
        -0.1666666203982298255503735617821803316473960876464843750000000000,
    )
)
# 192 bits of 2/pi, by packets of 8 bits (Eigen's table for trig_reduce_huge).
_TWO_OVER_PI_BITS = (
    0x00000028, 0x000028BE, 0x0028BE60, 0x28BE60DB, 0xBE60DB93, 0x60DB9391, 0xDB939105,
    0x9391054A, 0x91054A7F, 0x054A7F09, 0x4A7F09D5, 0x7F09D5F4, 0x09D5F47D, 0xD5F47D4D,
    0xF47D4D37, 0x7D4D3770, 0x4D377036, 0x377036D8, 0x7036D8A5, 0x36D8A566, 0xD8A5664F,
    0xA5664F10, 0x664F10E4, 0x4F10E410, 0x10E41000, 0xE4100000,
)  # fmt: skip
_PIO2_62 = 3.4061215800865545e-19  # pi/2 * 2**-62
_M32, _M64 = (1 << 32) - 1, (1 << 64) - 1


def _reduce_huge(value: np.float32) -> tuple[np.float32, int]:
    """Eigen's trig_reduce_huge: |x| reduced by pi/2 in 2.62-bit fixed point, and the quadrant."""
    xi = int(np.array(value, _F).view(np.uint32))
    e = ((xi >> 23) - 118) & _M32
    xi = (((xi & 0x007FFFFF) | 0x00800000) << (e & 7)) & _M32
    i = e >> 3
    t1, t2, t3 = (_TWO_OVER_PI_BITS[i - 1], _TWO_OVER_PI_BITS[i + 3], _TWO_OVER_PI_BITS[i + 7])
    p = xi * t3
    p = (xi * t2 + (p >> 32)) & _M64
    p = ((((xi * t1) & _M32) << 32) + p) & _M64
    q = ((p + (1 << 61)) & _M64) >> 62
    p = (p - (q << 62)) & _M64
    signed = p - (1 << 64) if p >> 63 else p
    return _F(float(signed) * _PIO2_62), q


def _poly(coefficients: tuple[np.float32, ...], x2: np.ndarray) -> np.ndarray:
    """Horner's rule as pmadd without FMA: a product and a sum, each rounded."""
    y = np.full_like(x2, coefficients[0])
    for c in coefficients[1:]:
        np.multiply(y, x2, out=y)
        np.add(y, c, out=y)
    return y


def _sincos_packet(a: np.ndarray, sine: bool) -> np.ndarray:
    """Eigen's psincos_float on every value of the 1-D float32 `a`."""
    x = np.abs(a)
    y = np.multiply(x, _TWO_OVER_PI)
    y_round = np.add(y, _ROUNDING_MAGIC)
    quadrant = y_round.view(np.uint32).copy()
    y = np.subtract(y_round, _ROUNDING_MAGIC)
    for part in _PIO2_PARTS:
        x = np.add(np.multiply(y, part), x)
    huge = np.abs(a) >= (_HUGE_SIN if sine else _HUGE_COS)
    for k in np.flatnonzero(huge & np.isfinite(a)):
        x[k], quadrant[k] = _reduce_huge(np.abs(a[k]))
    if sine:
        sign = a.view(np.uint32) ^ (quadrant << np.uint32(30))
    else:
        sign = (quadrant + np.uint32(1)) << np.uint32(30)
    sign &= np.uint32(0x80000000)
    even = (quadrant & np.uint32(1)) == 0
    x2 = np.multiply(x, x)
    cos_poly = _poly(_COS_POLY, x2)
    sin_poly = np.add(np.multiply(np.multiply(_poly(_SIN_POLY, x2), x2), x), x)
    out = np.where(even, sin_poly, cos_poly) if sine else np.where(even, cos_poly, sin_poly)
    return (out.view(np.uint32) ^ sign).view(_F)


def _sinf(v: np.ndarray) -> np.ndarray:
    return _libm_float.sincosf(v)[0]


def _cosf(v: np.ndarray) -> np.ndarray:
    return _libm_float.sincosf(v)[1]


def sin(x: np.ndarray) -> np.ndarray:
    return _eigen_math.packets_then_tail(x, lambda a: _sincos_packet(a, True), _sinf)


def cos(x: np.ndarray) -> np.ndarray:
    return _eigen_math.packets_then_tail(x, lambda a: _sincos_packet(a, False), _cosf)


def tan(x: np.ndarray) -> np.ndarray:
    """glibc's tanf on every value (TF has no packet tan). A subnormal comes back as it went
    in: tanf returns a tiny x itself, with no arithmetic that flush-to-zero would touch."""
    flat = np.array(x, dtype=_F).reshape(-1)
    with np.errstate(all="ignore"):
        return _libm_float.tanf(flat).reshape(np.shape(x))
