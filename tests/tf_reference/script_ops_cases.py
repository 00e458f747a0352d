"""tf.py_func, tf.numpy_function and tf.py_function, written once against the TF1 API and run
twice: by record_script_ops.py under TensorFlow 1.15 and by
tests/unit/test_script_ops_reference.py under tfcluster. Each case returns plain data: values,
what the Python function received, op names/types/attrs, gradients, error classes and messages.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import re

import numpy as np

try:
    from tf_reference.case_tools import error, registrar, run, run_error
except ImportError:  # the recorder runs from this folder
    from case_tools import error, registrar, run, run_error

CASES = {}


case = registrar(CASES)


def _raise(exc):
    def fn(*args):
        raise exc

    return fn


def _first_line(e):
    return None if e is None else {"error": e["error"], "message": e["message"].split("\n")[0]}


@case
def py_func_values_and_what_the_function_gets(tf):
    seen = []

    def describe(*args):
        seen.extend("{}/{}".format(type(a).__name__, getattr(a, "dtype", type(a))) for a in args)
        return np.array(len(args), np.int64)

    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        out = run(
            tf,
            {
                "single": tf.py_func(lambda v: v * 2, [x], tf.float32),
                "list": tf.py_func(lambda v: [v * 2], [x], [tf.float32]),
                "multi": tf.py_func(
                    lambda a, b: (a + b, a - b), [1.0, 2.0], [tf.float32, tf.float32]
                ),
                "int64": tf.py_func(lambda v: 3, [x], tf.int64),
                "strings": tf.py_func(lambda v: v + b"!", [tf.constant("ab")], tf.string),
                "unicode": tf.py_func(lambda v: "uni", [x], tf.string),
                "stateless": tf.py_func(lambda v: v + 1, [x], tf.float32, stateful=False),
                "numpy_function": tf.numpy_function(lambda v: v * 3, [x], tf.float32),
                "described": tf.py_func(
                    describe, [tf.constant(3), tf.constant(1.5), tf.constant(["a"]), x], tf.int64
                ),
            },
        )
        shape = tf.py_func(lambda v: v, [x], tf.float32).shape
        return {"values": out, "seen": seen, "static_shape": shape.ndims}


@case
def py_func_op_names_and_attrs(tf):
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        a = tf.py_func(lambda v: v, [x], tf.float32)
        b = tf.py_func(lambda v: v, [x], tf.float32, stateful=False)
        c = tf.py_function(lambda v: v, [x], tf.float32)
        d = tf.numpy_function(lambda v: v, [x], tf.float32)
        e = tf.py_func(lambda v: None, [x], [])
        ops = [t.op for t in (a, b, c, d)] + [e]
        return {
            "ops": [[op.name, op.type, sorted(op.node_def.attr)] for op in ops],
            "tout": [
                [dt.name for dt in a.op.get_attr("Tout")],
                [dt.name for dt in c.op.get_attr("Tin")],
            ],
            "no_outputs": run(tf, e) is None,
            "gradient": tf.gradients(a, [x]) == [None],
        }


@case
def py_func_errors(tf):
    cases = {
        "value_error": lambda: tf.py_func(_raise(ValueError("bad")), [1.0], tf.float32),
        "type_error": lambda: tf.py_func(_raise(TypeError("bad")), [1.0], tf.float32),
        "runtime_error": lambda: tf.py_func(_raise(RuntimeError("bad")), [1.0], tf.float32),
        "index_error": lambda: tf.py_func(lambda v: [][1], [1.0], tf.float32),
        "not_implemented": lambda: tf.py_func(_raise(NotImplementedError("ni")), [1.0], tf.float32),
        "memory_error": lambda: tf.py_func(_raise(MemoryError("mem")), [1.0], tf.float32),
        "wrong_dtype": lambda: tf.py_func(lambda v: np.array([1, 2], np.int64), [1.0], tf.float32),
        "wrong_count": lambda: tf.py_func(lambda v: (v, v), [1.0], [tf.float32]),
        "too_few": lambda: tf.py_func(lambda v: v, [1.0], [tf.float32, tf.float32]),
        "int_for_int32": lambda: tf.py_func(lambda v: 3, [1.0], tf.int32),
        "float_for_float32": lambda: tf.py_func(lambda v: 3.5, [1.0], tf.float32),
    }
    out = {}
    for name, build in sorted(cases.items()):
        with tf.Graph().as_default():
            out[name] = _first_line(run_error(tf, build()))
    with tf.Graph().as_default():
        out["not_callable"] = error(lambda: tf.py_func(3, [1.0], tf.float32))
    for v in out.values():
        if v is not None:
            v["message"] = re.sub(r"pyfunc_\d+", "pyfunc_N", v["message"])
    return out


@case
def py_function_eager_ops_and_gradients(tf):
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.py_function(lambda v: tf.square(v) * 3 + 1, [x], tf.float32)
        z = tf.py_function(lambda v: v.numpy() * 3, [x], tf.float32)
        t = tf.py_function(lambda v: np.array(type(v).__name__), [x], tf.string)
        pair = tf.py_function(
            lambda a, b: (a * b, a + b), [x, tf.constant(3.0)], [tf.float32, tf.float32]
        )
        (gy,) = tf.gradients(tf.reduce_sum(y), [x])
        (gz,) = tf.gradients(tf.reduce_sum(z), [x])
        ga, gb = tf.gradients(
            tf.reduce_sum(pair[0]) + tf.reduce_sum(pair[1]), [x, pair[0].op.inputs[1]]
        )
        with tf.Session() as sess:
            v = sess.run([y, z, t, pair])
            g = sess.run([y, gy])
            g2 = sess.run([z, gz])
            g3 = sess.run([pair, ga, gb])
        return {"values": v, "grad": g, "grad_numpy_only": g2, "grad_pair": g3}


@case
def py_func_with_gradient_override(tf):
    with tf.Graph().as_default() as g:

        @tf.RegisterGradient("SquareFuncGradForCases")
        def _grad(op, grad):
            return grad * 2.0 * op.inputs[0]

        x = tf.constant([1.0, 3.0])
        with g.gradient_override_map({"PyFunc": "SquareFuncGradForCases"}):
            y = tf.py_func(lambda v: v * v, [x], tf.float32)
        y.set_shape(x.shape)
        (gx,) = tf.gradients(tf.reduce_sum(y), [x])
        return {"values": run(tf, [y, gx])}
