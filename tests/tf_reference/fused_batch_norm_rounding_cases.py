"""FusedBatchNorm as TF 1.15's CPU kernel rounds it: the batch mean `sum(x) * (1 / rest)` and
variance `sum((x - mean)^2) * (1 / rest)`, each channel summed row after row (Eigen's
reduction of the outer dimension), and y = (x - mean) * (rsqrt(var + eps) * scale) + offset
with Eigen's fast-math rsqrt packets over the channel vector; in inference, the same with the
estimated statistics. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_fused_batch_norm_rounding.py and on tfcluster by
tests/unit/test_fused_batch_norm_rounding_as_tf.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}

# NHWC shapes: one and several channels, fewer and more than a packet of 8, rows from 4 to
# 8192.
_SHAPES = ((1, 64, 64, 2), (2, 7, 5, 3), (4, 8, 8, 8), (2, 9, 9, 12), (3, 5, 5, 17), (1, 30, 30, 1),
           (1, 2, 2, 9), (8, 32, 32, 1))  # fmt: skip


def _inputs(rng, shape):
    x = (rng.randn(*shape) * 2 + 0.7).astype(np.float32)
    scale = (1 + 0.1 * rng.randn(shape[-1])).astype(np.float32)
    offset = (0.1 * rng.randn(shape[-1])).astype(np.float32)
    return x, scale, offset


def _name(shape):
    return "x".join(str(d) for d in shape)


def _bits(value):
    """An array's dtype, shape and bytes (hex): bit-exact and compact on disk."""
    value = np.asarray(value)
    return [str(value.dtype), list(value.shape), value.tobytes().hex()]


def training(tf):
    """tf.nn.fused_batch_norm(is_training=True): y, the batch mean and the corrected variance;
    float32 and float16 inputs (statistics in float32)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    fetches = {}
    for shape in _SHAPES:
        x, scale, offset = _inputs(rng, shape)
        fetches[_name(shape)] = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-5)
        half = tf.nn.fused_batch_norm(x.astype(np.float16), scale, offset, epsilon=1e-3)
        fetches[_name(shape) + "_half"] = half
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: [_bits(v) for v in vs] for name, vs in sorted(values.items())}


CASES["training"] = training


def inference(tf):
    """tf.nn.fused_batch_norm(is_training=False) with given mean and variance."""
    tf.reset_default_graph()
    rng = np.random.RandomState(4)
    fetches = {}
    for shape in _SHAPES:
        x, scale, offset = _inputs(rng, shape)
        mean = rng.randn(shape[-1]).astype(np.float32)
        var = rng.uniform(0.2, 3.0, shape[-1]).astype(np.float32)
        y = tf.nn.fused_batch_norm(x, scale, offset, mean, var, epsilon=1e-3, is_training=False)
        fetches[_name(shape)] = y[0]
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: _bits(v) for name, v in sorted(values.items())}


CASES["inference"] = inference


def layer_updates_moving_statistics(tf):
    """tf.layers.batch_normalization(training=True) run three steps with its UPDATE_OPS: the
    output each step and the moving mean and variance after them."""
    tf.reset_default_graph()
    rng = np.random.RandomState(6)
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    y = tf.layers.batch_normalization(x, training=True, momentum=0.9)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    outputs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            feed = {x: (rng.randn(4, 6, 6, 3) * 3 + 1).astype(np.float32)}
            outputs.append(_bits(sess.run([y, updates], feed)[0]))
        weights = sess.run(tf.global_variables())
    return {"outputs": outputs, "weights": [_bits(w) for w in weights]}


CASES["layer_updates_moving_statistics"] = layer_updates_moving_statistics


# Channel counts below a packet of 8, or whole packets (others mix Eigen's packet and scalar
# rsqrt from row to row in the gradient: not checked here).
_GRAD_SHAPES = (
    (1, 64, 64, 2),
    (2, 7, 5, 3),
    (4, 8, 8, 8),
    (2, 9, 9, 16),
    (1, 30, 30, 1),
    (8, 32, 32, 1),
    (2, 50, 50, 4),
    (1, 4, 4, 5),
    (2, 6, 6, 64),
    (4, 20, 20, 24),
)


def gradients(tf):
    """The gradients of fused_batch_norm (training) given y's gradient: x's, scale's and
    offset's; and tf.gradients of a sum of squares through it."""
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    fetches = {}
    for shape in _GRAD_SHAPES:
        x, scale, offset = _inputs(rng, shape)
        dy = rng.randn(*shape).astype(np.float32)
        xt, st, ot = tf.constant(x), tf.constant(scale), tf.constant(offset)
        y = tf.nn.fused_batch_norm(xt, st, ot, epsilon=1e-3)[0]
        fetches[_name(shape)] = tf.gradients(y, [xt, st, ot], grad_ys=dy)
        loss = tf.reduce_sum(tf.square(y))
        fetches[_name(shape) + "_of_squares"] = tf.gradients(loss, [xt, st, ot])
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: [_bits(v) for v in vs] for name, vs in sorted(values.items())}


CASES["gradients"] = gradients
