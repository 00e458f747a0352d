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


# (batch, input size, input channels, output channels, kernel, stride, padding) of
# conv2d_transpose: outputs of 1 to 8 channels, inputs of up to 64.
_TRANSPOSED = (
    (1, 8, 2, 3, 4, 2, "SAME"),
    (2, 16, 4, 1, 4, 2, "SAME"),
    (1, 8, 8, 3, 3, 1, "SAME"),
    (1, 5, 2, 2, 4, 2, "SAME"),
    (1, 16, 16, 3, 4, 2, "SAME"),
    (2, 6, 64, 3, 5, 2, "SAME"),
    (1, 7, 3, 4, 3, 2, "VALID"),
    (3, 9, 5, 8, 1, 1, "VALID"),
)


def transposed_conv(tf):
    """conv2d_transpose to images of 1 to 8 channels (Conv2DBackpropInput: TF's product of
    out_backprop and the transposed filter, added into zeros patch after patch), SAME and
    VALID, strides 1 and 2, a 1x1 filter."""
    tf.reset_default_graph()
    rng = np.random.RandomState(23)
    fetches = {}
    for n, h, ci, co, k, s, pad in _TRANSPOSED:
        x = rng.randn(n, h, h, ci).astype(np.float32)
        f = (rng.randn(k, k, co, ci) * 0.2).astype(np.float32)
        size = h * s if pad == "SAME" else (h - 1) * s + k
        name = f"n{n}_h{h}_ci{ci}_co{co}_k{k}_s{s}_{pad}"
        fetches[name] = tf.nn.conv2d_transpose(x, f, [n, size, size, co], [1, s, s, 1], pad)
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: v.tolist() for name, v in sorted(values.items())}


CASES["transposed_conv"] = transposed_conv
