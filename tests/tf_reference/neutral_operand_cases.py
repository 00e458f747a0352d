"""Additions of zero that TF 1.15's constant folding replaces by their
other operand, so that a constant multiplied after them is pushed down to the product before
them: (r * 0.9 + 0.0) * 0.1 (tf.random_normal's stddev and default mean, then a constant)
rounds as r * (0.9 * 0.1), unless the step holds an op with a reference input (then TF keeps
a Snapshot) or the sum is fetched. Each case is `fn(tf) -> dict of plain values` (float32
results as hex strings: bits), run on TF 1.15 by record_neutral_operands.py and on tfcluster
by tests/unit/test_neutral_operands.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import registrar
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=1234)
_X = np.linspace(-3.0, 3.0, 41).astype(np.float32) * np.float32(1.37)


def _bits(values):
    return [float(v).hex() for v in np.asarray(values, np.float32).ravel()]


def _scaled_noise(tf):
    return tf.random_normal([64], mean=0.0, stddev=0.9) * 0.1


@case
def random_normal_times_a_constant(tf):
    out = _scaled_noise(tf)
    with tf.Session() as sess:
        return {"out": _bits(sess.run(out))}


@case
def beside_a_ref_variable_read(tf):
    v = tf.Variable(0.0)
    out = _scaled_noise(tf) + v
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"out": _bits(sess.run(out))}


@case
def beside_a_resource_variable_update(tf):
    v = tf.Variable(0.0, use_resource=True)
    out = _scaled_noise(tf)
    update = v.assign_add(1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"out": _bits(sess.run([out, update])[0])}


@case
def beside_a_ref_variable_update(tf):
    v = tf.Variable(0.0)
    out = _scaled_noise(tf)
    update = v.assign_add(1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"out": _bits(sess.run([out, update])[0])}


@case
def sum_fetched_too(tf):
    noise = tf.random_normal([64], mean=0.0, stddev=0.9)
    out = noise * 0.1
    with tf.Session() as sess:
        values = sess.run([out, noise])
        return {"out": _bits(values[0]), "noise": _bits(values[1])}


@case
def fed_operand_through_each_neutral_op(tf):
    p = tf.placeholder(tf.float32, [41])
    scaled = p * 0.7
    outs = {
        "add_zero": (scaled + 0.0) * 0.3,
        "zero_add": (tf.constant(0.0) + scaled) * 0.3,
        "sub_zero": (scaled - 0.0) * 0.3,
        "mul_one": (scaled * 1.0) * 0.3,
        "one_mul": (tf.constant(1.0) * scaled) * 0.3,
        "div_one": (scaled / 1.0) * 0.3,
        "plain": scaled * 0.3,
    }
    with tf.Session() as sess:
        values = sess.run(outs, {p: _X})
    return {k: _bits(v) for k, v in sorted(values.items())}
