"""tf.GradientTape, tf.function / autograph / wrap_function and tf.profiler programs in graph
mode, written once against the TF1 API and run twice: by record_tape_function.py with
TensorFlow 1.15 (`tf` is tensorflow.compat.v1), and by tests/unit/test_tape_function_reference.py
with tfcluster. Each case builds its own graph and returns plain data (names, op types,
values, shapes, error classes, profiler results and reports).

TF 1.15's tape differentiates only resource variables: the programs make them with
use_resource=True (tfcluster's variables are TF1 reference variables, which its tape takes).
Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES)


def _error(fn):
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def _name(t):
    return None if t is None else t.name


# ---- GradientTape ---------------------------------------------------------------------------
@case
def tape_gradients_of_matmul(tf):
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        w = tf.Variable([[0.5], [0.25]], name="w", use_resource=True)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tf.matmul(x, w)
            z = tf.reduce_sum(y * y)
        before = len(tf.get_default_graph().get_operations())
        g = t.gradient(z, [x, w])
        grad_ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()[before:]]
        j = t.jacobian(y, x)
        none = t.gradient(z, tf.constant(1.0))
        zero = t.gradient(z, tf.constant(1.0), unconnected_gradients=tf.UnconnectedGradients.ZERO)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            gv, jv, zv = s.run([g, j, zero])
        return {
            "grad_names": [_name(a) for a in g],
            "grad_ops": grad_ops,
            "grads": gv,
            "jacobian_shape": j.shape.as_list(),
            "jacobian": jv,
            "unconnected_none": none is None,
            "unconnected_zero": zv,
            "watched": [v.name for v in t.watched_variables()],
        }


@case
def tape_nested_second_derivative(tf):
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                t1.watch(x)
                t2.watch(x)
                y = tf.reduce_sum(x * x * x)
            gg = t1.gradient(y, x)
        h = t2.gradient(gg, x)
        with tf.Session() as s:
            g1, h1 = s.run([gg, h])
        return {"first": g1, "second": h1}


@case
def tape_rules(tf):
    with tf.Graph().as_default():
        x = tf.constant(3.0)
        v = tf.Variable(2.0, name="v", use_resource=True)
        t = tf.GradientTape()
        with t:
            t.watch(x)
            y = x * x
        once = t.gradient(y, x)
        twice = _error(lambda: t.gradient(y, x))
        with tf.GradientTape(watch_accessed_variables=False) as t2:
            y2 = v * v
        unwatched = t2.gradient(y2, v)
        with tf.GradientTape(persistent=True) as t3:
            t3.watch(x)
            with t3.stop_recording():
                y3 = x * 5.0
            y4 = x * 7.0
        stopped = t3.gradient(y3, x)
        recorded = t3.gradient(y4, x)
        with tf.GradientTape(persistent=True) as t4:
            t4.watch(x)
            y5 = x * 11.0
            t4.reset()
            t4.watch(x)
            y6 = x * 13.0
        after_reset = t4.gradient(y5, x)
        kept = t4.gradient(y6, x)
        with tf.GradientTape() as t5:
            y7 = x * 2.0
            t5.watch(x)
        late_watch = t5.gradient(y7, x)
        with tf.GradientTape() as t6:
            t6.watch(x)
            y8 = tf.stack([x * x, 3.0 * x])
        weighted = t6.gradient(y8, x, output_gradients=tf.constant([1.0, 10.0]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            values = s.run([once, recorded, kept, weighted])
        return {
            "once": values[0],
            "twice": twice,
            "unwatched_none": unwatched is None,
            "stopped_none": stopped is None,
            "recorded": values[1],
            "after_reset_none": after_reset is None,
            "kept": values[2],
            "late_watch_none": late_watch is None,
            "weighted": values[3],
        }


@case
def tape_batch_jacobian(tf):
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tf.stack([x[:, 0] * x[:, 1], x[:, 2] * x[:, 2]], axis=1)
        bj = t.batch_jacobian(y, x)
        j = t.jacobian(y, x)
        with tf.Session() as s:
            bjv, jv = s.run([bj, j])
        return {"batch_shape": bj.shape.as_list(), "batch": bjv, "full": jv}


@case
def tape_trains_dense_layer(tf):
    with tf.Graph().as_default():
        x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
        y_true = tf.constant([[1.0], [0.0], [1.0], [0.0]])
        w = tf.Variable(tf.ones([2, 1]) * 0.3, name="w", use_resource=True)
        b = tf.Variable(tf.zeros([1]), name="b", use_resource=True)
        with tf.GradientTape() as t:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y_true))
        grads = t.gradient(loss, [w, b])
        train = tf.train.GradientDescentOptimizer(0.5).apply_gradients(zip(grads, [w, b]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            losses = []
            for _ in range(5):
                losses.append(s.run(loss))
                s.run(train)
            return {"losses": np.array(losses), "w": s.run(w), "b": s.run(b)}


# ---- tf.function and autograph ------------------------------------------------------------
@case
def function_autograph_if_while(tf):
    with tf.Graph().as_default() as g:

        @tf.function
        def f(x, y):
            if tf.reduce_sum(x) > 0:
                z = x * y
            else:
                z = x - y
            i = tf.constant(0)
            while i < 3:
                z = z + 1.0
                i += 1
            return z

        a = tf.placeholder(tf.float32, [2])
        r = f(a, 2.0)
        r2 = f(a, 3.0)
        r3 = f(tf.constant([1.0, 2.0, 3.0]), 2.0)
        grad = tf.gradients(r, a)[0]
        ops = [[op.name, op.type] for op in g.get_operations() if "gradients" not in op.name]
        with tf.Session() as s:
            pos = s.run([r, r2, r3, grad], {a: [1.0, -1.0]})
            neg = s.run([r, grad], {a: [-1.0, -1.0]})
        return {
            "ops": ops,
            "shapes": [r.shape.as_list(), r3.shape.as_list()],
            "positive": pos,
            "negative": neg,
            "grad_name": grad.name,
        }


@case
def function_variables_made_once(tf):
    with tf.Graph().as_default():
        holder = []

        @tf.function
        def h(x):
            if not holder:
                holder.append(tf.Variable(1.5, name="v"))
            return x * holder[0]

        o = h(tf.constant(3.0))
        o2 = h(tf.constant(4.0))

        @tf.function
        def bad(x):
            return x * tf.Variable(1.0, name="u")

        again = _error(lambda: bad(tf.constant([1.0, 2.0])))
        names = [v.name for v in tf.global_variables()]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            values = s.run([o, o2])
        # (TF's message is autograph's "in converted code:" wrapper: the class is compared.)
        return {
            "call_op": o.op.type,
            "variables": names,
            "values": values,
            "retrace": again["error"] if again else None,
        }


@case
def function_input_signature(tf):
    with tf.Graph().as_default():

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def q(x):
            return x * 2.0

        a = tf.placeholder(tf.float32, [3])
        out = q(a)
        wrong_rank = _error(lambda: q(tf.constant([[1.0]])))
        wrong_type = _error(lambda: q(tf.constant([1, 2])))
        with tf.Session() as s:
            v = s.run(out, {a: [1.0, 2.0, 3.0]})
        return {
            "shape": out.shape.as_list(),
            "call_op": out.op.type,
            "value": v,
            "wrong_rank": wrong_rank["error"] if wrong_rank else None,
            "wrong_type": wrong_type["error"] if wrong_type else None,
        }


@case
def function_loops_and_python_values(tf):
    with tf.Graph().as_default():

        @tf.function
        def loops(x, n):
            total = tf.constant(0.0)
            for i in tf.range(n):
                total += tf.cast(i, tf.float32) * x
            for row in tf.constant([[1.0, 2.0], [3.0, 4.0]]):
                total += tf.reduce_sum(row)
            for k in range(3):
                total += float(k)
            if n > 100:  # a Python comparison: no cond in the graph
                total = total * 0.0
            j = tf.constant(0)
            while j < n and j < 2:
                total = total + 10.0
                j += 1
            if not tf.equal(n, 4):
                total = -total
            return total

        r5 = loops(tf.constant(2.0), tf.constant(5))
        r4 = loops(tf.constant(2.0), tf.constant(4))
        with tf.Session() as s:
            return {"values": s.run([r5, r4])}


@case
def function_nested_and_wrapped(tf):
    with tf.Graph().as_default():

        @tf.function
        def inner(x):
            return x * x

        @tf.function
        def outer(x):
            return inner(x) + 1.0

        y = outer(tf.constant([1.0, 2.0]))

        def plain(x):
            return x + 5.0

        w = tf.wrap_function(plain, [tf.TensorSpec([2], tf.float32)])
        wy = w(tf.constant([1.0, 2.0]))

        def sign(x):
            if x > 0:
                return x
            return -x

        converted = tf.autograph.to_graph(sign)
        sy = converted(tf.constant(-4.0))
        with tf.Session() as s:
            return {"outer": s.run(y), "wrapped": s.run(wy), "converted": s.run(sy)}


# ---- tf.profiler ------------------------------------------------------------------------------
@contextlib.contextmanager
def _captured_stdout(out):
    """Everything written to stdout (Python's and the C++ runtime's file descriptor 1)."""
    sys.stdout.flush()
    fd_copy = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                yield
        finally:
            sys.stdout.flush()
            os.dup2(fd_copy, 1)
            os.close(fd_copy)
            tmp.seek(0)
            out.append(tmp.read().decode() + buf.getvalue())


def _report(text):
    """The report from the first 'Model Analysis Report' line to the end of report."""
    start = text.find("==================Model Analysis Report")
    end = text.find("======================End of Report")
    return text[start:end] if start >= 0 else text


def _conv_graph(tf):
    x = tf.placeholder(tf.float32, [8, 28, 28, 3], name="x")
    with tf.variable_scope("conv1"):
        k = tf.get_variable("kernel", [5, 5, 3, 16])
        b = tf.get_variable("bias", [16])
        c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))
    p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    f = tf.reshape(p, [8, -1])
    with tf.variable_scope("fc"):
        w = tf.get_variable("w", [14 * 14 * 16, 10])
        bb = tf.get_variable("b", [10], trainable=False)
        y = tf.matmul(f, w) + bb
    labels = tf.zeros([8, 10])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=y))
    return loss


def _tree(p):
    return {
        "name": p.name,
        "parameters": int(p.parameters),
        "float_ops": int(p.float_ops),
        "total_parameters": int(p.total_parameters),
        "total_float_ops": int(p.total_float_ops),
        "total_definition_count": int(p.total_definition_count),
        "children": [_tree(c) for c in p.children],
    }


@case
def profiler_parameters_and_flops(tf):
    with tf.Graph().as_default() as g:
        _conv_graph(tf)
        builder = tf.profiler.ProfileOptionBuilder
        texts = []
        with _captured_stdout(texts):
            params = tf.profiler.profile(g, options=builder.trainable_variables_parameter())
        with _captured_stdout(texts):
            flops = tf.profiler.profile(g, options=builder.float_operation())
        with _captured_stdout(texts):
            by_op = tf.profiler.profile(g, cmd="op", options=builder.float_operation())
        opts = builder(builder.trainable_variables_parameter()).with_empty_output().build()
        with _captured_stdout(texts):
            graph_view = tf.profiler.profile(g, cmd="graph", options=opts)
        return {
            "total_parameters": int(params.total_parameters),
            "total_float_ops": int(flops.total_float_ops),
            "params_tree": _tree(params),
            "flops_tree": _tree(flops),
            "op_view": [[c.name, int(c.float_ops), int(c.total_float_ops)] for c in _chain(by_op)],
            "graph_view": _tree(graph_view),
            "params_report": _report(texts[0]),
            "flops_report": _report(texts[1]),
            "op_report": _report(texts[2]),
            "empty_output": texts[3].replace("Parsing Inputs...\n", "").strip(),
        }


@case
def profiler_training_graph_flops(tf):
    """The FLOPs of a training graph (its gradient ops included). Some gradient ops are named
    differently by tfcluster (mul / Mul): the FLOP counts are compared as a sorted list."""
    with tf.Graph().as_default() as g:
        loss = _conv_graph(tf)
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        b = tf.profiler.ProfileOptionBuilder
        texts = []
        opts = b(b.float_operation()).with_empty_output().build()
        with _captured_stdout(texts):
            res = tf.profiler.profile(g, options=opts)
        return {
            "total_float_ops": int(res.total_float_ops),
            "counts": sorted(int(c.total_float_ops) for c in res.children),
            "forward": {
                c.name: int(c.float_ops) for c in res.children if "gradients" not in c.name
            },
        }


def _chain(multi):
    out = []
    nodes = list(multi.children)
    while nodes:
        n = nodes[0]
        out.append(n)
        nodes = list(n.children)
    return out


@case
def profiler_options_and_statistics(tf):
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [4, 3], name="a")
        with tf.variable_scope("fc"):
            w = tf.get_variable("w", [5, 3], initializer=tf.zeros_initializer())
            y = tf.matmul(a, w, transpose_b=True)
            y2 = tf.transpose(tf.matmul(w, a, transpose_b=True))
            y3 = tf.matmul(a, tf.ones([4, 6]), transpose_a=True)
            z = tf.nn.bias_add(y, tf.get_variable("b", [5], initializer=tf.zeros_initializer()))
        # (No batch matmul here: TF 1.15's tf.matmul makes BatchMatMulV2, which has no FLOP
        # statistic, where tfcluster's makes BatchMatMul.)
        bm = tf.ones([2, 4, 3])
        m = tf.reduce_mean(tf.square(z), axis=1)
        r = tf.nn.softmax(z) + tf.log(tf.abs(z) + 1.0) - tf.rsqrt(tf.abs(y2) + 1.0)
        tf.add_n([r, r, r])
        tf.reduce_sum(bm) + tf.reduce_sum(m)
        tf.nn.l2_loss(z) + tf.reduce_max(y3)
        b = tf.profiler.ProfileOptionBuilder
        all_types = (
            b(b.trainable_variables_parameter())
            .select(["params", "float_ops", "occurrence", "op_types"])
            .account_displayed_op_only(False)
            .with_accounted_types([".*"])
            .build()
        )
        texts = []
        with _captured_stdout(texts):
            everything = tf.profiler.profile(g, options=all_types)
        shown = (
            b(b.float_operation())
            .with_node_names(show_name_regexes=["fc.*"], hide_name_regexes=[".*BiasAdd"])
            .order_by("name")
            .build()
        )
        with _captured_stdout(texts):
            filtered = tf.profiler.profile(g, options=shown)
        flat = {}
        with _captured_stdout(texts):
            per_op = tf.profiler.profile(g, cmd="graph", options=b.float_operation())
        for c in per_op.children:
            flat[c.name] = int(c.float_ops)
        return {
            "builders": [
                b.trainable_variables_parameter(),
                b.float_operation(),
                b.time_and_memory(),
                b(b.float_operation())
                .with_max_depth(3)
                .with_min_parameters(2)
                .with_min_occurrence(1)
                .with_min_float_operations(5)
                .with_min_execution_time(7)
                .with_min_memory(9)
                .with_step(2)
                .with_file_output("/tmp/x")
                .select(["bytes"])
                .build(),
            ],
            "everything_report": _report(texts[0]),
            "everything_total": int(everything.total_parameters),
            "filtered": _tree(filtered),
            "filtered_report": _report(texts[1]),
            "flops_per_op": flat,
        }


@case
def profiler_op_log(tf):
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [4, 3], name="a")
        with tf.variable_scope("fc"):
            w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
            y = tf.matmul(a, w)
        tf.identity(y, name="out")
        log = tf.profiler.OpLogProto()
        entry = log.log_entries.add()
        entry.name = "out"
        entry.float_ops = 77
        entry.types.append("my_type")
        b = tf.profiler.ProfileOptionBuilder
        texts = []
        opts = b(b.float_operation()).with_empty_output().build()
        with _captured_stdout(texts):
            res = tf.profiler.profile(g, op_log=log, options=opts)
        opts2 = (
            b(b.trainable_variables_parameter())
            .with_accounted_types(["my_type"])
            .select(["float_ops"])
            .with_empty_output()
            .build()
        )
        with _captured_stdout(texts):
            mine = tf.profiler.profile(g, op_log=log, options=opts2)
        with _captured_stdout(texts):
            bad = _error(lambda: tf.profiler.profile(g, cmd="nonsense", options=opts))
        return {
            "total_float_ops": int(res.total_float_ops),
            "mine": _tree(mine),
            "bad_cmd": bad["error"] if bad else None,
        }


# ---- tf.CriticalSection ---------------------------------------------------------------------
@case
def critical_section_execute(tf):
    with tf.Graph().as_default() as g:
        v = tf.Variable(0, name="v", use_resource=True)
        cs = tf.CriticalSection(name="cs")
        out = cs.execute(lambda: v.assign_add(1))
        out2 = cs.execute(lambda: v.read_value() * 2, name="read")
        three = cs.execute(lambda: tf.constant(3))
        other = tf.CriticalSection()
        clash = _error(lambda: other.execute(lambda: v.assign_add(2)))
        w = tf.Variable(5, name="w", use_resource=True)
        cs.execute(lambda: w.read_value() + 0, exclusive_resource_access=False)
        shared_ok = other.execute(lambda: w.read_value() + 1, exclusive_resource_access=False)
        shared_clash = _error(lambda: other.execute(lambda: w.read_value() + 2))
        nested = _error(lambda: cs.execute(lambda: cs.execute(lambda: v.read_value())))
        types = [
            [op.name, op.type]
            for op in g.get_operations()
            if op.type in ("MutexV2", "MutexLock", "ConsumeMutexLock")
        ]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            runs = [s.run(out) for _ in range(3)]
            values = s.run([out2, three, shared_ok])
        return {
            "name": cs.name,
            # (out2's name counts the resource variable's read Identity: not compared)
            "outputs": [out.name, three.name],
            "mutex_ops": types,
            "runs": runs,
            "values": values,
            "clash": clash["error"] if clash else None,
            "shared_clash": shared_clash["error"] if shared_clash else None,
            "nested": nested,
        }


@case
def profiler_layers_model_by_op(tf):
    """A tf.layers model counted as TF1 programs usually do (cmd='op'), whole stdout compared."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [4, 32, 32, 3])
        h = tf.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 32, 3, activation=tf.nn.relu)
        h = tf.layers.batch_normalization(h, training=True)
        h = tf.layers.dense(tf.layers.flatten(h), 64, activation=tf.nn.relu)
        tf.layers.dense(h, 10)
        b = tf.profiler.ProfileOptionBuilder
        texts = []
        meta = tf.RunMetadata()
        with _captured_stdout(texts):
            params = tf.profiler.profile(
                g, run_meta=meta, cmd="op", options=b.trainable_variables_parameter()
            )
        with _captured_stdout(texts):
            flops = tf.profiler.profile(g, run_meta=meta, cmd="op", options=b.float_operation())
        return {
            "total_parameters": int(params.total_parameters),
            "total_float_ops": int(flops.total_float_ops),
            "params_stdout": texts[0],
            "flops_stdout": texts[1],
        }
