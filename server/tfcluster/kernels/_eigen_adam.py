"""TF 1.15's CPU ApplyAdam on float32 variables (ApplyAdamNonCuda), in place.

TF evaluates the update with Eigen in shards of a parallelFor: over packets of 8 values when
the size is a multiple of 8 (every value then in a whole packet), else over single values,
each shard's last values outside a packet. A packet's square root is Eigen's fast-math one
(kernels/_eigen_psqrt.py), a value outside a packet std::sqrt's. TF passes the whole update's
cost as the cost of one item, so variables of more than about 70 values already split between
the intra-op threads, and where the shards end decides which values take the exact root.

The arithmetic is TF's, operation by operation in float32, done in cache-sized blocks in
place (m, v and var are the variables' own arrays).
"""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _eigen_psqrt
from tfcluster.kernels._eigen_parallel import cost_cycles, parallel_for_blocks

# Eigen's cost (cycles) of the update's arithmetic per value: 5 int adds, 2 int multiplies,
# 10 float adds, 6 float multiplies (1 cycle each) and an AVX float division (14).
_CYCLES_PER_VALUE = 5 + 2 + 10 + 6 + 14
# float32 values read (var, m, v, grad) and written (var, m, v) per value.
_LOADED, _STORED = 4, 3
# Values per block (256 KB of float32 per temporary).
_BLOCK = 1 << 16


def shards(size: int, threads: int) -> list[tuple[int, int]]:
    """The [start, limit) ranges of the variable's values TF evaluates as expressions of
    their own."""
    if size % _eigen_psqrt.LANES == 0:
        return [(0, size)]
    per_item = cost_cycles(size * 4 * _LOADED, size * 4 * _STORED, _CYCLES_PER_VALUE * size)
    return parallel_for_blocks(size, per_item, threads)


def _tails(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The values of each range after its last whole packet."""
    lanes = _eigen_psqrt.LANES
    tails = []
    for start, limit in ranges:
        packed = start + (limit - start) // lanes * lanes
        if packed < limit:
            tails.append((packed, limit))
    return tails


def apply_adam(
    var: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    scalars: tuple[np.ndarray, ...],
    grad: np.ndarray,
    nesterov: bool,
    threads: int,
) -> bool:
    """Updates float32 var, m and v in place as TF does; False (nothing done) for a
    variable of fewer than 8 values, where they cannot be written in place as flat arrays,
    or without the rsqrtps table."""
    table = _eigen_psqrt.table()
    if table is None or var.size < _eigen_psqrt.LANES:
        return False  # no packets: every root is std::sqrt's, the generic formula's
    flats = [a.reshape(-1) for a in (var, m, v)]
    if not all(np.shares_memory(f, a) for f, a in zip(flats, (var, m, v))):
        return False
    w, mf, vf = flats
    g = np.ascontiguousarray(grad).reshape(-1)
    b1p, b2p, lr, b1, b2, eps = (np.float32(s) for s in scalars)
    one = np.float32(1)
    alpha = lr * np.sqrt(one - b2p) / (one - b1p)
    keep1, keep2 = one - b1, one - b2
    tails = _tails(shards(w.size, threads))
    for a in range(0, w.size, _BLOCK):
        b = min(a + _BLOCK, w.size)
        gb, mb, vb = g[a:b], mf[a:b], vf[a:b]
        t = gb - mb
        t *= keep1
        mb += t
        np.multiply(gb, gb, out=t)
        t -= vb
        t *= keep2
        vb += t
        root = _eigen_psqrt.packet_sqrt(vb, table)
        for start, limit in tails:
            lo, hi = max(start, a), min(limit, b)
            if lo < hi:
                root[lo - a : hi - a] = np.sqrt(vf[lo:hi])
        root += eps
        if nesterov:
            np.multiply(gb, keep1, out=t)
            t += b1 * mb
        else:
            t[...] = mb
        t *= alpha
        t /= root
        w[a:b] -= t
    return True
