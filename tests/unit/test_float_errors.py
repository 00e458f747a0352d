"""numpy's floating-point warnings are silenced while a step runs (TF returns inf/nan quietly)
and only then: the caller's numpy warns as before once the step is over."""

from __future__ import annotations

import warnings

import numpy as np
import tfcluster as tf
from tfcluster.kernels import math as math_kernels
from tfcluster.runtime import float_errors
from tfcluster.runtime.graph_ir import node_from_operation


def test_a_step_with_overflow_and_division_by_zero_does_not_warn() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        y = tf.exp(x) / (x - 1.0) + tf.log(x)
        with tf.Session() as sess, warnings.catch_warnings():
            warnings.simplefilter("error")
            got = sess.run(y, {x: np.array([1.0, 100.0, -1.0], np.float32)})
    assert np.isinf(got[0]) and np.isinf(got[1]) and np.isnan(got[2])


def test_numpy_warns_again_after_the_step() -> None:
    with tf.Graph().as_default():
        x = tf.constant([0.0])
        with tf.Session() as sess:
            sess.run(1.0 / x)
    assert not float_errors.silenced()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.float32(1.0) / np.zeros(1, np.float32)
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_a_kernel_run_outside_a_step_silences_its_own_warnings() -> None:
    with tf.Graph().as_default():
        op = tf.exp(tf.placeholder(tf.float32, [1])).op
    compute = math_kernels._unary_factory("exp")(node_from_operation(op), np)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (out,) = compute(None, [np.array([1000.0], np.float32)])
    assert np.isinf(out[0])
