"""What TF1 programs print, run by TF 1.15 (record_printing.py) and tfcluster
(tests/unit/test_printing.py): tf.print of tensors of several dtypes, strings, a SparseTensor,
nested dicts and lists, with summarize, sep and end (captured from stdout), and the names of
a variable's initialized_value (TF's cond/Merge) and of the ops named after it. Python 3.7
code."""

from __future__ import annotations

import sys

import numpy as np

try:
    from tf_reference.case_tools import captured
except ImportError:  # run as a script under TF 1.15
    from case_tools import captured


def tf_print_formats(tf):
    tf.reset_default_graph()
    a = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 3)
    b = tf.constant([True, False])
    s = tf.constant(["ab", "c"])
    i64 = tf.constant(np.arange(30, dtype=np.int64))
    sp = tf.SparseTensor([[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    out = sys.stdout
    ops = [
        tf.print("a:", a, "b", b, output_stream=out),
        tf.print(s, i64, summarize=3, output_stream=out),
        tf.print({"k": a[0], "j": [b, 3]}, output_stream=out, sep="|", end="$\n"),
        tf.print(sp, output_stream=out),
        tf.print("sparse in a list:", [sp, 1], output_stream=out),
        tf.print(
            tf.constant(2.5, tf.float64),
            tf.constant(7, tf.uint8),
            tf.constant(1e-7),
            tf.constant(123456789.0),
            output_stream=out,
        ),
        tf.print(
            tf.zeros([2, 0]),
            tf.constant(np.arange(8.0).reshape(2, 2, 2)),
            output_stream=out,
            summarize=-1,
        ),
    ]
    with captured() as printed, tf.Session() as sess:
        for op in ops:
            sess.run(op)
            sys.stdout.flush()
    return {"printed": printed.stdout.splitlines()}


def initialized_value_names(tf):
    tf.reset_default_graph()
    with tf.name_scope("outer"):
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(v.initialized_value() * 2, name="w")
    x = v.initialized_value()
    c = tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(2))
    i = tf.is_variable_initialized(v)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([w, x, c])
    return {
        "names": [w.initial_value.name, x.name, c.name, i.name],
        "values": [float(values[0]), float(values[1]), int(values[2])],
    }


CASES = {"tf_print_formats": tf_print_formats, "initialized_value_names": initialized_value_names}
