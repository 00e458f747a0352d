"""float32 sums added in the order TensorFlow 1.15's CPU kernels add them.

TF reduces the innermost axis with Eigen's InnerMostDimReducer over AVX packets: eight
running lane sums over the row's first 8*k values, a tail summed on its own, and the result
`tail + ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7))`. numpy's pairwise sum adds in another
order, so a loss printed with nine digits differed in the last ones. A reduction of the whole
tensor that Eigen splits across threads (from roughly 10^4 values, depending on the machine's
cores) has no fixed order; those keep numpy's sum.
"""

from __future__ import annotations

import math

import numpy as np

_LANES = 8
# Whole-tensor sums of up to this many values run on one thread in TF 1.15 (5000 measured).
SINGLE_THREAD_MAX = 5000
_ZERO = np.float32(0)


def rows_sum(rows: np.ndarray) -> np.ndarray:
    """Sum of each row of a 2-D float32 array, in Eigen's order.

    The work goes over the columns, copied once to contiguous rows of `outer` values: every
    numpy call below then runs one long inner loop (strided 2-D views of a few columns each
    cost numpy an inner loop per row, 2-4 us on a softmax's 32x10 logits)."""
    outer, n = rows.shape
    cols = np.ascontiguousarray(rows.T)  # (n, outer)
    k = n // _LANES
    if k > 1:
        # Step-major (k, 8*outer): numpy adds whole steps into the accumulator one after the
        # other (each lane sequential, as Eigen's), with long inner loops.
        lanes = np.add.reduce(cols[: _LANES * k].reshape(k, _LANES * outer), axis=0)
        lanes = lanes.reshape(_LANES, outer)
    elif k:
        lanes = cols[:_LANES]
    if k:
        halves = np.add(lanes[:4], lanes[4:])
        np.add(halves[:2], halves[2:], out=halves[:2])
        packet = np.add(halves[0], halves[1])
    else:
        packet = np.zeros(outer, np.float32)
    # The tail's sum starts from +0 (Eigen's initial accumulator): 0 + x, then x + ...
    start = _LANES * k
    if start == n:
        return np.add(packet, _ZERO, out=packet)
    tail = np.add(cols[start], _ZERO)
    for j in range(start + 1, n):
        np.add(tail, cols[j], out=tail)
    return np.add(tail, packet, out=tail)


def trailing_sum(x: np.ndarray, axis: tuple[int, ...], keep: bool) -> np.ndarray | None:
    """Eigen-ordered sum of float32 `x` over its trailing axes `axis`; None where TF's order
    is not this one (other axes, other dtypes, a whole-tensor sum split across threads)."""
    if not isinstance(x, np.ndarray) or x.dtype != np.float32 or x.size == 0:
        return None
    nd = x.ndim
    if sorted(axis) != list(range(nd - len(axis), nd)):
        return None
    kept = x.shape[: nd - len(axis)]
    n = math.prod(x.shape[nd - len(axis) :])
    if not kept and n > SINGLE_THREAD_MAX:
        return None
    out = rows_sum(np.ascontiguousarray(x).reshape(-1, n)).reshape(kept)
    if keep:
        out = out.reshape(kept + (1,) * len(axis))
    return out
