"""Behaviours public TF1 GAN and RL programs (hwalsuklee's GAN collection, MorvanZhou's RL
tutorials, Kyubyong's transformer) showed apart on tfcluster: the order in which TF 1.15's CPU
kernels add up a bias gradient, a whole-tensor sum and a long row. A GAN's biases before batch
norm have gradients that are only rounding noise, which Adam turns into whole steps, so the
last bits of those sums decided its printed losses from the first step. Each case is
`fn(tf) -> dict of plain values` (float32 results as their bit patterns), run on TF 1.15 by
record_rlgan_sweep.py and on tfcluster by tests/unit/test_rlgan_sweep_behaviours.py. Every
session uses two intra-op threads (TF's sums depend on the pool's size; TF 1.15 sizes the
process's pool from its first session). Inputs are fed, not constants: grappler would fold
those on a device as wide as the machine. Python 3.7 code."""

from __future__ import annotations

import numpy as np

_CONFIG = {"intra_op_parallelism_threads": 2}


def _bits(values):
    return [np.asarray(v, np.float32).view(np.int32).tolist() for v in values]


def _run(tf, fetches, feed=None):
    with tf.Session(config=tf.ConfigProto(**_CONFIG)) as sess:
        return sess.run(fetches, feed)


def _fed(tf, feed, value):
    """A placeholder fed `value` (a float32 or float64 array)."""
    p = tf.placeholder(tf.as_dtype(value.dtype), value.shape)
    feed[p] = value
    return p


# [rows..., channels] of BiasAddGrad's input: a dense layer's batch, rows split in two blocks
# (and not), channels split between the threads, a convolution's NHWC gradient, one channel.
_BIAS_SHAPES = [
    (32, 30),
    (1000, 64),
    (4000, 64),
    (4000, 129),
    (12000, 16),
    (64, 14, 14, 64),
    (50176, 1),
]


def bias_gradient_sums(tf):
    """BiasAddGrad (raw, and as tf.gradients makes it for tf.nn.bias_add) sums each channel's
    gradient down the rows, in blocks of rows per thread where the channels are few."""
    tf.reset_default_graph()
    rs = np.random.RandomState(3)
    fetches, feed = [], {}
    for shape in _BIAS_SHAPES:
        g = _fed(tf, feed, (rs.randn(*shape) * rs.uniform(0.1, 10.0, shape)).astype(np.float32))
        fetches.append(tf.raw_ops.BiasAddGrad(out_backprop=g))
        x = _fed(tf, feed, rs.randn(*shape).astype(np.float32))
        b = _fed(tf, feed, np.zeros(shape[-1], np.float32))
        fetches.append(tf.gradients(tf.nn.bias_add(x, b), b, grad_ys=g)[0])
    return {"bits": _bits(_run(tf, fetches, feed))}


# Up to _eigen_sum.WHOLE_SUM_MAX values (larger sums keep numpy's order, for speed).
_WHOLE_SIZES = [(8201,), (13001,), (40007,), (4, 7, 7, 128), (65536,)]


def whole_tensor_sums(tf):
    """tf.reduce_sum / tf.reduce_mean of a whole tensor: halves of over 1024 packets summed
    apart, and from about 13000 values one block per thread the cost model wants."""
    tf.reset_default_graph()
    rs = np.random.RandomState(4)
    fetches, feed = [], {}
    for shape in _WHOLE_SIZES:
        x = _fed(tf, feed, rs.randn(*shape).astype(np.float32))
        fetches += [tf.reduce_sum(x), tf.reduce_mean(x)]
    return {"bits": _bits(_run(tf, fetches, feed))}


_ROW_SHAPES = [(9, 8193), (3, 16384), (5, 20003), (2, 100000)]


def long_row_sums(tf):
    """tf.reduce_sum over a last axis of more than 1024 packets: each row halved at packet
    boundaries counted from the tensor's first value (rows of odd length split differently)."""
    tf.reset_default_graph()
    rs = np.random.RandomState(5)
    feed = {}
    fetches = [
        tf.reduce_sum(_fed(tf, feed, rs.randn(*shape).astype(np.float32)), axis=-1)
        for shape in _ROW_SHAPES
    ]
    return {"bits": _bits(_run(tf, fetches, feed))}


_HELPERS = ["TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"]


def gradient_helper_ops(tf):
    """TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad and ReciprocalGrad (batch norm's rsqrt, a
    GAN's sigmoid output): Eigen's packet form over all but the last size % packet values,
    its scalar form (multiplied in another order) over those; 0 where dy is 0 for the sqrt,
    rsqrt and reciprocal gradients, whatever y is."""
    tf.reset_default_graph()
    rs = np.random.RandomState(6)
    special_y = [0, 0, np.inf, np.nan, 1, 2, 0, np.inf, 0, np.inf, np.nan]
    special_dy = [0, 1, 0, 0, 0, 0, -0.0, 1, 0, 0, 0]
    out = {}
    for dtype, int_type in ((np.float32, np.int32), (np.float64, np.int64)):
        feed, fetches = {}, []
        for y, dy in (
            (rs.uniform(0.05, 3, 1003), rs.randn(1003) * 3),
            (np.array(special_y), np.array(special_dy)),
        ):
            y, dy = _fed(tf, feed, y.astype(dtype)), _fed(tf, feed, dy.astype(dtype))
            fetches += [getattr(tf.raw_ops, op)(y=y, dy=dy) for op in _HELPERS]
        values = _run(tf, fetches, feed)
        out[np.dtype(dtype).name] = [np.asarray(v, dtype).view(int_type).tolist() for v in values]
    return out


# [rows, depth, columns]: a DQN's layers and their gradients, a policy's, and products at
# the edges of the shapes MKL-DNN's fused kernels take (depth 256, 65536 multiply-adds).
_MATMUL_SHAPES = [
    (32, 3, 20),
    (32, 20, 11),
    (20, 32, 11),
    (32, 11, 20),
    (2, 4, 2),
    (64, 30, 2),
    (8, 179, 27),
    (31, 51, 16),
    (16, 256, 16),
    (128, 4, 128),
    (2, 256, 128),
]


CASES = {
    f.__name__: f
    for f in (
        bias_gradient_sums,
        gradient_helper_ops,
        long_row_sums,
        whole_tensor_sums,
    )
}
