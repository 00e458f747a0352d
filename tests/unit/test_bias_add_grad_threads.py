"""BiasAddGrad's blocks of rows (TF 1.15's partial sums, kernels/_outer_sums.py) are summed on
every core of the intra-op budget when the input is large (a conv net's first-layer gradient):
the same bits as the blocks summed one after the other on one thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _outer_sums
from tfcluster.ops import nn_ops
from tfcluster.runtime import thread_budget

ROWS, CHANNELS = 128 * 28 * 28, 32  # 12.8 MB of float32: two blocks of rows on two threads


@pytest.fixture(autouse=True)
def _two_cores() -> Iterator[None]:
    thread_budget._reset_for_tests()
    thread_budget.configure(intra=2, inter=2)
    yield
    thread_budget._reset_for_tests()


def _gradient() -> np.ndarray:
    rng = np.random.default_rng(5)
    g = (rng.standard_normal((ROWS, CHANNELS)) * rng.uniform(0.1, 10.0, (ROWS, CHANNELS))).astype(
        np.float32
    )
    g[7, :3] = [np.inf, -0.0, np.nan]
    return g


def _blocks_one_after_the_other(g: np.ndarray) -> np.ndarray:
    # Two blocks of rows, each channel summed down its block from zero, then added in order.
    half = -(-g.shape[0] // 2)
    first = np.add.reduce(g[:half], axis=0) + np.float32(0.0)
    second = np.add.reduce(g[half:], axis=0) + np.float32(0.0)
    return first + second


def test_bias_gradient_of_a_large_input_has_the_bits_of_its_blocks_summed_in_order() -> None:
    g = _gradient()
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(nn_ops.bias_add_grad(tf.constant(g.reshape(128, 28, 28, CHANNELS))))
    want = _blocks_one_after_the_other(g)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_blocks_of_rows_are_summed_on_two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    g = _gradient()
    threads: list[int] = []
    second_started = threading.Event()
    down = _outer_sums._down

    def watched(rows: np.ndarray) -> np.ndarray:
        # The first block waits (a few seconds at most) for the second to start elsewhere.
        threads.append(threading.get_ident())
        if len(threads) == 1:
            second_started.wait(5.0)
        else:
            second_started.set()
        return down(rows)

    monkeypatch.setattr(_outer_sums, "_down", watched)
    got = _outer_sums.outer_dims_sum(g, 2)
    assert len(threads) == 2 and threads[0] != threads[1]
    want = _blocks_one_after_the_other(g)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_one_core_sums_the_blocks_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    thread_budget.configure(intra=1, inter=1)
    g = _gradient()
    threads: list[int] = []
    down = _outer_sums._down

    def watched(rows: np.ndarray) -> np.ndarray:
        threads.append(threading.get_ident())
        return down(rows)

    monkeypatch.setattr(_outer_sums, "_down", watched)
    _outer_sums.outer_dims_sum(g, 2)
    assert threads == [threading.get_ident()] * 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_channels_sum_runs_down_its_block_one_row_at_a_time(dtype: type) -> None:
    # Magnitudes from 1e-8 to 1e8 and signed zeros: any other order or grouping of the
    # additions (pairwise, several accumulators) differs from the row-by-row sum somewhere.
    rng = np.random.default_rng(12)
    rows = (rng.standard_normal((3000, 40)) * 10.0 ** rng.integers(-8, 9, (3000, 40))).astype(dtype)
    rows[rng.random(rows.shape) < 0.01] = -0.0
    rows[:, 5] = -0.0  # an all-zero column sums to +0 (from zero)
    want = np.zeros(rows.shape[1], dtype)
    for row in rows:
        want = want + row
    got = _outer_sums._down(rows)
    bits = np.dtype(f"i{rows.itemsize}")
    np.testing.assert_array_equal(got.view(bits), want.view(bits))
    # A strided block of the rows (every other one) sums the same way.
    every_other = np.zeros(rows.shape[1], dtype)
    for row in rows[::2]:
        every_other = every_other + row
    np.testing.assert_array_equal(_outer_sums._down(rows[::2]).view(bits), every_other.view(bits))
