"""Clipping ops against numpy, with gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match


def test_clip_by_value() -> None:
    x = np.array([[3.0, 4.0], [-10.0, 0.5]], np.float32)
    with tf.Session() as sess:
        out = sess.run(tf.clip_by_value(tf.constant(x), -1.0, 2.0))
    np.testing.assert_array_equal(out, np.clip(x, -1.0, 2.0))


def test_clip_by_norm_scales_only_large_tensors() -> None:
    with tf.Session() as sess:
        big = sess.run(tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0))
        small = sess.run(tf.clip_by_norm(tf.constant([0.3, 0.4]), 1.0))
        rows = sess.run(tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.0, 0.5]]), 1.0, axes=[1]))
        zero = sess.run(tf.clip_by_norm(tf.zeros([2]), 1.0))
    np.testing.assert_allclose(big, [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(small, [0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 0.5]], rtol=1e-6)
    np.testing.assert_array_equal(zero, [0.0, 0.0])


def test_clip_by_global_norm_keeps_nones() -> None:
    a, b = tf.constant([3.0, 4.0]), tf.constant([12.0])
    clipped, norm = tf.clip_by_global_norm([a, None, b], 6.5)
    assert clipped[1] is None
    with tf.Session() as sess:
        ca, cb, n = sess.run([clipped[0], clipped[2], norm])
    assert n == pytest.approx(13.0)
    np.testing.assert_allclose(ca, [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(cb, [6.0], rtol=1e-6)
    with tf.Session() as sess:
        assert sess.run(tf.global_norm([a, b])) == pytest.approx(13.0)
    with pytest.raises(TypeError):
        tf.clip_by_global_norm(a, 1.0)


def test_clip_gradients() -> None:
    x = np.array([[3.0, -4.0], [0.2, 0.5]])
    assert_gradients_match(lambda t: tf.clip_by_value(t, -1.0, 2.0), [x])
    assert_gradients_match(lambda t: tf.clip_by_norm(t, 1.0), [x])
