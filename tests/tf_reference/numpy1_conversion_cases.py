"""Fetched arrays of one element used as Python numbers, as TF1 programs written for numpy 1.x
use them: a (1,) value estimate stored into one element of a float buffer (`buf[t] =
sess.run(v)`), float()/int()/complex() of (1,) and (1, 1) fetches, "%.3f" formatting and
math functions of them, and the errors of arrays of another size. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 (numpy 1.18) by
record_numpy1_conversions.py and on tfcluster by tests/unit/test_numpy1_conversions.py.
Python 3.7 code."""

from __future__ import annotations

import math

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error


def _fetches(tf):
    """(1,) float32, (1, 1) float32, (1,) int32, (1,) bool and (2,) float32 fetches."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    v = tf.squeeze(tf.layers.dense(x, 1, kernel_initializer=tf.ones_initializer()), axis=1)
    m = tf.reduce_sum(x, axis=1, keepdims=True)
    i = tf.cast(tf.reduce_max(x, axis=1) * 10.0, tf.int32)
    b = tf.reduce_any(x > 0.25, axis=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        one = np.array([[0.1, -0.2, 0.37]], np.float32)
        two = np.array([[0.1, -0.2, 0.37], [1.0, 2.0, 3.0]], np.float32)
        return [*sess.run([v, m, i, b], {x: one}), sess.run(v, {x: two})]


def stored_into_an_element(tf):
    """A (1,) fetch stored into one element of float32, float64, int64 and complex64 buffers,
    and a (2,) fetch's error."""
    v, m, i, b, two = _fetches(tf)
    buf = np.zeros(4, np.float32)
    buf[0] = v
    buf[1] = m
    buf[2] = i
    buf[3] = b
    wide = np.zeros(2, np.float64)
    wide[1] = v
    ints = np.zeros(2, np.int64)
    ints[0] = v * 10
    ints[1] = i
    cplx = np.zeros(1, np.complex64)
    cplx[0] = v

    def store_two():
        buf[0] = two

    return {
        "float32": [float(x).hex() for x in buf],
        "float64": [float(x).hex() for x in wide],
        "int64": ints.tolist(),
        "complex64": [float(cplx[0].real).hex(), float(cplx[0].imag).hex()],
        "two": error(store_two),
    }


def converted_to_python_numbers(tf):
    """float(), int(), complex(), "%.3f" and math.exp of one-element fetches; the errors of
    float/int/complex of a (2,) fetch and of an empty array."""
    v, m, i, b, two = _fetches(tf)
    empty = np.zeros((0, 3), np.float32)
    c = complex(m)
    return {
        "float": [float(v).hex(), float(m).hex(), float(i).hex(), float(b).hex()],
        "int": [int(v * 10), int(m * 10), int(i), int(b)],
        "complex": [float(c.real).hex(), float(c.imag).hex()],
        "format": "%.3f %.1f %s" % (v, m, "%d" % int(i)),  # noqa: UP031 (float() of arrays)
        "exp": float(math.exp(v)).hex(),
        "float_two": error(lambda: float(two)),
        "int_two": error(lambda: int(two)),
        "complex_two": error(lambda: complex(two)),
        "float_empty": error(lambda: float(empty)),
        "scalar_float": float(np.float32(2.5) * v[0]).hex(),
        "zero_d": float(np.array(v[0])).hex(),
    }


def scalar_costs_averaged_in_python(tf):
    """A scalar cost (a constant times a reduction: its kernel's result a bare numpy scalar)
    summed into a Python float over a few runs, as autoencoder and RL loops average it: the
    fetched float32 promotes the running sum to float64 under numpy 1."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.Variable(tf.ones([4, 4]))
    cost = 0.5 * tf.reduce_sum(tf.pow(tf.subtract(tf.matmul(x, w), x), 2.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        avg = 0.0
        for i in range(3):
            value = sess.run(cost, {x: np.full((5, 4), 0.1 * (i + 1), np.float32)})
            avg += value / 700 * 5
    return {"fetched": type(value).__name__, "sum": repr(avg), "sum_type": type(avg).__name__}


CASES = {
    f.__name__: f
    for f in (stored_into_an_element, converted_to_python_numbers, scalar_costs_averaged_in_python)
}
