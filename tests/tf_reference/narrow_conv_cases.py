"""Float32 convolutions of few output channels (1 to 8) as TF 1.15's CPU kernels round them.
Conv2D's patches go to the same MKL-DNN sgemm as MatMul's general product: every output a
running fused multiply-add over the filter's taps and input channels, in the filter's order;
OpenBLAS sums such narrow products in another order, most
outputs a last bit apart (an image generator's RGB output layer, a discriminator's one-channel
patch map). Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_narrow_convs.py and on tfcluster by tests/unit/test_narrow_convs_as_tf.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}

# (batch, height, width, in channels, out channels, kernel, stride, padding): depths (taps x
# input channels) up to 64. From 66 terms Eigen's thread-pool contraction may cut the sum in
# one part per thread (its cost model decides, the thread count counts): not checked here.
_SHAPES = (
    (1, 32, 32, 3, 1, 4, 2, "SAME"),
    (2, 17, 19, 1, 2, 4, 2, "SAME"),
    (1, 16, 16, 4, 1, 4, 1, "VALID"),
    (1, 12, 12, 6, 3, 3, 1, "SAME"),
    (3, 9, 9, 2, 4, 4, 2, "SAME"),
    (1, 8, 8, 2, 8, 4, 1, "VALID"),
    (1, 10, 10, 2, 5, 5, 1, "SAME"),
    (2, 20, 20, 7, 6, 3, 2, "SAME"),
)


def _name(shape):
    return "n{}_h{}_w{}_ci{}_co{}_k{}_s{}_{}".format(*shape)


def conv_forward(tf):
    """Conv2D alone (its output fetched) and Conv2D -> BiasAdd (grappler fuses the pair):
    depths (taps x input channels) from 16 to 64."""
    tf.reset_default_graph()
    rng = np.random.RandomState(21)
    plain, biased = {}, {}
    for shape in _SHAPES:
        n, h, w, ci, co, k, s, pad = shape
        x = rng.randn(n, h, w, ci).astype(np.float32)
        f = (rng.randn(k, k, ci, co) * 0.1).astype(np.float32)
        b = rng.randn(co).astype(np.float32)
        plain[_name(shape)] = tf.nn.conv2d(x, f, [1, s, s, 1], pad)
        xb = tf.placeholder(tf.float32, [None, h, w, ci])
        conv = tf.nn.conv2d(xb, tf.constant(f), [1, s, s, 1], pad)
        biased[_name(shape)] = (tf.nn.bias_add(conv, tf.constant(b)), {xb: x})
    out = {}
    with tf.Session() as sess:
        for name, value in sorted(sess.run(plain).items()):
            out["conv_" + name] = value.tolist()
        for name, (t, feed) in sorted(biased.items()):
            out["biased_" + name] = sess.run(t, feed).tolist()
    return out


CASES["conv_forward"] = conv_forward
