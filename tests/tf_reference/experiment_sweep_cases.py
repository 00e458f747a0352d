"""Behaviours small public TF1 experiment scripts (gradients, queues, sessions, input
pipelines) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_experiment_sweep.py and on tfcluster by
tests/unit/test_experiment_sweep.py. Python 3.7 code."""

from __future__ import annotations

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


@case
def gradient_through_print_in_a_cond_branch(tf):
    """tf.Print inside a tf.cond branch passes its input's gradient through (a switch that
    turns backprop on and off per value: y = t + stop_gradient(x - t) with t the printed x
    or zeros); also a Print of a Print, a Print with data, and a tf.case branch."""
    x = tf.constant([1.5, -2.0], name="x")
    s = tf.placeholder(tf.float32, [2], name="switches")
    parts = []
    for k in range(2):
        xk = x[k] * x[k]
        t = tf.cond(
            tf.cast(s[k], tf.bool),
            lambda xk=xk: tf.Print(xk, [0], "backprop enabled "),
            lambda xk=xk: tf.zeros_like(xk),
        )
        parts.append(t + tf.stop_gradient(xk - t))
    z = tf.reduce_sum(tf.stack(parts))
    nested = tf.cond(
        s[0] > 0,
        lambda: tf.Print(tf.Print(x * 3.0, [x], "inner "), [x, s], "outer ") * x,
        lambda: x * 0.5,
    )
    in_case = tf.case(
        [(s[1] > 0, lambda: tf.Print(tf.exp(x), [x], "case "))], default=lambda: tf.sin(x)
    )
    grads = {
        "z": tf.gradients(z, x)[0],
        "nested": tf.gradients(nested, x)[0],
        "case": tf.gradients(in_case, x)[0],
    }
    out = {}
    with tf.Session() as sess:
        for switches in ([1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]):
            got = sess.run({"value": z, "grads": grads}, {s: switches})
            tag = "".join(str(int(v)) for v in switches)
            out["value_" + tag] = float(got["value"])
            for name, g in sorted(got["grads"].items()):
                out[name + "_" + tag] = g.tolist()
    return out
