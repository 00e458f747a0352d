"""A large variable's gradient-descent update (kernels/training.py) goes in cache-sized blocks
shared between the cores: the same bits as `var - delta * alpha` in one pass, for sizes that
are and are not a whole number of blocks, with its blocks computed on more than one thread."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _window, training
from tfcluster.runtime import thread_budget


@pytest.fixture(autouse=True)
def two_cores() -> Iterator[None]:
    thread_budget._reset_for_tests()
    thread_budget.configure(intra=2, inter=2)
    yield
    thread_budget._reset_for_tests()


@pytest.mark.parametrize(
    "shape",
    [(3136, 1024), (training._BLOCKED_FROM + 7,), (5, 5, 32, 64), (1 << 20,)],
    ids=["dense-kernel", "partial-last-block", "below-blocking", "whole-blocks"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_update_equals_the_one_pass_formula(shape: tuple[int, ...], dtype: Any) -> None:
    rng = np.random.default_rng(len(shape))
    var = rng.standard_normal(shape).astype(dtype)
    delta = rng.standard_normal(shape).astype(dtype)
    alpha = np.asarray(0.01, dtype)
    want = var - delta * alpha
    training._gradient_step(np, var, alpha, delta)
    assert var.tobytes() == want.tobytes()


def test_a_non_contiguous_gradient_is_applied_in_one_pass() -> None:
    rng = np.random.default_rng(1)
    var = rng.standard_normal((1024, 1024)).astype(np.float32)
    delta = rng.standard_normal((1024, 1024)).astype(np.float32).T
    alpha = np.asarray(0.5, np.float32)
    want = var - delta * alpha
    training._gradient_step(np, var, alpha, delta)
    assert var.tobytes() == want.tobytes()


def test_blocks_of_a_large_update_run_on_both_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: set[str] = set()
    both = threading.Barrier(2, timeout=5.0)
    share = _window.over_batch

    def recorded(xp: Any, batch: int, nbytes: int, fn: Callable[[slice], Any]) -> list[Any]:
        def block(rows: slice) -> Any:
            name = threading.current_thread().name
            if name not in threads:
                threads.add(name)
                both.wait()  # each of two threads holds its first block until the other has one
            return fn(rows)

        return share(xp, batch, nbytes, block)

    monkeypatch.setattr(training, "over_batch", recorded)
    var = np.ones((3136, 1024), np.float32)
    training._gradient_step(np, var, np.asarray(0.25, np.float32), np.ones_like(var))
    assert len(threads) == 2
    assert np.all(var == 0.75)


def test_the_session_update_of_a_large_variable_matches_numpy() -> None:
    rng = np.random.default_rng(2)
    init = rng.standard_normal((600, 700)).astype(np.float32)
    grad = rng.standard_normal((600, 700)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(init)
        step = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant(grad), v)])
        with tf.Session() as sess:
            sess.run(v.initializer)
            sess.run(step)
            got = sess.run(v)
    assert got.tobytes() == (init - grad * np.float32(0.1)).tobytes()
