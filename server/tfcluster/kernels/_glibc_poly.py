"""glibc's logf and sincosf (glibc 2.28 on: a table and a polynomial evaluated in double), computed
as glibc computes them, vectorised.

TF's Box-Muller normal draws call logf and sincosf for every value. Their results are not correctly
rounded (logf up to 0.82 ulp, sincosf 0.56 ulp): the double each one rounds to a float carries the
polynomial's own error, so the float that comes out is decided by that double. Evaluating the same
table and polynomial in double here gives the same double up to a few of its last bits, hence the
same float but where that double lies within a few double ulps of halfway between two floats
(none in 10^7 draws of each against glibc). On x86-64 CPUs with FMA and AVX2 glibc runs a build of
the same code compiled with FMA contraction (a * b + c rounded once). That matters where the
reductions cancel (z / c - 1, x - n * pi/2): `_fused_reduce` computes those rounded once; the
polynomials' other steps round their products, at most a double ulp off the fused value.
"""

from __future__ import annotations

from functools import cache

import numpy as np


@cache
def fused() -> bool:
    """Whether glibc picks its FMA build (x86-64: FMA and AVX2 usable) or the target always fuses
    (aarch64)."""
    import platform

    if platform.machine().lower() in ("aarch64", "arm64"):
        return True
    try:
        features = np._core._multiarray_umath.__cpu_features__  # type: ignore[attr-defined]
    except AttributeError:
        return False
    return bool(features.get("FMA3") and features.get("AVX2"))


def _split(value: float, bits: int) -> tuple[float, float]:
    """value as hi + lo with hi keeping its leading `bits` bits."""
    hi = float(np.ldexp(np.round(np.ldexp(np.frexp(value)[0], bits)), np.frexp(value)[1] - bits))
    return hi, value - hi


def _fused_reduce(
    a: np.ndarray, b_hi: np.ndarray | float, b_lo: np.ndarray | float, c: np.ndarray | float
) -> np.ndarray:
    """c - a * b, rounded once where glibc's build fuses it (b = b_hi + b_lo, a * b_hi exact and
    c - a * b_hi exact by Sterbenz's lemma: the reductions cancel), rounded twice otherwise."""
    if not fused():
        return c - a * (b_hi + b_lo)
    return (c - a * b_hi) - a * b_lo


# logf: 16 subintervals of [0x3f330000, 2 * 0x3f330000) as floats; (1/c, log(c)) for a c near each
# one's centre, glibc's values.
_LOGF_INVC = np.array(
    [float.fromhex(h) for h in (
        "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
        "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
        "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0",
        "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
        "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1",
        "0x1.767dcf5534862p-1",
    )]
)  # fmt: skip
_LOGF_LOGC = np.array(
    [float.fromhex(h) for h in (
        "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
        "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
        "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5",
        "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4",
        "0x1.526e57720db08p-3", "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2",
        "0x1.4043057b6ee09p-2",
    )]
)  # fmt: skip
_LOGF_INVC_HI = np.array([_split(v, 26)[0] for v in _LOGF_INVC])
_LOGF_INVC_LO = _LOGF_INVC - _LOGF_INVC_HI
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
# log1p(r) ~ r + A0 r^2 + A1 r^3 + A2 r^4.
_LOGF_A0, _LOGF_A1, _LOGF_A2 = (
    float.fromhex(h)
    for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")
)
_LOGF_OFF = 0x3F330000


def logf_normal(x: np.ndarray) -> np.ndarray:
    """glibc's logf of positive normal finite float32 values (the caller handles the rest)."""
    ix = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    tmp = ix - np.uint32(_LOGF_OFF)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = tmp.view(np.int32) >> np.int32(23)
    iz = ix - (tmp & np.uint32(0x1FF << 23))
    z = iz.view(np.float32).astype(np.float64)
    # r = z / c - 1 = z * invc - 1 (fused: z * invc_hi has 24 + 26 bits, within [0.5, 2]).
    r = -_fused_reduce(z, _LOGF_INVC_HI[i], _LOGF_INVC_LO[i], 1.0)
    y0 = _LOGF_LOGC[i] + k.astype(np.float64) * _LN2
    r2 = r * r
    y = _LOGF_A1 * r + _LOGF_A2
    y = _LOGF_A0 * r2 + y
    y = y * r2 + (y0 + r)
    out = y.astype(np.float32)
    # x == 1 gives +0 (its own branch in glibc).
    out[ix == np.uint32(0x3F800000)] = np.float32(0.0)
    return out


# sincosf: cosine 1 + C1 x^2 + ... + C4 x^8, sine x + S1 x^3 + S2 x^5 + S3 x^7.
_COS = [1.0] + [
    float.fromhex(h)
    for h in (
        "-0x1.ffffffd0c621cp-2",
        "0x1.55553e1068f19p-5",
        "-0x1.6c087e89a359dp-10",
        "0x1.99343027bf8c3p-16",
    )
]
_SIN = [
    float.fromhex(h)
    for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")
]
_HPI = float.fromhex("0x1.921FB54442D18p0")
# 2/pi scaled by 2^24: the quadrant lands in bits 24.. of the truncated product (x86-64 has no
# round-to-int intrinsic in glibc's build).
# n * _HPI_HI is exact for quadrants n < 128 (|x| < 120).
_HPI_HI, _HPI_LO = _split(_HPI, 46)
_HPI_INV_2_24 = float.fromhex("0x1.45F306DC9C883p+23")
_ABSTOP12_TINY = 0x39800000 >> 20  # 0x1p-12f
_ABSTOP12_120 = 0x42F00000 >> 20  # 120.0f


def sincosf_reduced_range(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """glibc's (sinf, cosf) of float32 values with |y| < 120, and the mask of values it covered
    (the others: |y| >= 120, inf, nan, are left as zeros for the caller)."""
    y = np.ascontiguousarray(y, dtype=np.float32)
    top = (y.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    covered = top < _ABSTOP12_120
    x = y.astype(np.float64)
    if not covered.all():
        x = np.where(covered, x, 0.0)
    # Quadrant n: ((int32)(x * 2^24 * 2/pi) + 2^23) >> 24; 0 below pi/4, where glibc skips the
    # reduction (x - 0 * pi/2 is x).
    n = ((x * _HPI_INV_2_24).astype(np.int32) + np.int32(0x800000)) >> np.int32(24)
    xr = _fused_reduce(n.astype(np.float64), _HPI_HI, _HPI_LO, x)
    # The sine's sign is negative in quadrants 1 and 2; glibc's second table (quadrants 2 and 3)
    # negates the cosine polynomial.
    sign = 1.0 - ((n + 1) & 2).astype(np.float64)
    cos_sign = 1.0 - (n & 2).astype(np.float64)
    xs = xr * sign
    x2 = xr * xr
    x4 = x2 * x2
    x3 = x2 * xs
    c2 = cos_sign * _COS[3] + x2 * (cos_sign * _COS[4])
    s1 = _SIN[1] + x2 * _SIN[2]
    c1 = cos_sign * _COS[0] + x2 * (cos_sign * _COS[1])
    x5 = x3 * x2
    x6 = x4 * x2
    s = xs + x3 * _SIN[0]
    c = c1 + x4 * (cos_sign * _COS[2])
    sin_poly = (s + x5 * s1).astype(np.float32)
    cos_poly = (c + x6 * c2).astype(np.float32)
    odd = (n & 1) != 0
    sin = np.where(odd, cos_poly, sin_poly)
    cos = np.where(odd, sin_poly, cos_poly)
    tiny = top < _ABSTOP12_TINY
    if tiny.any():
        sin = np.where(tiny, y, sin)
        cos = np.where(tiny, np.float32(1.0), cos)
    return sin, cos, covered
