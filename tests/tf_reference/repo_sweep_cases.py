"""Behaviours public TF1 repositories (SeqGAN's generators, golbin's and nlintz's tutorials,
dennybritz's text CNN) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_repo_sweep.py and on tfcluster by
tests/unit/test_repo_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _ops(tf):
    return [[op.type, op.name] for op in tf.get_default_graph().get_operations()]


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return None


def one_hot_ops_and_later_seeds(tf):
    """tf.one_hot makes TF's ops for every form of on_value / off_value (Python values are
    converted once for their dtype and again as the op's named inputs), so the op seed of a
    later random op (SeqGAN samples after a one_hot) is TF's."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    idx = tf.constant([0, 2, 1])
    on = tf.constant(5.0)
    outs = [
        tf.one_hot(idx, 3, 1.0, 0.0),
        tf.one_hot(idx, 3),
        tf.one_hot(idx, 3, on_value=2),
        tf.one_hot(idx, 3, off_value=-1.0, dtype=tf.float32),
        tf.one_hot(idx, 3, on, 0.0),
        tf.one_hot([1, 0], 4, np.float64(3.0), np.float64(-3.0), axis=0),
        tf.one_hot(idx, 3, dtype=tf.int64),
    ]
    draw = tf.random_uniform([4])
    ops = _ops(tf)
    with tf.Session() as sess:
        values = sess.run([*outs, draw])
    errors = {
        "int_on_float_dtype": _error(lambda: tf.one_hot(idx, 3, 1, 0, dtype=tf.float32)),
        "on_off_dtypes_differ": _error(lambda: tf.one_hot(idx, 3, 1.0, 0)),
        "off_against_dtype": _error(lambda: tf.one_hot(idx, 3, off_value=0, dtype=tf.float32)),
    }
    return {
        "ops": ops,
        "dtypes": [v.dtype.name for v in values],
        "values": [v.tolist() for v in values],
        "errors": errors,
    }


CASES = {f.__name__: f for f in (one_hot_ops_and_later_seeds,)}
