"""Behaviours a DCGAN program (deep convolutional GAN on MNIST-shaped images, checkpoints and
summaries) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF
1.15 by record_gan_programs.py and on tfcluster by tests/unit/test_gan_program_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import hashlib

import numpy as np

CASES = {}


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _digest(values):
    """sha256 of the float32 bytes, with the count and the first values (to see what differs)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    return {
        "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
        "size": int(values.size),
        "head": [float(v) for v in values.ravel()[:4]],
    }


@_case
def large_normal_draws(tf):
    """Weights of a generator's projection (1034 x 6272, as the GAN's) and two smaller shapes,
    drawn by random_normal, truncated_normal and their initializers: TF's Box-Muller calls
    glibc's logf and sincosf for every value, which are not correctly rounded."""
    tf.reset_default_graph()
    tf.set_random_seed(1234)
    shapes = {"projection": [1034, 6272], "dense": [64, 6272], "square": [700, 700]}
    fetches = {}
    for name, shape in shapes.items():
        fetches[name + "_normal"] = tf.random_normal(shape, seed=7)
        fetches[name + "_scaled_normal"] = tf.random_normal(shape, stddev=0.02, seed=8)
        fetches[name + "_truncated"] = tf.truncated_normal(shape, stddev=0.02, seed=9)
    init = tf.random_normal_initializer(stddev=0.02, seed=3)
    weights = tf.get_variable("w", [1034, 2048], initializer=init)
    fetches["initializer"] = weights.initialized_value()
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: _digest(v) for name, v in values.items()}
