"""Float32 square roots as TF 1.15's CPU kernels take them.

Eigen (built with EIGEN_FAST_MATH, as TF 1.15's wheel is) takes the square root of a whole AVX
packet of 8 floats as `rsqrtps`'s 12-bit estimate y, one Newton step y * (1.5 - x/2 * y * y),
then x times that: not correctly rounded (about a third of the values come out an ulp from
numpy's sqrt), and it gives 0 for inputs under FLT_MIN (subnormals, +-0) and NaN for +inf.
TF's threads flush subnormals to zero, so the Newton step's y * y of a huge x (or x / 2 of a
tiny one) drops out and the root comes out 1.5 times too large.
Values outside whole packets (an expression's last size % 8) take std::sqrt, correctly rounded.
Adam's update divides by such roots, so its steps carry those ulps, and an RL program's
episodes drift apart from TF's within a few hundred steps.

The estimate is the CPU's: rsqrtps_table.json holds it as measured on the machine the TF 1.15
references were recorded on (tools/record_rsqrtps_table.py); where that table is absent every
value takes numpy's correctly rounded sqrt.
"""

from __future__ import annotations

import base64
import json
import os
from functools import cache
from typing import Any

import numpy as np

LANES = 8  # float32 lanes of an AVX packet
_TABLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rsqrtps_table.json")
_FLT_MIN = np.float32(np.finfo(np.float32).tiny)
_DEFAULT_NAN = np.array(0xFFC00000, np.uint32).view(np.float32)


@cache
def table() -> np.ndarray | None:
    """rsqrtps's estimate, as float32 bits, of every positive float32 indexed by its bits >> 11
    (its exponent field, then its top 12 mantissa bits): one gather per value. None without
    the measured table."""
    try:
        with open(_TABLE_FILE) as f:
            bits = base64.b64decode(json.load(f)["bits"])
    except (OSError, ValueError, KeyError):
        return None
    # The measured rows: an odd exponent field reads the row of [1, 2), an even one that of
    # [2, 4); x * 4^k has the estimate of x times 2^-k.
    rows = np.frombuffer(bits, "<u4").reshape(2, 4096).astype(np.int64)
    mantissas = np.concatenate([rows[1], rows[0]])
    index = np.arange(1 << 20, dtype=np.int64)
    halved_exponent = ((index >> 12) - 127) >> 1
    return (mantissas[index & 0x1FFF] - (halved_exponent << 23)).astype(np.int32)


def rsqrt_estimate(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """rsqrtps of normal positive float32 values (others give meaningless numbers: the
    caller masks them; a negative value's bits >> 11 is a negative index, still in range)."""
    index = x.view(np.int32) >> 11
    return np.take(table, index).view(np.float32)


def _flushed(v: np.ndarray) -> np.ndarray:
    """v with subnormals flushed to (signed) zero, as TF's threads run (FTZ and DAZ on)."""
    return np.where(np.abs(v) < _FLT_MIN, v * np.float32(0), v)


# Inputs within which no step of the Newton iteration meets a subnormal or special value.
_PLAIN_LOW, _PLAIN_HIGH = np.float32(2.5e-38), np.float32(8.0e37)
# Values per block of a large tensor (256 KB of float32).
_BLOCK = 1 << 16


def _newton(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One Newton step of the estimate y of 1 / sqrt(x): y * (1.5 - x / 2 * y * y), in
    float32 with subnormal steps flushed. x, y within the plain range of x."""
    t = y * y
    t *= x * np.float32(0.5)
    np.subtract(np.float32(1.5), t, out=t)
    t *= y
    return t


def _newton_flushed(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    half = _flushed(x * np.float32(0.5))
    return y * (np.float32(1.5) - _flushed(half * _flushed(y * y)))


def _in_blocks(fn: Any, x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """fn over cache-sized blocks of a large x: the temporaries stay in a core's cache."""
    out = np.empty_like(x)
    for a in range(0, x.size, _BLOCK):
        out[a : a + _BLOCK] = fn(x[a : a + _BLOCK], table)
    return out


def _plain(x: np.ndarray) -> bool:
    """Whether no step meets a subnormal or a special value (False with a NaN)."""
    return bool(x.size and x.min() >= _PLAIN_LOW and x.max() <= _PLAIN_HIGH)


def packet_sqrt(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Eigen's fast-math psqrt<Packet8f> of every value of float32 x: x times the Newton
    step of the estimate."""
    if x.size > _BLOCK:
        return _in_blocks(packet_sqrt, x, table)
    if _plain(x):
        t = _newton(x, rsqrt_estimate(x, table))
        t *= x
        return t
    with np.errstate(all="ignore"):
        y = rsqrt_estimate(x, table)
        y = np.where(x == np.inf, np.float32(0), y)
        out = x * _newton_flushed(x, y)
    # 0 <= x < FLT_MIN (zeros and subnormals) gives +0; a negative x the x86 default NaN
    # (sign bit set); a NaN itself.
    out = np.where((x >= 0) & (x < _FLT_MIN), np.float32(0), out)
    out = np.where(x < 0, _DEFAULT_NAN, out)
    return np.where(np.isnan(x), x, out).astype(np.float32)


def packet_rsqrt(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Eigen's fast-math prsqrt<Packet8f> of every value of float32 x: the Newton step of
    the estimate; inf for 0 <= x < FLT_MIN, NaN for a negative x and for +inf (its Newton
    step's inf * 0)."""
    if x.size > _BLOCK:
        return _in_blocks(packet_rsqrt, x, table)
    if _plain(x):
        return _newton(x, rsqrt_estimate(x, table))
    with np.errstate(all="ignore"):
        y = rsqrt_estimate(x, table)
        out = _newton_flushed(x, np.where(x == np.inf, np.float32(0), y))
    out = np.where((x >= 0) & (x < _FLT_MIN), np.float32(np.inf), out)
    # A negative x gives NaN (Eigen's, sign bit clear), -inf the x86 default NaN: its Newton
    # step multiplies inf by 0 before Eigen's NaN is or-ed in.
    out = np.where(x < 0, np.where(x == -np.inf, _DEFAULT_NAN, np.float32(np.nan)), out)
    return np.where(np.isnan(x), x, out).astype(np.float32)


def tf_rsqrt_float32(x: np.ndarray) -> np.ndarray:
    """rsqrt of float32 x as one TF 1.15 CPU expression evaluates it: whole packets of the
    flat tensor by prsqrt, the last size % 8 values as 1 / std::sqrt (two roundings)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.float32(1) / np.sqrt(x)
    rsqrtps = table()
    if rsqrtps is None or x.dtype != np.float32:
        return out
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    packed = x.size - x.size % LANES
    if packed:
        flat_out[:packed] = packet_rsqrt(flat_in[:packed], rsqrtps)
    return out


def tf_sqrt_float32(x: np.ndarray) -> np.ndarray:
    """sqrt of float32 x as one TF 1.15 CPU expression evaluates it: whole packets of the
    flat tensor by psqrt, the last size % 8 values by std::sqrt."""
    return sqrt_in_blocks(x, [(0, x.size)])


def sqrt_in_blocks(x: np.ndarray, blocks: list[tuple[int, int]]) -> np.ndarray:
    """sqrt of float32 x where each [start, limit) of its flat values (in order, disjoint) is
    an expression of its own (a shard of a parallelFor): each block's whole packets by psqrt,
    its tail (and any value outside the blocks) exactly."""
    rsqrtps = table()
    if rsqrtps is None or x.dtype != np.float32:
        with np.errstate(invalid="ignore"):
            return np.sqrt(x)
    flat_in = x.reshape(-1)
    out = np.empty_like(x)
    flat_out = out.reshape(-1)
    covered = 0
    for start, limit in blocks:
        packed = start + (limit - start) // LANES * LANES
        if packed > start:
            flat_out[start:packed] = packet_sqrt(flat_in[start:packed], rsqrtps)
        with np.errstate(invalid="ignore"):
            # The values before the block and its tail (after its whole packets): exact.
            np.sqrt(flat_in[covered:start], out=flat_out[covered:start])
            np.sqrt(flat_in[packed:limit], out=flat_out[packed:limit])
        covered = limit
    with np.errstate(invalid="ignore"):
        np.sqrt(flat_in[covered:], out=flat_out[covered:])
    return out


def xp_sqrt(xp: Any, x: Any) -> Any:
    """sqrt as one of TF's CPU expressions takes it (float32 on the host by Eigen's packets)."""
    if xp is np and x.dtype == np.float32:
        return tf_sqrt_float32(x)
    return xp.sqrt(x)


def xp_rsqrt(xp: Any, x: Any) -> Any:
    """rsqrt as one of TF's CPU expressions takes it (float32 on the host by Eigen's packets;
    else 1 / sqrt)."""
    if xp is np and x.dtype == np.float32:
        return tf_rsqrt_float32(np.asarray(x))
    return 1 / xp.sqrt(x)


def xp_rsqrt_rows(xp: Any, x: Any) -> Any:
    """rsqrt of each row of x (its first axis) as TF 1.15's sparse updates take it, one CPU
    expression per row (a `chip<0>` of the variable's rows): each row's whole packets by
    prsqrt, its last size % 8 values as 1 / std::sqrt (float32 on the host; else 1 / sqrt)."""
    return _by_rows(xp, x, packet_rsqrt, lambda rows: np.float32(1) / np.sqrt(rows), rsqrt=True)


def xp_sqrt_rows(xp: Any, x: Any) -> Any:
    """sqrt of each row of x as TF 1.15's sparse updates take it: each row's whole packets by
    psqrt, the rest by std::sqrt (float32 on the host; else sqrt)."""
    return _by_rows(xp, x, packet_sqrt, np.sqrt, rsqrt=False)


def _by_rows(xp: Any, x: Any, packet: Any, exact: Any, rsqrt: bool) -> Any:
    if xp is not np or x.dtype != np.float32 or x.ndim < 2:
        return 1 / xp.sqrt(x) if rsqrt else xp.sqrt(x)
    rows = np.asarray(x).reshape(x.shape[0], -1)
    rsqrtps = table()
    packed = rows.shape[1] - rows.shape[1] % LANES if rsqrtps is not None else 0
    if not (packed and rows.size):
        with np.errstate(divide="ignore", invalid="ignore"):
            return exact(rows).reshape(x.shape)  # type: ignore[no-any-return]
    out = np.empty(rows.shape, np.float32)
    heads = np.ascontiguousarray(rows[:, :packed]).reshape(-1)
    out[:, :packed] = packet(heads, rsqrtps).reshape(rows.shape[0], packed)
    if packed < rows.shape[1]:  # each row's tail, exactly (only those values)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, packed:] = exact(rows[:, packed:])
    return out.reshape(x.shape)
