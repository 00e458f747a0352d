"""A convolution of a batch of one (an agent's single observation, a style-transfer image)
holds BLAS at one thread, like every work that _window.over_batch does not split: its
products (1e5-1e8 multiply-adds) gain nothing from BLAS's second thread, which spins at its
barriers and after each call. Its values are the ones a one-thread budget
(intra_op_parallelism_threads=1) gives, bit for bit; only a batch of one of
ONE_ITEM_BLAS_THREADS_BYTES or more keeps BLAS's threads. A 1x1 convolution's plain product
is held alike below _cpu_gemm.SPLIT_FROM multiply-adds, at any batch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _window
from tfcluster.runtime import thread_budget


@pytest.fixture(autouse=True)
def two_cores() -> Iterator[None]:
    thread_budget._reset_for_tests()
    thread_budget.configure(intra=2, inter=2)
    yield
    thread_budget._reset_for_tests()


def _blas_threads() -> int:
    return min(int(p["num_threads"]) for p in thread_budget.blas_pools_info())


def test_unsplit_work_of_a_batch_of_one_runs_blas_on_one_thread() -> None:
    seen = _window.over_batch(np, 1, 1 << 20, lambda rows: _blas_threads())
    assert seen == [1]
    assert _blas_threads() == 2  # the budget's again afterwards


def test_a_batch_of_one_as_large_as_the_threshold_keeps_blas_threads() -> None:
    nbytes = _window.ONE_ITEM_BLAS_THREADS_BYTES
    assert _window.over_batch(np, 1, nbytes, lambda rows: _blas_threads()) == [2]


def test_work_without_blas_calls_skips_the_hold() -> None:
    # Pooling and plain sums make no BLAS call: their unsplit work leaves the pool as it is.
    for batch in (1, 3):
        seen = _window.over_batch(np, batch, 1 << 10, lambda rows: _blas_threads(), blas=False)
        assert set(seen) == {2}


_CASES = [
    # (input NHWC, filter size, stride, dilation, out channels, padding)
    ((1, 84, 84, 4), 8, 4, 1, 32, "VALID"),  # DQN's layers
    ((1, 20, 20, 32), 4, 2, 1, 64, "VALID"),
    ((1, 9, 9, 64), 3, 1, 1, 64, "VALID"),
    ((1, 32, 32, 16), 3, 2, 1, 32, "SAME"),  # a small ResNet's
    ((1, 32, 32, 16), 3, 1, 1, 16, "SAME"),  # Winograd
    ((1, 8, 8, 64), 3, 1, 1, 64, "SAME"),
    ((1, 24, 24, 16), 3, 1, 2, 32, "SAME"),  # dilated
    ((1, 28, 28, 1), 5, 1, 1, 32, "SAME"),  # one channel
    ((1, 16, 16, 32), 1, 1, 1, 64, "SAME"),  # 1x1: a plain product (conv._pointwise)
    ((4, 8, 8, 64), 1, 1, 1, 32, "VALID"),  # 1x1 of a small batch, held alike
]


def _conv_and_gradients(case: tuple[Any, ...], intra: int) -> list[np.ndarray]:
    shape, k, stride, dilation, co, padding = case
    rng = np.random.default_rng(sum(shape) + k * co)
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((k, k, shape[-1], co)) * 0.1).astype(np.float32)
    thread_budget.configure(intra=intra, inter=intra)
    g = tf.Graph()
    with g.as_default():
        xt, wt = tf.constant(x), tf.constant(w)
        y = tf.nn.conv2d(
            xt, wt, [1, stride, stride, 1], padding, dilations=[1, dilation, dilation, 1]
        )
        dx, dw = tf.gradients(tf.reduce_sum(y * y), [xt, wt])
        with tf.Session(graph=g) as sess:
            return list(sess.run([y, dx, dw]))


@pytest.mark.parametrize("case", _CASES)
def test_unsplit_convolutions_match_a_one_thread_budget_bit_for_bit(
    case: tuple[Any, ...],
) -> None:
    one = _conv_and_gradients(case, intra=1)
    two = _conv_and_gradients(case, intra=2)
    for got, want in zip(two, one):
        np.testing.assert_array_equal(got, want)
