"""A division by a constant inside a cond's branches, a while loop's body, a dataset's map
function or a cond in one: TF 1.15's optimizers turn x / c into x * (1 / c) there as in the main
graph, which rounds differently from the quotient (x / 127.5 in image programs). Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_function_body_division.py and on
tfcluster by tests/unit/test_function_body_division.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import registrar
except ImportError:  # run as a recorder, from tests/tf_reference
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _pixels(dtype=np.float32):
    return (np.random.RandomState(0).rand(400) * 255).astype(dtype)


@case
def divisions_by_a_constant_in_a_conds_branches(tf):
    """Both branches divide by a constant (float32 and float64); the result is the product by
    the reciprocal, bit for bit."""
    x = tf.placeholder(tf.float32, [400])
    x64 = tf.placeholder(tf.float64, [400])
    p = tf.placeholder(tf.bool, [])
    out = tf.cond(p, lambda: (x / 127.5 - 1, x64 / 3.0), lambda: (x / 255.0, x64 / 7.0))
    feed = {x: _pixels(), x64: _pixels(np.float64)}
    with tf.Session() as sess:
        taken = sess.run(out, {**feed, p: True})
        other = sess.run(out, {**feed, p: False})
    return {"true": [v.tolist() for v in taken], "false": [v.tolist() for v in other]}


@case
def a_division_by_a_constant_in_a_loop_body(tf):
    """Each iteration divides by a constant."""
    x = tf.placeholder(tf.float32, [400])
    _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v / 1.7 + 1.0), [0, x])
    with tf.Session() as sess:
        return {"value": sess.run(out, {x: _pixels()}).tolist()}


@case
def a_division_by_a_constant_in_a_cond_of_a_map_function(tf):
    """A dataset's map function with a cond whose branch divides by a constant."""
    ds = tf.data.Dataset.from_tensors(_pixels()).map(
        lambda t: tf.cond(t[0] > 0, lambda: t / 127.5, lambda: t)
    )
    value = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        return {"value": sess.run(value).tolist()}


@case
def divisions_by_constants_in_a_map_function(tf):
    """A map function scaling decoded bytes (`tf.cast(image, tf.float32) / 255.0`), floats
    by a Python number and by a tf.constant, float64 values; divisions by a non-constant and
    integer divisions stay divisions."""
    pixels = np.arange(256, dtype=np.uint8)
    floats = np.linspace(-3, 10, 500).astype(np.float32)
    ds = tf.data.Dataset.from_tensors((pixels, floats)).map(
        lambda p, f: {
            "scaled_bytes": tf.cast(p, tf.float32) / 255.0,
            "by_seven": f / 7.0,
            "by_constant": f / tf.constant(3.3),
            "float64": tf.cast(f, tf.float64) / 3.0,
            "by_element": f / (f[:1] + 11.0),
            "integers": tf.cast(p, tf.int32) // 3,
            "truediv_of_ints": tf.truediv(tf.cast(p, tf.int32), 7),
        }
    )
    value = tf.data.make_one_shot_iterator(ds.batch(1)).get_next()
    with tf.Session() as sess:
        got = sess.run(value)
    return {k: v.tolist() for k, v in got.items()}
