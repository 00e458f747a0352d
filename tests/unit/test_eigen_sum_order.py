"""float32 and float64 row sums in Eigen's InnerMostDimReducer order (a sum per lane of AVX
packets of eight floats or four doubles, the tail apart, lanes combined pairwise), checked
against the order spelled out one addition at a time."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _eigen_sum


def _one_addition_at_a_time(row: np.ndarray) -> np.float32:
    n = row.size
    k = n // 8
    lanes = [np.float32(0.0)] * 8
    for step in range(k):
        for lane in range(8):
            lanes[lane] = np.float32(lanes[lane] + row[8 * step + lane])
    tail = np.float32(0.0)
    for j in range(8 * k, n):
        tail = np.float32(tail + row[j])
    l0, l1, l2, l3, l4, l5, l6, l7 = lanes
    packet = np.float32(
        np.float32(np.float32(l0 + l4) + np.float32(l2 + l6))
        + np.float32(np.float32(l1 + l5) + np.float32(l3 + l7))
    )
    return np.float32(tail + packet)


# Small arrays and short rows go over a transposed copy, long rows of big arrays by steps.
@pytest.mark.parametrize(
    "shape", [(1, 7), (3, 8), (5, 37), (64, 256), (2, 1001), (17, 33), (200, 129), (70, 256)]
)
def test_rows_add_up_in_eigens_order(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    rows = (rng.standard_normal(shape) * rng.uniform(0, 1e4, shape)).astype(np.float32)
    want = np.array([_one_addition_at_a_time(r) for r in rows], np.float32)
    assert _eigen_sum.rows_sum(rows).tobytes() == want.tobytes()


@pytest.mark.parametrize(
    "shape", [(1, 1), (4, 3), (9, 8), (33, 17), (128, 10), (300, 64), (70, 256)]
)
def test_both_ways_of_summing_rows_give_the_same_bits_signed_zeros_too(
    shape: tuple[int, int],
) -> None:
    rng = np.random.default_rng(shape[0] * 1000 + shape[1])
    rows = rng.standard_normal(shape).astype(np.float32)
    rows[rng.uniform(size=shape) < 0.3] = np.float32(-0.0)
    rows[0] = np.float32(-0.0)  # a row of negative zeros sums to +0, as Eigen's from +0
    by_columns = _eigen_sum._rows_sum_by_columns(rows)
    by_steps = _eigen_sum._rows_sum_by_steps(rows)
    assert by_columns.tobytes() == by_steps.tobytes()
    assert by_columns.dtype == np.float32 and by_columns.shape == (shape[0],)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 32, 1000, 8192, 8193, 20000])
def test_a_whole_sum_on_one_thread_adds_in_eigens_order(n: int) -> None:
    # One leaf (up to 1024 packets) is summed as a row; longer runs are halved first.
    rng = np.random.default_rng(n)
    flat = (rng.standard_normal(n) * rng.uniform(0, 1e4, n)).astype(np.float32)
    got = _eigen_sum.whole_sum(flat, 1)
    assert isinstance(got, np.float32)
    if n <= 8192:
        assert got.tobytes() == _one_addition_at_a_time(flat).tobytes()
    assert got.tobytes() == _eigen_sum._tree_sum(flat, 0).tobytes()


@pytest.mark.parametrize("n", [1, 8, 12, 32])
def test_a_short_whole_sum_keeps_signed_zeros_and_nans_as_the_row_sum(n: int) -> None:
    # One leaf's sum (a loss's batch) takes a short path: it must give the row sum's bits.
    for fill in (np.float32(-0.0), np.float32(np.nan), np.float32(np.inf)):
        flat = np.full(n, np.float32(-0.0), np.float32)
        flat[n // 2] = fill
        got = _eigen_sum.whole_sum(flat, 1)
        want = _eigen_sum._rows_sum_by_columns(flat.reshape(1, n))[0]
        assert isinstance(got, np.float32)
        assert got.tobytes() == want.tobytes()
    assert _eigen_sum.whole_sum(np.full(n, -0.0, np.float32), 1).tobytes() == b"\0" * 4


def _double_one_addition_at_a_time(row: np.ndarray) -> float:
    """A leaf of doubles as Eigen adds it: four lane sums from zero, the tail from zero,
    tail + ((l0 + l2) + (l1 + l3)), one Python float (an IEEE double) addition at a time."""
    values = row.tolist()
    k = len(values) // 4
    lanes = [0.0] * 4
    for step in range(k):
        for lane in range(4):
            lanes[lane] = lanes[lane] + values[4 * step + lane]
    tail = 0.0
    for value in values[4 * k :]:
        tail = tail + value
    return tail + ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3]))


# Both ways of summing rows (transposed copy for small arrays, einsum over packets for long
# rows), contiguous rows and every other row of a bigger array (strided).
@pytest.mark.parametrize("shape", [(1, 7), (3, 4), (5, 37), (64, 256), (17, 1001), (40, 4096)])
@pytest.mark.parametrize("strided", [False, True])
def test_double_rows_add_up_in_eigens_order(shape: tuple[int, int], strided: bool) -> None:
    rng = np.random.default_rng(sum(shape))
    outer, n = shape
    values = np.ldexp(rng.standard_normal((2 * outer, n)), rng.integers(-30, 30, (2 * outer, n)))
    rows = values[::2] if strided else values[:outer]
    want = np.array([_double_one_addition_at_a_time(r) for r in rows])
    assert _eigen_sum.rows_sum(rows).tobytes() == want.tobytes()
    assert _eigen_sum._rows_sum_by_steps(rows).tobytes() == want.tobytes()
    assert _eigen_sum._rows_sum_by_columns(rows).tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [4097, 8193, 100003])
def test_a_long_double_run_adds_its_leaves_in_eigens_order(n: int) -> None:
    # A single run's leaves go one einsum each: the same bits as summing each leaf as a row.
    rng = np.random.default_rng(n)
    flat = np.ldexp(rng.standard_normal(n), rng.integers(-30, 30, n))
    leaves: list[tuple[int, int]] = []
    _eigen_sum._split_tree(0, n, 4, leaves)
    sums = _eigen_sum._tree_leaves(flat.reshape(1, n), 0, leaves)
    for (start, length), got in zip(leaves, sums, strict=True):
        want = _double_one_addition_at_a_time(flat[start : start + length])
        assert got.tobytes() == np.float64(want).tobytes()
