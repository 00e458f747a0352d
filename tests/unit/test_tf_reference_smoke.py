"""Core values against TensorFlow's recorded ones: softmax, its gradient, and the error class
of an impossible reshape (the path every reference comparison takes)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference


def test_softmax_and_its_gradient_match_tensorflow() -> None:
    rec = reference.case("smoke", "softmax_and_gradient")
    x = tf.constant(rec["x"], name="x")
    y = tf.nn.softmax(x, name="y")
    (g,) = tf.gradients(tf.reduce_sum(y * y, name="s"), [x])
    with tf.Session() as sess:
        out = sess.run({"y": y, "g": g})
    assert y.name == rec["name"]
    reference.assert_close(out["y"], rec["y"])
    reference.assert_close(out["g"], rec["grad"])


def test_an_impossible_reshape_raises_tensorflows_error_class() -> None:
    rec = reference.case("smoke", "reshape_wrong_size")
    a = tf.placeholder(tf.float32)
    b = tf.reshape(a, [4, 2])
    expected = getattr(tf.errors, reference.error_class(rec["error"]))
    with tf.Session() as sess, pytest.raises(expected):
        sess.run(b, {a: reference.case("smoke", "softmax_and_gradient")["x"]})
