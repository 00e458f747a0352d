"""tf.nn.lrn and its gradient in float32, bit for bit as TF 1.15's CPU kernels give them: the
window of squares added channel after channel, Eigen's packet log/exp for a general beta, its
fast reciprocal square root for beta 0.5, a division for beta 1, TF's running-window loop for
inputs deeper than 384 channels with beta 0.5 or 1, and LRNGrad's loop (each channel's terms
added in channel order, a zero incoming gradient skipped). Each case is `fn(tf) -> dict of
plain values`, run on TF 1.15 by record_local_response_normalization.py and on tfcluster by
tests/unit/test_local_response_normalization.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

# (input shape, depth_radius, bias, alpha, beta): AlexNet-style CIFAR settings, small and odd
# depths, a radius wider than the depth, and the single-threaded depths.
SETTINGS = [
    ((2, 4, 4, 64), 4, 1.0, 0.001 / 9.0, 0.75),
    ((2, 5, 3, 13), 2, 2.0, 0.1, 0.75),
    ((2, 3, 3, 96), 5, 1.0, 1e-4, 0.5),
    ((2, 3, 3, 7), 1, 0.5, 0.3, 1.0),
    ((1, 2, 2, 400), 2, 1.0, 0.01, 0.5),
    ((1, 2, 2, 401), 3, 1.0, 0.01, 1.0),
    ((1, 3, 5, 17), 20, 1.0, 0.05, 0.6),
]


def _bits(values):
    return np.asarray(values, np.float32).view(np.uint32)


def lrn_outputs_and_gradients(tf):
    """Each setting's LRN output and its gradient for a random incoming gradient with some
    zeros, as float32 bits."""
    rng = np.random.RandomState(0)
    out = {}
    for i, (shape, radius, bias, alpha, beta) in enumerate(SETTINGS):
        x = rng.randn(*shape).astype(np.float32) * 3
        dy = rng.randn(*shape).astype(np.float32)
        dy[rng.rand(*shape) < 0.1] = 0
        with tf.Graph().as_default():
            xt = tf.constant(x)
            y = tf.nn.lrn(xt, depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
            g = tf.gradients(y, xt, grad_ys=tf.constant(dy))[0]
            with tf.Session() as sess:
                yv, gv = sess.run([y, g])
        out["setting_" + str(i)] = {"output": _bits(yv), "gradient": _bits(gv)}
    return out


CASES = {"lrn_outputs_and_gradients": lrn_outputs_and_gradients}
