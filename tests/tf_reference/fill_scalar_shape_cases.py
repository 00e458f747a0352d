"""tf.zeros / tf.ones when the shape is one number (tf.zeros(5)) rather than a list: the ops
they leave in the graph (names and types, which move every later op-count seed), the result's
shape, dtype and value. Each case is `fn(tf) -> dict` on a fresh graph, run on TF 1.15 by
record_fill_scalar_shape.py and on tfcluster by tests/unit/test_fill_scalar_shape.py. Python
3.7 code."""

from __future__ import annotations

import numpy as np


def _filled(tf, make):
    g = tf.Graph()
    with g.as_default():
        t = make()
        ops = [[op.name, op.type] for op in g.get_operations()]
        with tf.Session() as sess:
            value = sess.run(t)
    return {
        "ops": ops,
        "name": t.name,
        "static_shape": t.shape.as_list(),
        "dtype": t.dtype.name,
        "value": np.asarray(value).tolist(),
    }


def _seed_after(tf, make):
    """The op-count seed a random op gets after the fill (what the fill's op count moves)."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        make()
        r = tf.random_normal([2])
        seed2 = None
        for op in g.get_operations():
            if op.type == "RandomStandardNormal":
                seed2 = op.get_attr("seed2")
        with tf.Session() as sess:
            value = sess.run(r)
    return {"seed2": seed2, "value": np.asarray(value).tolist()}


CASES = {
    "zeros_int_shape": lambda tf: _filled(tf, lambda: tf.zeros(5)),
    "ones_int_shape": lambda tf: _filled(tf, lambda: tf.ones(3, dtype=tf.int32)),
    "zeros_numpy_int_shape": lambda tf: _filled(tf, lambda: tf.zeros(np.int64(4), tf.bool)),
    "zeros_zero_shape": lambda tf: _filled(tf, lambda: tf.zeros(0)),
    "zeros_named_int_shape": lambda tf: _filled(tf, lambda: tf.zeros(2, name="z")),
    "zeros_list_shape": lambda tf: _filled(tf, lambda: tf.zeros([5])),
    "ones_tuple_shape": lambda tf: _filled(tf, lambda: tf.ones((2, 2))),
    "zeros_large_int_shape": lambda tf: _filled(tf, lambda: tf.zeros(1500)),
    "seed_after_zeros_int_shape": lambda tf: _seed_after(tf, lambda: tf.zeros(5)),
    "seed_after_ones_list_shape": lambda tf: _seed_after(tf, lambda: tf.ones([5])),
}
