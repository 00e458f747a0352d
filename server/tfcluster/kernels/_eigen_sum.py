"""float32 sums added in the order TensorFlow 1.15's CPU kernels add them.

TF reduces the innermost axis with Eigen's InnerMostDimReducer over AVX packets: eight
running lane sums over the row's first 8*k values, a tail summed on its own, and the result
`tail + ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7))`. numpy's pairwise sum adds in another
order, so a loss printed with nine digits differed in the last ones. A reduction of the whole
tensor that Eigen splits across threads (from roughly 10^4 values, depending on the machine's
cores) has no fixed order; those keep numpy's sum.
"""

from __future__ import annotations

import numpy as np

_LANES = 8
# Whole-tensor sums of up to this many values run on one thread in TF 1.15 (5000 measured).
SINGLE_THREAD_MAX = 5000
_ZERO = np.float32(0)


# Up to this many values, or this many per row, rows_sum works over a transposed copy (below).
_BY_COLUMNS_UP_TO = 1 << 14
_BY_COLUMNS_ROW_UP_TO = 64


def rows_sum(rows: np.ndarray) -> np.ndarray:
    """Sum of each row of a 2-D float32 array, in Eigen's order."""
    n = rows.shape[1]
    if n <= _BY_COLUMNS_ROW_UP_TO or rows.size <= _BY_COLUMNS_UP_TO:
        return _rows_sum_by_columns(rows)
    return _rows_sum_by_steps(rows)


def _rows_sum_by_columns(rows: np.ndarray) -> np.ndarray:
    """rows_sum over the columns, copied once to contiguous rows of `outer` values: every
    numpy call below then runs one long inner loop (strided 2-D views of a few columns cost
    numpy an inner loop per row, 2-4 us on a softmax's 32x10 logits). For long rows of a big
    array the transposing copy costs more than it saves (2x at 3584x128, power-of-two
    strides): those go by steps."""
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


def _rows_sum_by_steps(rows: np.ndarray) -> np.ndarray:
    """rows_sum for long rows of a big array."""
    outer, n = rows.shape
    k = n // _LANES
    if k:
        # Step-major (k, outer*8): numpy adds whole rows into the accumulator one after the
        # other (each lane sequential, as Eigen's), with long inner loops instead of
        # outer*k loops of eight.
        by_step = rows[:, : _LANES * k].reshape(outer, k, _LANES).transpose(1, 0, 2)
        lanes = np.add.reduce(by_step.reshape(k, outer * _LANES), axis=0).reshape(outer, _LANES)
    else:
        lanes = np.zeros((outer, _LANES), np.float32)
    halves = lanes[:, :4] + lanes[:, 4:]
    quarters = halves[:, :2] + halves[:, 2:]
    packet = quarters[:, 0] + quarters[:, 1]
    tail = np.zeros(outer, np.float32)
    for j in range(_LANES * k, n):
        tail = tail + rows[:, j]
    return tail + packet


def tf_reduction_shape(shape: tuple[int, ...], axis: tuple[int, ...]) -> tuple[list[int], bool]:
    """The shape TF 1.15's ReductionHelper reduces `shape` as, and whether its first dimension
    is a reduced one: leading dimensions of size 1 dropped, every later one of size 1 taking
    the reducedness of the one before it, neighbours of the same reducedness merged."""
    reduced = [d in axis for d in range(len(shape))]
    start = next((d for d, size in enumerate(shape) if size != 1), None)
    if start is None:
        return [1], bool(reduced[0]) if reduced else False
    dims = [shape[start]]
    for d in range(start + 1, len(shape)):
        if shape[d] == 1:
            reduced[d] = reduced[d - 1]
        if reduced[d] != reduced[d - 1]:
            dims.append(shape[d])
        else:
            dims[-1] *= shape[d]
    return dims, reduced[start]


def reduced_shape(shape: tuple[int, ...], axis: tuple[int, ...], keep: bool) -> list[int]:
    """The shape of a reduction of `shape` over `axis` (reduced axes kept as 1 with keep)."""
    return [1 if d in axis else size for d, size in enumerate(shape) if keep or d not in axis]


def reduces_nothing(shape: tuple[int, ...], axis: tuple[int, ...]) -> bool:
    """Whether TF 1.15 copies the input instead of reducing it: every reduced axis has size 1
    and some dimension is larger (its ReductionHelper's "reduces nothing" case)."""
    if any(shape[a] != 1 for a in axis):
        return False
    dims, reduce_first = tf_reduction_shape(shape, axis)
    return len(dims) == 1 and not reduce_first


def trailing_sum(x: np.ndarray, axis: tuple[int, ...], keep: bool) -> np.ndarray | None:
    """Eigen-ordered sum of float32 `x` over `axis` where TF reduces it as the innermost
    dimension (its shape simplified as TF does: [n] whole, or [outer, n]); None where TF's
    order is not this one (other axes, other dtypes, a whole-tensor sum split across
    threads)."""
    if not isinstance(x, np.ndarray) or x.dtype != np.float32 or x.size == 0:
        return None
    dims, reduce_first = tf_reduction_shape(x.shape, axis)
    if len(dims) == 1 and reduce_first:
        if dims[0] > SINGLE_THREAD_MAX:
            return None
        rows = np.ascontiguousarray(x).reshape(1, -1)
    elif len(dims) == 2 and not reduce_first:
        rows = np.ascontiguousarray(x).reshape(dims)
    else:
        return None
    return rows_sum(rows).reshape(reduced_shape(x.shape, axis, keep))
