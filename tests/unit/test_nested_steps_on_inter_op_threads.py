"""A loop's body that itself runs kernels in parallel, run by a loop kernel that the step handed
to an inter-op thread: the body's step runs on that thread alone. Handing the body's kernels to
the inter-op pool would queue them behind the very thread waiting for them (a pool of one on
two cores) and the step would never end."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tfcluster as tf

pytestmark = pytest.mark.timeout(180)


def _graph() -> tuple[tf.Graph, tf.Tensor, tf.Tensor]:
    g = tf.Graph()
    with g.as_default():
        # Fed, so that nothing of the step is folded into constants before it runs.
        x = tf.placeholder(tf.float32, [400, 400])
        # Independent heavy kernels outside the loop: the step runs on two threads.
        a = tf.matmul(x, x)
        b = tf.matmul(x, x, transpose_a=True)

        def body(i: tf.Tensor, acc: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            # Independent heavy kernels inside: the body's own step would run them in parallel.
            return i + 1, tf.matmul(acc, x) + tf.matmul(x, acc, transpose_b=True)

        _, looped = tf.while_loop(lambda i, _: i < 4, body, [tf.constant(0), x])
        out = a + b + looped
    return g, x, out


def _x() -> np.ndarray:
    return np.random.RandomState(0).rand(400, 400).astype(np.float32) * 1e-2


def _expected() -> np.ndarray:
    x = _x()
    acc = x
    for _ in range(4):
        acc = acc @ x + x @ acc.T
    return x @ x + x.T @ x + acc


def test_a_loop_on_an_inter_op_thread_runs_its_parallel_body_to_the_end() -> None:
    g, x, out = _graph()
    config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def steps() -> None:
        try:
            with tf.Session(graph=g, config=config) as sess:
                for _ in range(12):  # past the probe steps, which run sequentially
                    results.append(sess.run(out, {x: _x()}))
        except BaseException as e:  # reported by the test's thread
            errors.append(e)

    runner = threading.Thread(target=steps, daemon=True)
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), f"the step never ended ({len(results)} steps ran)"
    assert not errors, errors
    assert len(results) == 12
    for r in results:
        np.testing.assert_allclose(r, _expected(), rtol=1e-4)
