"""tf.Print, tf.print, tf.Assert, the assert_* family, tf.debugging's checks and
check_numerics, written once against the TF1 API and run twice: by record_debugging.py under
TensorFlow 1.15 and by tests/unit/test_debugging_reference.py under tfcluster. Each case
returns plain data: what was printed, values, the names and types of the ops made, and the
class and first line of every error (at graph build or run time).

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import sys

import numpy as np

try:
    from tf_reference.case_tools import captured, error, printed_lines, registrar, run, run_error
except ImportError:  # the recorder runs from this folder
    from case_tools import captured, error, printed_lines, registrar, run, run_error

CASES = {}


case = registrar(CASES)


def _op_info(x):
    op = x if hasattr(x, "node_def") and not hasattr(x, "op") else x.op
    return [op.name, op.type]


@case
def print_old_format(tf):
    with tf.Graph().as_default():
        x = tf.constant(np.arange(10, dtype=np.int32))
        m = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        s = tf.constant(["a", "bc\nd"])
        b = tf.constant([True, False])
        sc = tf.constant(3.5)
        outs = [
            tf.Print(x, [x, m, s, b, sc], "msg: "),
            tf.Print(x, [x, m], summarize=100),
            tf.Print(x, [m], "m", summarize=2),
            tf.Print(x, [tf.constant(np.arange(24).reshape(2, 3, 4))], "r3 ", summarize=5),
            tf.Print(x, [tf.constant(np.zeros((0,)))], "empty "),
            tf.Print(x, [tf.constant([1.5, 2.25, 1e-7, 1e10, 1.0 / 3.0])], "floats ", summarize=9),
            tf.Print(
                x,
                [tf.constant([1.5, 2.25, 1e-7, 1e10, 1.0 / 3.0], tf.float64)],
                "doubles ",
                summarize=9,
            ),
            tf.Print(x, [tf.constant([np.nan, np.inf, -np.inf])], "special "),
        ]
        first = tf.Print(x, [x], "first_n ", first_n=2)
        with tf.Session() as sess, captured() as out:
            values = [sess.run(o) for o in outs]
            for _ in range(4):
                sess.run(first)
        return {
            "printed": printed_lines(out.stderr),
            "values": values[0],
            "op": _op_info(outs[0]),
            "attrs": [outs[0].op.get_attr("first_n"), outs[0].op.get_attr("summarize")],
        }


@case
def print_v2_format(tf):
    with tf.Graph().as_default():
        x = tf.constant(np.arange(10, dtype=np.int32))
        m = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        s = tf.constant(["a", 'b"c\n'])
        b = tf.constant([True, False])
        sc = tf.constant(3.5)
        ops = [
            tf.print(x),
            tf.print("x:", x, m),
            tf.print(x, summarize=2),
            tf.print(x, summarize=-1),
            tf.print(m, s, b, sc, sep="|", end="!\n"),
            tf.print(tf.constant(np.arange(24).reshape(2, 3, 4))),
            tf.print(tf.constant([1.5, 2.25, 1e-7, 1e10, 1.0 / 3.0])),
            tf.print(tf.constant([[1.5, 2.25], [1e-7, 1e10]], tf.float64)),
            tf.print({"a": x, "b": [sc, 1]}),
            tf.print("py", 3, 4.5, [1, 2], None, True),
            tf.print(tf.constant(7, tf.int64), tf.constant([], tf.float32)),
            tf.print(tf.constant("just a string")),
            tf.print(tf.constant(np.arange(20).reshape(4, 5)), summarize=1),
        ]
        to_stdout = tf.print("to stdout", output_stream=sys.stdout)
        with tf.Session() as sess, captured() as out:
            for o in ops:
                sess.run(o)
            sess.run(to_stdout)
        return {
            "stderr": printed_lines(out.stderr),
            "stdout": printed_lines(out.stdout),
            "op": _op_info(ops[0]),
            "inputs": [t.op.type for t in ops[0].inputs],
        }


@case
def print_v2_errors(tf):
    with tf.Graph().as_default():
        return {
            "bad_stream": error(lambda: tf.print("x", output_stream="nowhere")),
            "bad_keyword": error(lambda: tf.print("x", colour=1)),
            "format_count": error(lambda: tf.strings.format("{} {}", [tf.constant(1)])),
        }


def _binary_cases(tf):
    x = lambda: tf.constant([1, 2, 3])  # noqa: E731
    ph = lambda: tf.placeholder_with_default([1, 2, 3], [3])  # noqa: E731
    phf = lambda: tf.placeholder_with_default([1.0, 2.0, 3.0], [3])  # noqa: E731
    return {
        "eq_static_ok": lambda: tf.assert_equal(x(), [1, 2, 3]),
        "eq_static_bad": lambda: tf.assert_equal(x(), [1, 2, 4]),
        "eq_dyn_bad": lambda: tf.assert_equal(ph(), [1, 2, 4]),
        "eq_dyn_bad_msg": lambda: tf.assert_equal(ph(), [1, 2, 4], message="hello", summarize=2),
        "eq_dyn_float_bad": lambda: tf.assert_equal(phf(), [1.0, 2.0, 4.0]),
        "eq_dyn_float_ok": lambda: tf.assert_equal(phf(), [1.0, 2.0, 3.0]),
        "none_equal_bad": lambda: tf.assert_none_equal(ph(), [1, 5, 6]),
        "less_bad": lambda: tf.assert_less(ph(), [5, 2, 6]),
        "less_equal_bad": lambda: tf.assert_less_equal(ph(), [0, 2, 6]),
        "greater_bad": lambda: tf.assert_greater(ph(), 2),
        "greater_equal_bad": lambda: tf.assert_greater_equal(ph(), 2),
        "negative_bad": lambda: tf.assert_negative(ph()),
        "positive_ok": lambda: tf.assert_positive(ph()),
        "non_negative_bad": lambda: tf.assert_non_negative(ph() - 2),
        "non_positive_bad": lambda: tf.assert_non_positive(ph()),
        "near_bad": lambda: tf.assert_near(phf(), [1.0, 2.0, 3.1]),
        "near_ok": lambda: tf.assert_near(phf(), [1.0, 2.0, 3.0000001]),
        "debugging_equal": lambda: tf.debugging.assert_equal(ph(), [1, 2, 4]),
    }


@case
def binary_asserts(tf):
    out = {}
    for name, build in sorted(_binary_cases(tf).items()):
        with tf.Graph().as_default():
            built = {}

            def make(build=build, built=built):
                built["op"] = build()

            e = error(make)
            if e is not None:
                out[name] = {"build_error": e}
                continue
            op = built["op"]
            out[name] = {"run": run_error(tf, op)}
            if op.type not in ("Merge", "If"):  # the tf.cond guard: Merge in TF 1.15, If here
                out[name]["op"] = _op_info(op)
    return out


def _other_cases(tf):
    x = lambda: tf.constant([1, 2, 3])  # noqa: E731
    unknown_rank = lambda: tf.placeholder_with_default([1, 2], None)  # noqa: E731
    return {
        "rank_static_bad": lambda: tf.assert_rank(x(), 2),
        "rank_static_ok": lambda: tf.assert_rank(x(), 1),
        "rank_dyn_bad": lambda: tf.assert_rank(unknown_rank(), 2),
        "rank_at_least_static_bad": lambda: tf.assert_rank_at_least(x(), 2),
        "rank_at_least_dyn_bad": lambda: tf.assert_rank_at_least(unknown_rank(), 2),
        "rank_in_static_bad": lambda: tf.assert_rank_in(x(), [0, 2]),
        "rank_in_dyn_bad": lambda: tf.assert_rank_in(unknown_rank(), [0, 2]),
        "rank_given_as_tensor": lambda: tf.assert_rank(x(), tf.constant(1)),
        "rank_float": lambda: tf.assert_rank(x(), 1.5),
        "type_bad": lambda: tf.assert_type(x(), tf.float32),
        "type_ok": lambda: tf.assert_type(x(), tf.int32),
        "integer_bad": lambda: tf.assert_integer(tf.constant(1.0)),
        "integer_ok": lambda: tf.assert_integer(x()),
        "scalar_bad": lambda: tf.assert_scalar(x()),
        "shapes_static_bad": lambda: tf.debugging.assert_shapes(
            [(x(), ("N",)), (tf.constant([[1]]), ("N", "M"))]
        ),
        "shapes_dyn_bad": lambda: tf.debugging.assert_shapes(
            [
                (tf.placeholder_with_default([1, 2, 3], [3]), ("N",)),
                (tf.placeholder_with_default([[1, 2]], None), ("N", "M")),
            ]
        ),
        "shapes_ok": lambda: tf.debugging.assert_shapes(
            [(x(), ("N",)), (tf.constant([[1], [2], [3]]), ("N", 1))]
        ),
        "Assert_float_data": lambda: tf.Assert(
            tf.placeholder_with_default(False, []), ["hi", x(), tf.constant(1.5)]
        ),
        "Assert_int_data": lambda: tf.Assert(tf.placeholder_with_default(False, []), ["hi", x()]),
        "Assert_true": lambda: tf.Assert(True, ["hi"]),
        "Assert_false": lambda: tf.Assert(False, ["hi", tf.constant(["a", "b"])]),
        "Assert_not_bool": lambda: tf.Assert(tf.constant(1), ["hi"]),
    }


@case
def rank_type_shape_and_Assert(tf):
    out = {}
    for name, build in sorted(_other_cases(tf).items()):
        with tf.Graph().as_default():
            built = {}

            def make(build=build, built=built):
                built["op"] = build()

            e = error(make)
            if e is not None:
                out[name] = {"build_error": e}
                continue
            op = built["op"]
            out[name] = {"run": run_error(tf, op)}
            if hasattr(op, "type") and op.type not in ("Merge", "If"):
                out[name]["op"] = _op_info(op)
    return out


@case
def python_side_checks(tf):
    with tf.Graph().as_default():
        return {
            "iterable_str": error(lambda: tf.assert_proper_iterable("abc")),
            "iterable_ok": error(lambda: tf.assert_proper_iterable([1, 2])),
            "same_float_mixed": error(
                lambda: tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])
            ),
            "same_float_int": error(lambda: tf.assert_same_float_dtype([tf.constant(1)])),
            "same_float_value": tf.assert_same_float_dtype([tf.constant(1.0)]).name,
            "is_numeric": [
                tf.is_numeric_tensor(tf.constant([1])),
                tf.is_numeric_tensor(tf.constant("a")),
                tf.is_numeric_tensor(3),
            ],
            "monotonic": run(
                tf,
                [
                    tf.is_non_decreasing([1, 2, 2]),
                    tf.is_strictly_increasing([1, 2, 2]),
                    tf.is_strictly_increasing([1, 2, 3]),
                    tf.is_non_decreasing([5]),
                ],
            ),
            "scalar_value": run(tf, tf.assert_scalar(tf.constant(4))),
        }


@case
def check_numerics_family(tf):
    with tf.Graph().as_default():
        out = {
            "nan": run_error(tf, tf.check_numerics(tf.constant([1.0, np.nan]), "msg")),
            "inf": run_error(tf, tf.check_numerics(tf.constant([1.0, np.inf]), "msg")),
            "both": run_error(tf, tf.check_numerics(tf.constant([-np.inf, np.nan]), "msg")),
            "ok": run(tf, tf.check_numerics(tf.constant([1.0, 2.0]), "msg")),
            "int": error(lambda: tf.check_numerics(tf.constant([1, 2]), "msg")),
            "verify": run_error(
                tf, tf.verify_tensor_all_finite(tf.constant([1.0, np.inf]), "vmsg")
            ),
        }
        v = tf.verify_tensor_all_finite(tf.constant([1.0]), "m")
        out["verify_name"] = [v.name, v.op.type]
        c = tf.check_numerics(tf.constant([1.0]), "m")
        out["check_name"] = [c.name, c.op.type]
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.log(a - 1.0)
        op = tf.add_check_numerics_ops()
        out["added"] = run_error(tf, [op, b])
        out["added_op"] = _op_info(op)
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.check_numerics(x * x, "sq")
        (g,) = tf.gradients(tf.reduce_sum(y), [x])
        out["gradient"] = run(tf, g)
        out["gradient_op"] = g.op.type
    return out
