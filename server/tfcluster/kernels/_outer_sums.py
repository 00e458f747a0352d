"""Sums over the rows of a matrix in the order TF 1.15's CPU BiasAddGrad adds them
(functor::ReduceOuterDimensions over [rows, channels]).

Each channel's sum runs down the rows one after the other, from zero, in the accumulator
type (float for half). Wide matrices (more than 32 channels per intra-op thread) split the
channels between threads, so every sum still covers all rows in order. Narrower ones split
the rows into one block per thread (fewer for small inputs: at least 2000 values a block),
which Eigen's parallelFor then groups into tasks by its cost model: each task sums its rows
into the buffer of its first block, and the buffers are added in block order at the end.
The split depends on the intra-op pool's size, as TF's does. The tasks are independent: on the
CPU they run on every core as TF's do (kernels/_window.over_batch), the same sums wherever
each one runs (a conv net's first-layer bias gradient, 12.8 MB, sits between its input
gradient and its filter gradient in every step). A float64 or pairwise sum (what
numpy gives) differs in the last bits, which Adam turns into whole steps where a gradient is
only rounding noise (a bias before batch norm)."""

from __future__ import annotations

import numpy as np

from tfcluster.kernels._eigen_parallel import cost_cycles, parallel_for_blocks
from tfcluster.kernels._window import over_batch

# Channels per thread above which TF splits the channels, not the rows.
_CHANNELS_PER_THREAD = 32
# The least work (values) of a block of rows.
_MIN_BLOCK_WORK = 2000
_ZERO = 0.0


def sequential_column_sums(rows: np.ndarray) -> np.ndarray:
    """Each column's sum from zero, row after row, on one thread."""
    return _down(rows)


def _down(rows: np.ndarray) -> np.ndarray:
    """Each column's sum from zero, row after row (numpy reduces a non-inner axis in order;
    one column would be summed pairwise, so it accumulates). Starting from +0 only changes
    an all-zero sum's sign: adding +0 at the end does the same."""
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1], rows.dtype)
    if rows.shape[1] == 1:
        return np.add.accumulate(rows[:, 0])[-1:] + rows.dtype.type(_ZERO)
    if rows.flags.c_contiguous:
        # The same sums from +0, one row at a time: einsum adds each row to the column sums
        # in one loop along the row, ~16 ns less per row than the ufunc reduction's (a conv
        # net's first-layer bias gradient, 100352 rows of 32: 1.7 -> 0.7 ms).
        return np.einsum("ij->j", rows) + rows.dtype.type(_ZERO)
    return np.add.reduce(rows, axis=0) + rows.dtype.type(_ZERO)


def outer_dims_sum(rows: np.ndarray, threads: int) -> np.ndarray:
    """Column sums of a 2-D float32/float64 array as TF 1.15's BiasAddGrad adds them with an
    intra-op pool of `threads`."""
    n, c = rows.shape
    if c == 1 or c > _CHANNELS_PER_THREAD * threads or n <= 1:
        return _down(rows)
    min_block_rows = -(-_MIN_BLOCK_WORK // c)
    blocks = min(n, -(-(n * c) // min_block_rows), threads)
    block_rows = -(-n // blocks)
    work = block_rows * c
    cycles = cost_cycles(work * rows.itemsize, 0, work)
    tasks = parallel_for_blocks(blocks, cycles, threads)
    if len(tasks) == 1:
        # One task sums every row into the first buffer; the others stay +0, and adding +0
        # to a sum that _down started from +0 changes nothing: that sum is the result.
        return _down(rows)
    buffers = np.zeros((blocks, c), rows.dtype)

    def run(which: slice) -> None:
        for start, limit in tasks[which]:
            buffers[start] = _down(rows[start * block_rows : min(n, limit * block_rows)])

    over_batch(np, len(tasks), rows.nbytes, run, 1, blas=False)
    total = buffers[0]
    for i in range(1, blocks):
        total = total + buffers[i]
    return total
