"""TensorArray, map_fn, scan, foldl, foldr and while_loop gradients over TensorArrays, written
once against the TF1 API and run twice: by record_control_flow.py under TensorFlow 1.15, and
by tests/unit/test_control_flow_reference.py under tfcluster. Each case builds its own graph
and returns plain data (values, gradients, static shapes, names, error classes and messages).

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


def _shape(t):
    return (
        None if t.shape.ndims is None else [d if d is None else int(d) for d in t.shape.as_list()]
    )


def _err(e):
    """An error with the per-step TensorArray counter in its message made neutral."""
    if e is not None:
        e["message"] = re.sub(r"TensorArray(_\d+)+", "TensorArray_N", e["message"])
    return e


_X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0


@case
def tensor_array_ops_and_names(tf):
    g = tf.Graph()
    with g.as_default():
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False)
        ta2 = ta.unstack(_X)
        r = ta2.read(1)
        s = ta2.stack()
        c = ta2.concat()
        ga = ta2.gather([3, 0])
        sz = ta2.size()
        w = (
            tf.TensorArray(tf.int32, size=2, clear_after_read=False)
            .write(0, [1, 2])
            .write(1, [3, 4])
        )
        out = run(
            tf,
            {
                "read": r,
                "stack": s,
                "concat": c,
                "gather": ga,
                "size": sz,
                "written": w.stack(),
                "read_twice": [w.read(1), w.read(1)],
            },
        )
        names = [op.name for op in g.get_operations() if op.type.startswith("TensorArray")]
        types = sorted({op.type for op in g.get_operations() if op.type.startswith("TensorArray")})
    return {
        "values": out,
        "names": names,
        "types": types,
        "shapes": [_shape(t) for t in (r, s, c, ga)],
        "handle": [ta.handle.name, ta.flow.name, str(ta.flow.dtype.name)],
        "element_shape": _shape_of(ta2.element_shape),
    }


def _shape_of(s):
    return None if s.ndims is None else [d if d is None else int(d) for d in s.as_list()]


@case
def tensor_array_dynamic_size_split_and_scatter(tf):
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(2, [1.0, 2.0]).write(0, [3.0, 4.0])
        grown = ta.size()
        sp = tf.TensorArray(tf.float32, size=3, infer_shape=False, clear_after_read=False).split(
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3]
        )
        sc = tf.TensorArray(tf.float32, size=4, element_shape=[2]).scatter(
            [3, 1], [[1.0, 2.0], [3.0, 4.0]]
        )
        out = run(
            tf,
            {
                "grown": grown,
                "grown_stack": ta.stack(),
                "split_concat": sp.concat(),
                "split_read": sp.read(2),
                "scatter_stack": sc.stack(),
            },
        )
        lengths = run(
            tf,
            tf.TensorArray(tf.float32, size=2, infer_shape=False)
            .write(0, [1.0])
            .write(1, [2.0, 3.0])
            .concat(),
        )
    return {"values": out, "lengths_concat": lengths}


def _ta_errors(tf):
    T = tf.TensorArray
    f = tf.float32
    errors = {
        "read_out_of_range": lambda: T(f, 3).write(0, 1.0).read(5),
        "read_unwritten_unknown_shape": lambda: T(f, 3, infer_shape=False).write(0, 1.0).read(1),
        "read_twice": lambda: (lambda t: [t.read(0), t.read(0)])(T(f, 3).write(0, 1.0)),
        "write_out_of_range": lambda: T(f, 3).write(3, 1.0).flow,
        "write_negative": lambda: T(f, 3).write(-1, 1.0).flow,
        "write_twice": lambda: T(f, 3).write(0, 1.0).write(0, 2.0).flow,
        "write_other_shape": lambda: (
            T(f, 3)
            .write(0, [1.0, 2.0])
            .write(1, tf.placeholder_with_default([1.0, 2.0, 3.0], [None]))
            .flow
        ),
        "write_other_dtype": lambda: T(f, 3).write(0, tf.constant(1)).flow,
        "stack_empty_unknown_shape": lambda: T(f, 0).stack(),
        "stack_inconsistent": lambda: (
            T(f, 2, infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0]).stack()
        ),
        "concat_scalars": lambda: T(f, 2, infer_shape=False).write(0, 1.0).write(1, 2.0).concat(),
        "concat_inconsistent": lambda: (
            T(f, 2, infer_shape=False).write(0, [[1.0]]).write(1, [[1.0, 2.0]]).concat()
        ),
        "split_sum": lambda: T(f, 2).split([1.0, 2.0, 3.0], [1, 1]).concat(),
        "split_count": lambda: T(f, 2).split([1.0, 2.0, 3.0], [1, 1, 1]).concat(),
        "unstack_too_many": lambda: T(f, 2).unstack([1.0, 2.0, 3.0]).stack(),
        "gather_out_of_range": lambda: T(f, 3).unstack([1.0, 2.0, 3.0]).gather([4]),
        "negative_size": lambda: T(f, tf.placeholder_with_default(-1, [])).flow,
        "closed": lambda: (lambda t: tf.group(t.close(), t.read(0)))(T(f, 3).write(0, 1.0)),
    }
    return errors


@case
def tensor_array_run_time_errors(tf):
    out = {}
    for name, build in sorted(_ta_errors(tf).items()):
        with tf.Graph().as_default():
            out[name] = _err(run_error(tf, build()))
    return out


@case
def tensor_array_build_errors(tf):
    T = tf.TensorArray
    out = {}
    with tf.Graph().as_default():
        out["scatter_lengths"] = error(lambda: T(tf.float32, 3).scatter([0, 1, 2], [1.0, 2.0]))
        out["scatter_scalar"] = error(lambda: T(tf.float32, 3).scatter([0], 1.0))
        out["no_size"] = error(lambda: T(tf.float32))
        out["handle_and_size"] = error(
            lambda: T(tf.float32, size=2, handle=tf.constant(1), flow=tf.constant(0.0))
        )
        out["inconsistent_write"] = error(
            lambda: T(tf.float32, 3).write(0, [1.0]).write(1, [1.0, 2.0])
        )
    for k in out:
        if out[k] is not None:
            out[k] = {"error": out[k]["error"]}
    return out


@case
def tensor_array_gradients_outside_loops(tf):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        ta = tf.TensorArray(tf.float32, size=4).unstack(x)
        y = ta.read(0) * 2.0 + ta.read(2) * ta.read(3)
        sp = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(
            tf.reshape(x, [-1]), [5, 7]
        )
        z = tf.reduce_sum(sp.concat() ** 2)
        w = tf.TensorArray(tf.float32, size=3).write(0, x[0]).write(1, x[1] * x[1]).write(2, x[2])
        st = tf.reduce_sum(w.stack() * [[1.0], [2.0], [3.0]])
        ga = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
        gg = tf.reduce_sum(ga.gather([1, 1, 3]))
        grads = tf.gradients([tf.reduce_sum(y), z, st, gg], [x])[0]
        each = [tf.gradients(v, [x])[0] for v in (tf.reduce_sum(y), z, st, gg)]
        return {"total": run(tf, grads), "each": run(tf, each)}


def _rnn(tf, x, w, steps):
    inp = tf.TensorArray(tf.float32, size=steps).unstack(x)
    out = tf.TensorArray(tf.float32, size=steps)

    def body(i, h, out):
        e = inp.read(i)
        h = tf.tanh(tf.matmul(tf.reshape(e, [1, 3]), w) + h)
        return i + 1, h, out.write(i, h[0] * 2.0)

    _, h, out = tf.while_loop(lambda i, h, o: i < steps, body, [0, tf.zeros([1, 3]), out])
    return h, out.stack()


@case
def while_loop_over_tensor_arrays_and_its_gradient(tf):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        w = tf.constant(np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3))
        h, outs = _rnn(tf, x, w, 4)
        loss = tf.reduce_sum(outs * outs) + tf.reduce_sum(h)
        gx, gw = tf.gradients(loss, [x, w])
        return {
            "values": run(tf, {"h": h, "outs": outs, "loss": loss, "gx": gx, "gw": gw}),
            "shapes": [_shape(outs), _shape(h)],
        }


@case
def while_loop_gradient_twice_and_nested(tf):
    with tf.Graph().as_default():
        x = tf.constant(0.7, tf.float64)

        def outer(i, y):
            _, z = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, tf.sin(z) * x), [0, y])
            return i + 1, z * y

        _, y = tf.while_loop(lambda i, y: i < 2, outer, [0, x])
        (g1,) = tf.gradients(y, x)
        (g2,) = tf.gradients(y * y, x)
        return {"values": run(tf, [y, g1, g2])}


@case
def while_loop_gradient_with_cond_max_iterations_and_variable(tf):
    with tf.Graph().as_default():
        v = tf.Variable(np.array([0.5, -1.5], np.float32), name="v")
        x = tf.constant([0.3, 0.2])

        def body(i, y):
            y = tf.cond(tf.equal(i % 2, 0), lambda: y * v, lambda: tf.sin(y) + v)
            return [i + 1, y]  # a list: TF 1.15 wraps the loop variables in one

        _, y = tf.while_loop(lambda i, y: i < 10, body, [0, x], maximum_iterations=5)
        gv, gx = tf.gradients(tf.reduce_sum(y * y), [v, x])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {"values": [sess.run(t) for t in (y, gv, gx)]}


@case
def map_fn_values_shapes_and_names(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(_X)
        m = tf.map_fn(lambda e: tf.reduce_sum(e * e), x)
        m2 = tf.map_fn(
            lambda e: (e * 2, tf.cast(tf.reduce_sum(e), tf.int32)), x, dtype=(tf.float32, tf.int32)
        )
        nested = tf.map_fn(
            lambda t: {"a": t[0] + t[1]["b"]}, (x, {"b": x * 3}), dtype={"a": tf.float32}
        )
        no_shape = tf.map_fn(lambda e: e[:2], tf.placeholder_with_default(_X, [None, 3]))
        out = run(tf, {"m": m, "m2": list(m2), "nested": nested, "no_shape": no_shape})
        return {
            "values": out,
            "names": [m.name, m2[0].name, m2[1].name, nested["a"].name],
            "shapes": [_shape(m), _shape(m2[0]), _shape(m2[1]), _shape(no_shape)],
        }


@case
def map_fn_gradients_and_back_prop(tf):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        w = tf.constant([1.0, -2.0, 0.5])
        y = tf.map_fn(lambda e: tf.reduce_sum(tf.sin(e) * w), x)
        gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        y_nb = tf.map_fn(lambda e: e * w, x, back_prop=False)
        return {"values": run(tf, [gx, gw]), "no_back_prop": tf.gradients(y_nb, [x]) == [None]}


@case
def map_fn_errors(tf):
    out = {}
    with tf.Graph().as_default():
        out["scalar"] = error(lambda: tf.map_fn(lambda e: e, tf.constant(1.0)))
        out["not_callable"] = error(lambda: tf.map_fn(3, tf.constant([1.0])))
        out["structure"] = error(lambda: tf.map_fn(lambda e: (e, e), tf.constant([1.0])))
        out["sparse"] = error(lambda: tf.map_fn(lambda e: e, tf.SparseTensor([[0]], [1.0], [2])))
    return {k: {"error": v["error"]} if v else None for k, v in out.items()}


@case
def scan_values_and_gradients(tf):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        s = tf.scan(lambda a, e: a + e, x)
        sr = tf.scan(lambda a, e: a * e + 1.0, x, initializer=tf.ones([3]), reverse=True)
        nested = tf.scan(
            lambda a, e: (a[0] + e, a[1] * 2.0), x, initializer=(tf.zeros([3]), tf.constant(1.0))
        )
        loss = tf.reduce_sum(s * s) + tf.reduce_sum(sr)
        (g,) = tf.gradients(loss, [x])
        out = run(tf, {"s": s, "sr": sr, "nested": list(nested), "g": g})
        return {
            "values": out,
            "names": [s.name, sr.name],
            "shapes": [_shape(s), _shape(sr), _shape(nested[1])],
        }


@case
def foldl_foldr_values_and_gradients(tf):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        fl = tf.foldl(lambda a, e: a * 0.5 + e, x)
        fr = tf.foldr(lambda a, e: a * 0.5 + e, x, initializer=tf.zeros([3]))
        fl_n = tf.foldl(lambda a, e: a + e[0] * e[1], (x, x + 1.0), initializer=tf.zeros([3]))
        fr_i = tf.foldr(lambda a, e: a + e, tf.constant([1, 2, 3]))
        gx = tf.gradients(tf.reduce_sum(fl * fr), [x])[0]
        return {"values": run(tf, {"fl": fl, "fr": fr, "fl_n": fl_n, "fr_i": fr_i, "g": gx})}


@case
def names_inside_loop_and_cond_bodies(tf):
    """What a body sees (printed by tutorials): its loop variables and ops are named in the
    loop's scope, as TF1 names them (Identity_<i>, the counter of maximum_iterations first);
    variables made in a body are named in that scope too."""
    seen = {}
    with tf.Graph().as_default():
        x = tf.constant(_X)

        def body(i, a):
            seen["body_args"] = [i.name, a.name]
            with tf.name_scope("inner"):
                b = a * 2.0
            seen["body_op"] = b.name
            return i + 1, b

        def cond(i, a):
            seen["cond_args"] = [i.name, a.name]
            return i < 2

        tf.while_loop(cond, body, [tf.constant(0), x[0]])

        def counted(i):
            seen["max_iter_arg"] = i.name
            return i + 1

        with tf.name_scope("outer"):
            tf.while_loop(lambda i: i < 3, counted, [0], maximum_iterations=5)

        def scan_fn(a, e):
            seen["scan_args"] = [a.name, e.name]
            return a + e

        with tf.variable_scope("rnn"):
            tf.scan(scan_fn, x, initializer=tf.zeros([3]))
            tf.map_fn(lambda e: e * 2.0, x)
        p = tf.placeholder(tf.bool, [])

        def branch():
            v = tf.Variable(1.0, name="in_branch")
            y = x * v
            seen["branch_op"] = y.name
            return y

        tf.cond(p, branch, lambda: x)
        tf.while_loop(lambda i: i < 3.0, lambda i: i + tf.Variable(1.0, name="in_loop"), [1.0])
        seen["variables"] = [v.op.name for v in tf.global_variables()]
    return seen


@case
def while_loop_body_result_sequence_types(tf):
    """What tf.while_loop accepts from a body whose result nests lists and tuples unlike its
    loop_vars. TF1 compares the two below their outermost sequence; with maximum_iterations it
    packs (counter, loop_vars), so the outermost sequence is compared too (a single loop
    variable is packed bare)."""
    out = {}
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        n = tf.constant(3)
        step = lambda i, s: (i + 1, s * 2.0)  # noqa: E731
        pair = lambda i, s: (i + 1, (s[0] + 1.0, s[1]))  # noqa: E731
        builds = {
            "list_vars_tuple_result": lambda: tf.while_loop(lambda i, s: i < n, step, [0, x]),
            "list_vars_tuple_result_max_tensor": lambda: tf.while_loop(
                lambda i, s: i < n, step, [0, x], maximum_iterations=n
            ),
            "list_vars_tuple_result_max_int": lambda: tf.while_loop(
                lambda i, s: i < n, step, [0, x], maximum_iterations=2
            ),
            "tuple_vars_tuple_result_max": lambda: tf.while_loop(
                lambda i, s: i < n, step, (0, x), maximum_iterations=2
            ),
            "list_vars_list_result_max": lambda: tf.while_loop(
                lambda i, s: i < n, lambda i, s: [i + 1, s * 2.0], [0, x], maximum_iterations=2
            ),
            "nested_tuple_returned_as_list": lambda: tf.while_loop(
                lambda i, s: i < n, lambda i, s: (i + 1, [s[0] + 1.0, s[1]]), [0, (x, x)]
            ),
            "nested_list_returned_as_tuple": lambda: tf.while_loop(
                lambda i, s: i < n, pair, [0, [x, x]]
            ),
            "nested_tuple_kept": lambda: tf.while_loop(lambda i, s: i < n, pair, [0, (x, x)]),
            "single_var_max_list_result": lambda: tf.while_loop(
                lambda s: s[0] < 9.0, lambda s: [s * 2.0], [x], maximum_iterations=2
            ),
            "single_var_max_tensor_result": lambda: tf.while_loop(
                lambda s: s[0] < 9.0, lambda s: s * 2.0, [x], maximum_iterations=2
            ),
        }
        with tf.Session() as sess:
            for key, build in sorted(builds.items()):
                err = error(build)
                if err is not None:
                    out[key] = err
                else:
                    result = build()
                    out[key] = {"type": type(result).__name__, "value": sess.run(result)}
    return out
