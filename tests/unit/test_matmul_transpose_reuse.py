"""MatMul keeps the contiguous transpose of a weight it multiplies by again and again (a
loop's gradient does, every iteration): the results must follow every change of the weight
and never come from a stale copy."""

from __future__ import annotations

import numpy as np
import tfcluster as tf


def _loop_of_transposed_products(w: object, x0: np.ndarray, steps: int) -> object:
    def body(i: object, x: object) -> tuple[object, object]:
        return i + 1, tf.tanh(tf.matmul(x, w, transpose_b=True))

    return tf.while_loop(lambda i, x: i < steps, body, [0, tf.constant(x0)])[1]


def _numpy_loop(w: np.ndarray, x: np.ndarray, steps: int) -> np.ndarray:
    for _ in range(steps):
        x = np.tanh(x @ w.T)
    return x


def test_products_follow_the_variable_when_it_changes() -> None:
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 4)).astype(np.float32)
    values = [rng.standard_normal((4, 4)).astype(np.float32) for _ in range(3)]
    with tf.Graph().as_default():
        w = tf.Variable(values[0])
        y = _loop_of_transposed_products(w, x0, 6)
        with tf.Session() as sess:
            sess.run(w.initializer)
            for value in values:
                w.load(value, sess)
                np.testing.assert_allclose(sess.run(y), _numpy_loop(value, x0, 6), rtol=1e-5)


def test_a_fed_array_changed_in_place_between_steps_is_read_afresh() -> None:
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((2, 3)).astype(np.float32)
    fed = rng.standard_normal((3, 3)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, [3, 3])
        y = _loop_of_transposed_products(w, x0, 4)
        with tf.Session() as sess:
            for scale in (1.0, -0.5, 2.0):
                fed *= scale  # the same buffer, new contents
                np.testing.assert_allclose(
                    sess.run(y, {w: fed}), _numpy_loop(fed, x0, 4), rtol=1e-5
                )


def test_gradient_through_a_loop_matches_numpy_after_each_update() -> None:
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((2, 3)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(rng.standard_normal((3, 3)).astype(np.float32) * 0.5)
        y = _loop_of_transposed_products(w, x0, 5)
        loss = tf.reduce_sum(y * y)
        (grad,) = tf.gradients(loss, [w])
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(w.initializer)
            for _ in range(3):
                value = sess.run(w)
                eps = 1e-3
                numeric = np.zeros_like(value)
                for idx in np.ndindex(*value.shape):
                    plus, minus = value.copy(), value.copy()
                    plus[idx] += eps
                    minus[idx] -= eps
                    f_plus = np.sum(_numpy_loop(plus.astype(np.float64), x0, 5) ** 2)
                    f_minus = np.sum(_numpy_loop(minus.astype(np.float64), x0, 5) ** 2)
                    numeric[idx] = (f_plus - f_minus) / (2 * eps)
                np.testing.assert_allclose(sess.run(grad), numeric, rtol=2e-3, atol=2e-3)
                sess.run(train)
