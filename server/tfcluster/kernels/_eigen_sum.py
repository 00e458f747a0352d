"""float32 sums added in the order TensorFlow 1.15's CPU kernels add them.

TF reduces the innermost axis with Eigen's InnerMostDimReducer over AVX packets: eight
running lane sums over the row's first 8*k values, a tail summed on its own, and the result
`tail + ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7))`. numpy's pairwise sum adds in another
order, so a loss printed with nine digits differed in the last ones. A run of more than 1024
packets is halved (at a packet boundary counted from the tensor's first value) and the
halves' sums added, down to such leaves. A reduction of the whole tensor is split by Eigen's
FullReducer into one block per thread its cost model wants (from about 13000 values; at most
the intra-op pool's size), each block reduced so, the blocks' sums added in order to the sum
of the values left over; up to WHOLE_SUM_MAX values (numpy's order beyond, for speed).
"""

from __future__ import annotations

import functools

import numpy as np

from tfcluster.kernels._eigen_parallel import cost_cycles, wanted_threads
from tfcluster.runtime import thread_budget

_LANES = 8
# Runs of more values than this are halved (Eigen's kLeafSize of 1024 packets).
_LEAF = _LANES * 1024
# Whole-tensor sums of more values keep numpy's order: Eigen's costs ~15x numpy's time here
# (~150 us at this size), where a loss over a big activation would add milliseconds a step.
WHOLE_SUM_MAX = 1 << 16
_ZERO = np.float32(0)


# Up to this many values, or this many per row, rows_sum works over a transposed copy (below).
_BY_COLUMNS_UP_TO = 1 << 14
_BY_COLUMNS_ROW_UP_TO = 64


def rows_sum(rows: np.ndarray) -> np.ndarray:
    """Sum of each row of a 2-D float32 array, in Eigen's order (row r starting at the
    tensor's value r * n)."""
    outer, n = rows.shape
    if n <= _LEAF:
        return _leaves_sum(rows)
    # Rows whose starts are congruent modulo a packet share one halving tree.
    out = np.empty(outer, np.float32)
    for phase in range(min(_LANES, outer)):
        picked = slice(phase, outer, _LANES) if n % _LANES else slice(0, outer)
        out[picked] = _tree_rows(rows[picked], phase * n)
        if not n % _LANES:
            break
    return out


def _leaves_sum(rows: np.ndarray) -> np.ndarray:
    """Sums of rows of at most _LEAF values each, in Eigen's packet order."""
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


# A halving tree: a leaf's index, or the two halves (the second None where nothing is left).
_Tree = int | tuple["_Tree", "_Tree | None"]


def _split_tree(first: int, n: int, leaves: list[tuple[int, int]]) -> _Tree:
    """The halving tree of the run [first, first + n): a leaf's index in `leaves`, or a pair."""
    if n <= _LEAF:
        leaves.append((first, n))
        return len(leaves) - 1
    split = _LANES * -(-(first + -(-n // 2)) // _LANES)
    left = min(split - first, n)
    if left >= n:
        return (_split_tree(first, left, leaves), None)
    return (_split_tree(first, left, leaves), _split_tree(split, n - left, leaves))


def _tree_rows(rows: np.ndarray, first: int) -> np.ndarray:
    """InnerMostDimReducer's sums of rows whose first values sit at tensor positions congruent
    to `first` modulo a packet (so their halving trees are the same)."""
    leaves: list[tuple[int, int]] = []
    tree = _split_tree(first, rows.shape[1], leaves)
    sums = [
        _leaves_sum(rows[:, start - first : start - first + length]) for start, length in leaves
    ]

    def total(node: _Tree) -> np.ndarray:
        if isinstance(node, int):
            return sums[node]
        left, right = node
        acc = _ZERO + total(left)
        return acc if right is None else acc + total(right)

    return np.asarray(total(tree), np.float32)


def _leaf_sum(flat: np.ndarray) -> np.float32:
    """_leaves_sum of the one row `flat` (1-D, at most _LEAF values), with four numpy calls
    and float32 scalars where the matrix form makes a dozen calls (a loss's batch of 32,
    a metric's count: ~4 us -> ~1.5 us)."""
    n = flat.size
    k = n // _LANES
    packet = _ZERO
    if k:
        # Each lane's values in order (numpy reduces the outer axis element by element).
        lanes = np.add.reduce(flat[: _LANES * k].reshape(k, _LANES), axis=0) if k > 1 else flat
        halves = np.add(lanes[:4], lanes[4:_LANES])
        quarters = np.add(halves[:2], halves[2:])
        packet = quarters[0] + quarters[1]
    tail = _ZERO
    for value in flat[_LANES * k :]:
        tail = tail + value
    return np.float32(tail + packet)


def _tree_sum(flat: np.ndarray, first: int) -> np.float32:
    """InnerMostDimReducer's sum of the run `flat`, whose first value is the tensor's value
    `first` (halves split at packet boundaries counted from the tensor's start)."""
    return np.float32(_tree_rows(flat.reshape(1, -1), first)[0])


# A value's share of a whole-tensor sum in Eigen's cost model: 4 bytes loaded, one addition.
_CYCLES_PER_VALUE = cost_cycles(4, 0, 1)


def whole_sum(
    flat: np.ndarray, threads: int, cycles_per_value: float = _CYCLES_PER_VALUE
) -> np.float32:
    """Eigen's FullReducer over a 1-D float32 array with an intra-op pool of `threads`;
    `cycles_per_value` is the cost the model gives one value of the reduced expression."""
    n = flat.size
    wanted = wanted_threads(n * cycles_per_value, threads)
    if wanted == 1:
        if n <= _LEAF:  # one leaf (a loss's batch): its sum, without the halving tree
            return _leaf_sum(flat)
        return _tree_sum(flat, 0)
    block = int(np.floor(np.float32(n) / np.float32(wanted)))
    blocks = n // block if block > 0 else 0
    done = blocks * block
    acc = _tree_sum(flat[done:], done) if done < n else _ZERO
    for i in range(blocks):
        acc = acc + _tree_sum(flat[i * block : (i + 1) * block], i * block)
    return np.float32(acc)


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
    """Eigen-ordered sum of float32 `x` over `axis` where TF reduces it as the innermost
    dimension (its shape simplified as TF does: [n] whole, or [outer, n]); None where TF's
    order is not this one (other axes, other dtypes)."""
    if not isinstance(x, np.ndarray) or x.dtype != np.float32 or x.size == 0:
        return None
    dims, reduce_first = tf_reduction_shape(x.shape, axis)
    if len(dims) == 1 and reduce_first:
        if x.size > WHOLE_SUM_MAX:
            return None
        flat = np.ascontiguousarray(x).reshape(-1)
        total = whole_sum(flat, thread_budget.current().intra)
        return np.full(reduced_shape(x.shape, axis, keep), total, np.float32)
    if len(dims) == 2 and not reduce_first:
        rows = np.ascontiguousarray(x).reshape(dims)
    else:
        return None
    return rows_sum(rows).reshape(reduced_shape(x.shape, axis, keep))
