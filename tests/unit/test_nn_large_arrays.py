"""Relu, ReluGrad, BiasAdd and BiasAddGrad of arrays large enough to go over every core (a
conv net's activations, 8 MB here) give what one numpy pass gives: exactly for the
element-wise ops (NaN and infinities included), within float32 rounding for the sums."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.ops import nn_ops

SHAPE = (64, 32, 32, 32)  # 8 MB of float32


def _activations() -> np.ndarray:
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    x[0, 0, 0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


def _run(fetch: object) -> np.ndarray:
    with tf.Session() as sess:
        return sess.run(fetch)


def test_relu_and_its_gradient() -> None:
    x = _activations()
    g = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
    g[1, 0, 0, :2] = [np.nan, np.inf]
    with tf.Graph().as_default():
        y = _run(tf.nn.relu(tf.constant(x)))
        xt = tf.constant(x)
        dx = _run(tf.gradients(tf.nn.relu(xt), xt, grad_ys=tf.constant(g))[0])
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    with np.errstate(invalid="ignore"):  # inf * 0: NaN, as TF's ReluGrad gives
        want = g * (x > 0)
    np.testing.assert_array_equal(dx, want)
    assert y.dtype == dx.dtype == np.float32


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_bias_add_and_its_gradient(fmt: str) -> None:
    x = _activations()
    clean = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    b = np.random.default_rng(2).standard_normal(SHAPE[1] if fmt == "NCHW" else SHAPE[-1])
    b = b.astype(np.float32)
    with tf.Graph().as_default():
        y = _run(tf.nn.bias_add(tf.constant(x), tf.constant(b), data_format=fmt))
        db = _run(nn_ops.bias_add_grad(tf.constant(clean), data_format=fmt))
    axis = 1 if fmt == "NCHW" else 3
    shape = [1, 1, 1, 1]
    shape[axis] = b.size
    np.testing.assert_array_equal(y, x + b.reshape(shape))
    others = tuple(i for i in range(4) if i != axis)
    want = clean.astype(np.float64).sum(axis=others)
    np.testing.assert_allclose(db, want, rtol=1e-5, atol=1e-2)
    assert db.dtype == np.float32 and db.shape == (b.size,)
