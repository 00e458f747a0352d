"""Updates of one variable from many threads, without use_locking (TF's default) and with it:
they write the variable's buffer in place, and none of them is ever lost whole."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.traced_memory import traced_peak

SIZE = 1_000_000


def _hammer(sess: tf.Session, op: Any, threads: int, steps: int) -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(steps):
                sess.run(op)
        except BaseException as e:  # reported below, in the test's thread
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert errors == []


@pytest.mark.parametrize("use_locking", [False, True], ids=["unlocked", "locked"])
def test_concurrent_assign_adds_are_all_counted(use_locking: bool) -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(tf.zeros([SIZE]), name="counter")
        bump = tf.assign_add(v, tf.ones([SIZE]), use_locking=use_locking)
    threads, steps = 4, 50
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        _hammer(sess, bump.op, threads, steps)
        final = sess.run(v)
    np.testing.assert_array_equal(final, np.full(SIZE, threads * steps, np.float32))


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda: tf.train.GradientDescentOptimizer(1.0),
        lambda: tf.train.MomentumOptimizer(1.0, momentum=0.0),
    ],
    ids=["gradient_descent", "momentum"],
)
def test_concurrent_optimizer_steps_apply_every_gradient(
    make_optimizer: Callable[[], Any],
) -> None:
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.zeros([SIZE]), name="w")
        # d(loss)/dw = -1 everywhere: every applied step adds exactly 1 to each element.
        train = make_optimizer().minimize(-tf.reduce_sum(w))
        init = tf.global_variables_initializer()
    threads, steps = 4, 40
    with tf.Session(graph=g) as sess:
        sess.run(init)
        _hammer(sess, train, threads, steps)
        final = sess.run(w)
    np.testing.assert_array_equal(final, np.full(SIZE, threads * steps, np.float32))


def test_a_dense_update_writes_the_variable_in_place() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(tf.zeros([SIZE]), name="v")
        delta = tf.constant(np.ones(SIZE, np.float32))
        bump = tf.assign_add(v, delta)
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        sess.run(bump.op)  # the first update may copy the initializer's value
        with traced_peak() as peak:
            for _ in range(3):
                sess.run(bump.op)
        assert sess.run(v)[0] == 4.0
    assert peak.bytes < SIZE * 4 // 10, f"an update allocated {peak.bytes} bytes at its peak"


def test_an_array_fetched_before_an_update_keeps_its_values() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.zeros(4, np.float32), name="v")
        bump = tf.assign_add(v, np.ones(4, np.float32))
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        sess.run(bump.op)
        held = sess.run(v)
        sess.run(bump.op)
        np.testing.assert_array_equal(held, np.ones(4, np.float32))
        np.testing.assert_array_equal(sess.run(v), np.full(4, 2.0, np.float32))
