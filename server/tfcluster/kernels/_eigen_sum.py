"""float32 and float64 sums added in the order TensorFlow 1.15's CPU kernels add them.

TF reduces the innermost axis with Eigen's InnerMostDimReducer over AVX packets (eight floats
or four doubles): one running sum per lane over the row's first lanes*k values, a tail summed
on its own, and the result `tail + predux(lanes)`, predux adding the upper half of the lanes
to the lower half until one is left (`((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7))` for floats,
`(l0+l2) + (l1+l3)` for doubles). numpy's pairwise sum adds in another order, so a loss
printed with nine digits differed in the last ones. A run of more than 1024 packets is halved
(at a packet boundary counted from the tensor's first value) and the halves' sums added, down
to such leaves. A reduction of the whole tensor is split by Eigen's FullReducer into one block
per thread its cost model wants (at most the intra-op pool's size), each block reduced so,
the blocks' sums added in order to the sum of the values left over; up to WHOLE_SUM_MAX float32
values, WHOLE_SUM_MAX_DOUBLE float64 ones (numpy's order beyond, for speed). float64 reductions
over other axes are in _eigen_axes_sum.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tfcluster.kernels._eigen_parallel import cost_cycles, wanted_threads
from tfcluster.runtime import thread_budget

# AVX packets hold 32 bytes: eight floats, four doubles.
_PACKET_BYTES = 32
# Runs of more packets than this are halved (Eigen's kLeafSize).
LEAF_PACKETS = 1024
# Whole-tensor sums of more values keep numpy's order: Eigen's costs ~15x numpy's time here
# (~150 us at this size), where a loss over a big activation would add milliseconds a step.
WHOLE_SUM_MAX = 1 << 16
# float64 whole sums: the same cap (~10x numpy's time; at 2**20 values 2 ms, where TF's own
# sum takes well under one).
WHOLE_SUM_MAX_DOUBLE = 1 << 16


def _lanes(dtype: np.dtype) -> int:
    return _PACKET_BYTES // dtype.itemsize


# Up to this many values, or this many per row, rows_sum works over a transposed copy (below).
_BY_COLUMNS_UP_TO = 1 << 14
_BY_COLUMNS_ROW_UP_TO = 64


def rows_sum(rows: np.ndarray) -> np.ndarray:
    """Sum of each row of a 2-D float32/float64 array, in Eigen's order (row r starting at
    the tensor's value r * n)."""
    outer, n = rows.shape
    lanes = _lanes(rows.dtype)
    if n <= lanes * LEAF_PACKETS:
        return _leaves_sum(rows)
    # Rows whose starts are congruent modulo a packet share one halving tree.
    out = np.empty(outer, rows.dtype)
    for phase in range(min(lanes, outer)):
        picked = slice(phase, outer, lanes) if n % lanes else slice(0, outer)
        out[picked] = _tree_rows(rows[picked], phase * n)
        if not n % lanes:
            break
    return out


def _leaves_sum(rows: np.ndarray) -> np.ndarray:
    """Sums of rows of at most one leaf's values each, in Eigen's packet order."""
    n = rows.shape[1]
    if n <= _BY_COLUMNS_ROW_UP_TO or rows.size <= _BY_COLUMNS_UP_TO:
        return _rows_sum_by_columns(rows)
    return _rows_sum_by_steps(rows)


def _predux(lanes: np.ndarray) -> np.ndarray:
    """Eigen's predux of AVX packets laid along the first axis of `lanes` (not written): the
    upper half added to the lower half until one lane is left."""
    half = lanes.shape[0] // 2
    halves = np.add(lanes[:half], lanes[half:])
    while half > 1:
        half //= 2
        np.add(halves[:half], halves[half : 2 * half], out=halves[:half])
    return halves[0]


def _rows_sum_by_columns(rows: np.ndarray) -> np.ndarray:
    """rows_sum over the columns, copied once to contiguous rows of `outer` values: every
    numpy call below then runs one long inner loop (strided 2-D views of a few columns cost
    numpy an inner loop per row, 2-4 us on a softmax's 32x10 logits). For long rows of a big
    array the transposing copy costs more than it saves (2x at 3584x128, power-of-two
    strides): those go by steps."""
    outer, n = rows.shape
    width = _lanes(rows.dtype)
    zero = rows.dtype.type(0)
    cols = np.ascontiguousarray(rows.T)  # (n, outer)
    k = n // width
    if k > 1:
        # Step-major (k, lanes*outer): numpy adds whole steps into the accumulator one after
        # the other (each lane sequential, as Eigen's), with long inner loops.
        lanes = np.add.reduce(cols[: width * k].reshape(k, width * outer), axis=0)
        lanes = lanes.reshape(width, outer)
    elif k:
        lanes = cols[:width]
    packet = _predux(lanes) if k else np.zeros(outer, rows.dtype)
    # The tail's sum starts from +0 (Eigen's initial accumulator): 0 + x, then x + ...
    start = width * k
    if start == n:
        return np.add(packet, zero, out=packet)
    tail = np.add(cols[start], zero)
    for j in range(start + 1, n):
        np.add(tail, cols[j], out=tail)
    return np.add(tail, packet, out=tail)


def _rows_sum_by_steps(rows: np.ndarray) -> np.ndarray:
    """rows_sum for long rows of a big array."""
    outer, n = rows.shape
    width = _lanes(rows.dtype)
    start = n - n % width
    packets = rows[:, :start].reshape(outer, start // width, width)
    return _packets_sum(packets, [rows[:, j] for j in range(start, n)])


def _packets_sum(packets: np.ndarray, tail: list[np.ndarray]) -> np.ndarray:
    """InnerMostDimReducer's sums of rows given as their packets (outer, k, lanes) and their
    tails' columns (the values past the last whole packet). einsum adds each lane's values
    one after the other from zero (its loop for a strided input, here every packet's
    stride), as Eigen's lane sums do, without the transposing copy numpy's reduction would
    want (1.4-2.7x faster)."""
    lanes = np.einsum("gpl->gl", packets)
    packet = _predux(lanes.T)
    total = np.zeros(packets.shape[0], packets.dtype)
    for column in tail:
        total = total + column
    return total + packet


# A halving tree: a leaf's index, or the two halves (the second None where nothing is left).
_Tree = int | tuple["_Tree", "_Tree | None"]


def _split_tree(first: int, n: int, lanes: int, leaves: list[tuple[int, int]]) -> _Tree:
    """The halving tree of the run [first, first + n): a leaf's index in `leaves`, or a pair."""
    if n <= lanes * LEAF_PACKETS:
        leaves.append((first, n))
        return len(leaves) - 1
    split = lanes * -(-(first + -(-n // 2)) // lanes)
    left = min(split - first, n)
    if left >= n:
        return (_split_tree(first, left, lanes, leaves), None)
    return (
        _split_tree(first, left, lanes, leaves),
        _split_tree(split, n - left, lanes, leaves),
    )


def scalar_positions(first: int, n: int, lanes: int) -> list[int]:
    """The positions (from the run's start) of the values InnerMostDimReducer reads by its
    scalar path in the run [first, first + n) of a tensor: each leaf's values past its last
    whole packet (a kernel whose reduced expression has a packet form, exp, computes those
    values another way)."""
    leaves: list[tuple[int, int]] = []
    _split_tree(first, n, lanes, leaves)
    return [
        j
        for start, length in leaves
        for j in range(start - first + length - length % lanes, start - first + length)
    ]


def _tree_rows(rows: np.ndarray, first: int) -> np.ndarray:
    """InnerMostDimReducer's sums of rows whose first values sit at tensor positions congruent
    to `first` modulo a packet (so their halving trees are the same)."""
    leaves: list[tuple[int, int]] = []
    tree = _split_tree(first, rows.shape[1], _lanes(rows.dtype), leaves)
    sums: list[Any] = _tree_leaves(rows, first, leaves)
    zero: Any = rows.dtype.type(0)
    if rows.dtype == np.float64 and rows.shape[0] == 1:
        # One double sum: Python's floats add as IEEE doubles do, ~10x faster than arrays.
        sums, zero = [float(v[0]) for v in sums], 0.0

    def total(node: _Tree) -> Any:
        if isinstance(node, int):
            return sums[node]
        left, right = node
        acc = zero + total(left)
        return acc if right is None else acc + total(right)

    return np.asarray(total(tree), rows.dtype).reshape(rows.shape[0])


def _tree_leaves(rows: np.ndarray, first: int, leaves: list[tuple[int, int]]) -> list[np.ndarray]:
    """The sums of each leaf of rows (leaves as _split_tree lists them). A single long row's
    leaves go one einsum each, their lane sums combined at once (a million doubles: ~250
    leaves, 1 ms; 2.5 ms by _leaves_sum one at a time, 4 ms gathering them first)."""
    if rows.shape[0] > 1 or len(leaves) < 4:
        return [
            _leaves_sum(rows[:, start - first : start - first + length]) for start, length in leaves
        ]
    row = rows[0]
    width = _lanes(row.dtype)
    lanes = np.empty((len(leaves), width), row.dtype)
    tails = np.zeros(len(leaves), row.dtype)
    for i, (start, length) in enumerate(leaves):
        at = start - first
        k = length // width
        # Lane by lane, each from zero (einsum's loop over a packet-strided input, as in
        # _packets_sum); the few tail values (the run's first and last leaves) from zero too.
        np.einsum("pl->l", row[at : at + width * k].reshape(k, width), out=lanes[i])
        for j in range(at + width * k, at + length):
            tails[i] = tails[i] + row[j]
    totals = tails + _predux(lanes.T)
    return [totals[i : i + 1] for i in range(len(leaves))]


def _leaf_sum(flat: np.ndarray) -> np.floating:
    """_leaves_sum of the one row `flat` (1-D, at most one leaf's values), with four numpy
    calls and scalars where the matrix form makes a dozen calls (a loss's batch of 32, a
    metric's count: ~4 us -> ~1.5 us)."""
    n = flat.size
    width = _lanes(flat.dtype)
    k = n // width
    packet = flat.dtype.type(0)
    if k:
        # Each lane's values in order (numpy reduces the outer axis element by element).
        lanes = np.add.reduce(flat[: width * k].reshape(k, width), axis=0) if k > 1 else flat
        packet = _predux(lanes[:width])
    tail = flat.dtype.type(0)
    for value in flat[width * k :]:
        tail = tail + value
    return flat.dtype.type(tail + packet)


def _tree_sum(flat: np.ndarray, first: int) -> np.floating:
    """InnerMostDimReducer's sum of the run `flat`, whose first value is the tensor's value
    `first` (halves split at packet boundaries counted from the tensor's start)."""
    return flat.dtype.type(_tree_rows(flat.reshape(1, -1), first)[0])


# A value's share of a whole-tensor sum in Eigen's cost model: its bytes loaded, and a packet's
# share of SumReducer's cost, which Eigen leaves at the default functor cost of 10 (from
# ~65000 doubles on, TF 1.15 splits the sum into more blocks than an addition's cost of 1
# would give). float32 sums up to WHOLE_SUM_MAX stay one block either way.
_CYCLES_PER_VALUE = cost_cycles(4, 0, 10 / 8)
_CYCLES_PER_DOUBLE = cost_cycles(8, 0, 10 / 4)


def whole_sum(flat: np.ndarray, threads: int, cycles_per_value: float | None = None) -> np.floating:
    """Eigen's FullReducer over a 1-D float32/float64 array with an intra-op pool of
    `threads`; `cycles_per_value` is the cost the model gives one value of the reduced
    expression (by default a plain input's)."""
    n = flat.size
    if cycles_per_value is None:
        double = flat.dtype == np.float64
        cycles_per_value = _CYCLES_PER_DOUBLE if double else _CYCLES_PER_VALUE
    wanted = wanted_threads(n * cycles_per_value, threads)
    if wanted == 1:
        if n <= _lanes(flat.dtype) * LEAF_PACKETS:  # one leaf (a loss's batch): no tree
            return _leaf_sum(flat)
        return _tree_sum(flat, 0)
    block = int(np.floor(np.float32(n) / np.float32(wanted)))
    blocks = n // block if block > 0 else 0
    done = blocks * block
    acc = _tree_sum(flat[done:], done) if done < n else flat.dtype.type(0)
    for i in range(blocks):
        acc = acc + _tree_sum(flat[i * block : (i + 1) * block], i * block)
    return flat.dtype.type(acc)


@functools.lru_cache(maxsize=1024)
def tf_reduction_shape(shape: tuple[int, ...], axis: tuple[int, ...]) -> tuple[list[int], bool]:
    """The shape TF 1.15's ReductionHelper reduces `shape` as, and whether its first dimension
    is a reduced one: leading dimensions of size 1 dropped, every later one of size 1 taking
    the reducedness of the one before it, neighbours of the same reducedness merged. Kept
    per (shape, axis), as a step reduces the same shapes every time (the list is shared:
    callers only read it)."""
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
    """Eigen-ordered sum of float32/float64 `x` over `axis` where TF reduces it as the
    innermost dimension (its shape simplified as TF does: [n] whole, or [outer, n]); None
    where TF's order is not this one (other axes, other dtypes, whole sums past the caps)."""
    if not isinstance(x, np.ndarray) or x.size == 0:
        return None
    if x.dtype == np.float32:
        whole_max = WHOLE_SUM_MAX
    elif x.dtype == np.float64:
        whole_max = WHOLE_SUM_MAX_DOUBLE
    else:
        return None
    dims, reduce_first = tf_reduction_shape(x.shape, axis)
    if len(dims) == 1 and reduce_first:
        if x.size > whole_max:
            return None
        flat = np.ascontiguousarray(x).reshape(-1)
        total = whole_sum(flat, thread_budget.current().intra)
        return np.full(reduced_shape(x.shape, axis, keep), total, x.dtype)
    if len(dims) == 2 and not reduce_first:
        rows = np.ascontiguousarray(x).reshape(dims)
    else:
        return None
    return rows_sum(rows).reshape(reduced_shape(x.shape, axis, keep))
