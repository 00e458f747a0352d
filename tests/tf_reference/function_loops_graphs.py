"""Graphs TF 1.15 builds with For, SymbolicGradient, MapDefun and RemoteCall (their functions
in the GraphDef's library): record_function_loops.py writes each GraphDef to
data/function_loops/<name>.pb with TF's values; tfcluster imports and runs them. Each
`build(tf)` returns (fetches, feeds). TF 1.15 only (Python 3.7)."""

import numpy as np


def _defun_for(tf):
    from tensorflow.python.framework import function
    from tensorflow.python.ops import functional_ops

    @function.Defun(tf.int32, tf.float32, tf.float32)
    def body(i, total, scale):
        return total + tf.cast(i, tf.float32) * scale, scale

    x = tf.placeholder(tf.float32, [], name="scale")
    out = functional_ops.For(0, 5, 1, [tf.constant(1.0), x], body)
    return [tf.identity(out[0], name="total")], {x: np.float32(0.5)}


def _concrete_ops(tf):
    s = tf.TensorSpec([], tf.float32)

    @tf.function
    def f(x, y):
        return tf.tanh(x) * y

    @tf.function
    def row(a):
        return tf.reduce_max(a) - tf.reduce_min(a)

    x = tf.placeholder(tf.float32, [], name="x")
    grad = tf.raw_ops.SymbolicGradient(
        input=[x, tf.constant(4.0), tf.constant(1.0)],
        Tout=[tf.float32, tf.float32],
        f=f.get_concrete_function(s, s),
    )
    rows = tf.placeholder(tf.float32, [None, 3], name="rows")
    spread = tf.raw_ops.MapDefun(
        arguments=[rows],
        captured_inputs=[],
        output_types=[tf.float32],
        output_shapes=[[]],
        f=row.get_concrete_function(tf.TensorSpec([3], tf.float32)),
    )
    called = tf.raw_ops.RemoteCall(
        target="/job:localhost/replica:0/task:0/device:CPU:0",
        args=[x, tf.constant(2.0)],
        Tout=[tf.float32],
        f=f.get_concrete_function(s, s),
    )
    feeds = {x: np.float32(0.3), rows: np.array([[1, 5, 2], [0, -1, 4]], np.float32)}
    return [grad[0], grad[1], spread[0], called[0]], feeds


GRAPHS = {"defun_for": _defun_for, "concrete_ops": _concrete_ops}
