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


def _runtime_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


_HUGE = 3e37
_TWO_THREADS = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)


def test_kernels_split_over_the_intra_op_threads_do_not_warn() -> None:
    """A convolution over a batch and a large product overflow in the pool threads that
    take their pieces (a step's own silencing covers only the thread stepping the graph)."""
    rng = np.random.default_rng(0)
    feeds = {
        "images": (rng.standard_normal((16, 98, 43, 8)) * _HUGE).astype(np.float32),
        "filters": (rng.standard_normal((5, 5, 8, 16)) * _HUGE).astype(np.float32),
        "a": (rng.standard_normal((512, 1024)) * _HUGE).astype(np.float32),
    }
    with tf.Graph().as_default():
        x = {k: tf.placeholder(tf.float32, v.shape, name=k) for k, v in feeds.items()}
        conv = tf.nn.conv2d(x["images"], x["filters"], [1, 1, 1, 1], "SAME")
        product = tf.matmul(x["a"], x["a"], transpose_b=True)
        fed = {x[k]: v for k, v in feeds.items()}
        sess = tf.Session(config=_TWO_THREADS)
        with sess, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                got_conv, got_product = sess.run([conv, product], fed)
    assert not _runtime_warnings(caught)
    assert not np.isfinite(got_conv).all() and not np.isfinite(got_product).all()


def test_constants_folded_before_the_step_do_not_warn() -> None:
    """A product of constants that overflows is folded when the graph is registered."""
    a = (np.random.default_rng(1).standard_normal((64, 128)) * _HUGE).astype(np.float32)
    with tf.Graph().as_default():
        product = tf.matmul(a, a, transpose_b=True)
        with tf.Session() as sess, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = sess.run(product)
    assert not _runtime_warnings(caught)
    assert not np.isfinite(got).all()
