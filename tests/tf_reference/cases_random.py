"""Cases of tf.random (stateless ops give TF's own numbers; stateful samplers are compared on
what does not depend on the generator: shapes, dtypes, names, support) and tf.bitwise, run on
TensorFlow by record_random.py and on tfcluster by tests/unit/test_tf_reference_random.py."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book
except ImportError:  # imported as tf_reference.cases_random by the tests
    from tf_reference.casebook import Book

BOOK = Book()
add = BOOK.add

SEEDS = {"s": np.array([1, 2], np.int64), "t": np.array([-7, 2**40], np.int64)}


@add(
    "stateless_uniform",
    SEEDS,
    names=False,
    notes="TF 2.x splits each stateless op into GetKeyCounter + a V2 op; the numbers are 1.15's",
)
def _uniform(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "f32": tf.random.stateless_uniform([3, 5], t["s"]),
        "f64": tf.random.stateless_uniform([7], t["t"], dtype=tf.float64),
        "f16": tf.random.stateless_uniform([5], t["s"], dtype=tf.float16),
        "range": tf.random.stateless_uniform([6], t["t"], minval=-2.0, maxval=3.0),
        "i32": tf.random.stateless_uniform([9], t["s"], minval=-3, maxval=10, dtype=tf.int32),
        "i64": tf.random.stateless_uniform([5], t["t"], minval=0, maxval=2**40, dtype=tf.int64),
        "seed32": tf.random.stateless_uniform([4], tf.constant([5, 6], tf.int32)),
    }


@add("stateless_normal_and_truncated", SEEDS, names=False, rtol=1e-5, atol=1e-6)
def _normal(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "normal": tf.random.stateless_normal([2, 7], t["s"]),
        "normal64": tf.random.stateless_normal([5], t["t"], mean=1.0, stddev=2.0, dtype=tf.float64),
        "truncated": tf.random.stateless_truncated_normal([3, 6], t["t"]),
        "truncated64": tf.random.stateless_truncated_normal([7], t["s"], dtype=tf.float64),
    }


@add("stateless_categorical_shapes", SEEDS, names=False)
def _stateless_categorical(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    logits = tf.constant([[0.0, -1e9, 2.0], [-1e9, -1e9, 0.0]])
    sample = tf.random.stateless_categorical(logits, 20, t["s"])
    multi = tf.random.stateless_multinomial(logits, 7, t["t"], output_dtype=tf.int32)
    # Classes of ~zero probability never come up; the last row has one possible class.
    return {
        "shape": tf.shape(sample),
        "never_class1": tf.reduce_all(tf.not_equal(sample, 1)),
        "row1": sample[1],
        "multi_shape": tf.shape(multi),
        "multi_dtype_ok": tf.reduce_all(multi >= 0),
    }


@add("multinomial_and_categorical", {})
def _categorical(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    logits = tf.log(tf.constant([[0.5, 0.0, 0.5], [0.0, 0.0, 1.0]]))
    m = tf.multinomial(logits, 50, seed=3)
    c = tf.random.categorical(logits, 4, dtype=tf.int32, seed=5)
    return {
        "m": tf.shape(m),
        "c": tf.shape(c),
        "m_never1": tf.reduce_all(tf.not_equal(m, 1)),
        "c_row1": c[1],
    }


@add("gamma_and_poisson", {"alpha": np.array([[0.5], [3.0]]), "lam": np.array([0.5, 4.0, 20.0])})
def _gamma(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    g = tf.random_gamma([4, 5], t["alpha"], beta=2.0, dtype=tf.float64, seed=1)
    p = tf.random_poisson(t["lam"], [6], seed=2)
    return {
        "g_shape": tf.shape(g),
        "g_positive": tf.reduce_all(g > 0),
        "p_shape": tf.shape(p),
        "p_integral": tf.reduce_all(tf.equal(p, tf.round(p))),
        "rg": tf.shape(tf.random.gamma([3], 2.0)),
        "rp": tf.shape(tf.random.poisson(3.0, [2], dtype=tf.int64)),
    }


@add("gamma_reparameterised_gradient_is_finite", {"alpha": np.array([0.7, 2.5, 9.0], np.float32)})
def _gamma_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    g = tf.random.gamma([500], t["alpha"], seed=7)
    grad = tf.gradients(tf.reduce_sum(g), t["alpha"])[0]
    return {"finite": tf.reduce_all(tf.is_finite(grad)), "shape": tf.shape(grad)}


@add(
    "bitwise",
    {
        "a": np.array([5, -3, 127, 0], np.int8),
        "b": np.array([3, 1, 9, -1], np.int8),
        "u": np.array([0, 200, 15], np.uint8),
        "i": np.array([1, 1024, -8], np.int64),
    },
)
def _bitwise(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    return {
        "and": tf.bitwise.bitwise_and(a, b),
        "or": tf.bitwise.bitwise_or(a, b),
        "xor": tf.bitwise.bitwise_xor(a, b),
        "invert": tf.bitwise.invert(t["u"]),
        "lshift": tf.bitwise.left_shift(t["i"], tf.constant([3, 2, 1], tf.int64)),
        "rshift": tf.bitwise.right_shift(t["i"], tf.constant([1, 3, 2], tf.int64)),
        "shift8": tf.bitwise.left_shift(a, tf.abs(b)),
    }
