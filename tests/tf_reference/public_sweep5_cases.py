"""Behaviours that TF1 programs (a super-resolution GAN trained from a queue of JPEGs, a DQN
agent with RMSProp and TensorBoard summaries, an RL library's utilities) showed apart on
tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_public_sweep5.py and on tfcluster by tests/unit/test_public_sweep5_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import logging

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import LoggedWarnings
except ImportError:
    from case_tools import LoggedWarnings


def summary_names_with_illegal_characters(tf):
    """A summary name (or family, or merge name) with characters TensorBoard does not allow
    is cleaned, and TF logs at INFO "Summary name <name> is illegal; using <clean> instead."
    once per cleaned name (a DQN agent names its scalars 'episode.max reward')."""
    with tf.Graph().as_default():
        with LoggedWarnings(logging.INFO) as logged:
            ops = [
                tf.summary.scalar("episode.max reward", tf.constant(1.0)),
                tf.summary.scalar("fine/name-1.x", tf.constant(1.0)),
                tf.summary.histogram("/leading slash", tf.constant([1.0, 2.0]), family="fam ily"),
                tf.summary.scalar("okname", tf.constant(2.0), family="x y"),
                tf.summary.text("a:b", tf.constant("t")),
                tf.summary.image("im(1)", tf.zeros([1, 2, 2, 1])),
                tf.summary.tensor_summary("ten sor", tf.constant([1, 2])),
                tf.summary.audio("au dio", tf.zeros([1, 4]), 8000),
            ]
            merged = tf.summary.merge(ops[:2], name="all summaries")
        return {
            "messages": [m for m in logged.messages if not m.startswith("From ")],
            "op_names": [op.op.name for op in [*ops, merged]],
        }


def _made_ops(graph, first):
    """[type, name, inputs then "^control inputs", colocation groups] of the ops made since
    the graph had `first` ops (an op's own group left out)."""
    rows = []
    for op in graph.get_operations()[first:]:
        groups = [g.decode() if isinstance(g, bytes) else g for g in op.colocation_groups()]
        inputs = [t.name for t in op.inputs] + ["^" + c.name for c in op.control_inputs]
        rows.append([op.type, op.name, inputs, sorted(g for g in groups if g != "loc:@" + op.name)])
    return rows


_GRADIENT_FORWARDS = {
    # a DQN's Huber-free loss: the mean of a square of a difference, over a batch of unknown size
    "square": ("float32", [None, 3], lambda tf, x: tf.square(x - 1.0)),
    "sum_partly_known": ("float32", [None, 3], lambda tf, x: tf.reduce_sum(x, axis=1)),
    "mean_partly_known": ("float32", [None, 3], lambda tf, x: tf.reduce_mean(x, axis=1)),
    "sum_unknown_rank": ("float32", None, lambda tf, x: tf.reduce_sum(x, axis=0)),
    "sign": ("float32", [2, 3], lambda tf, x: tf.sign(x)),
    "digamma": ("float32", [2, 3], lambda tf, x: tf.math.digamma(x)),
    "atanh": ("float32", [2, 3], lambda tf, x: tf.atanh(x)),
    "complex_abs": ("complex64", [3], lambda tf, x: tf.abs(x)),
    "prod_known": ("float32", [4, 3], lambda tf, x: tf.reduce_prod(x, axis=1)),
    "prod_two_axes": ("float32", [2, 3, 4], lambda tf, x: tf.reduce_prod(x, axis=[-1, 0])),
    "prod_partly_known": ("float32", [None, 3], lambda tf, x: tf.reduce_prod(x, axis=1)),
    "prod_scalar": ("float32", [], lambda tf, x: tf.reduce_prod(x)),
    "xlogy": ("float32", [None, 3], lambda tf, x: tf.math.xlogy(x, 2.0 * x)),
    "xdivy": ("float32", [None, 3], lambda tf, x: tf.math.xdivy(x, 2.0 * x)),
}


def ops_of_unary_and_reduction_gradients(tf):
    """The ops tf.gradients makes for a square (its constant 2 under a control dependency on
    the incoming gradient), a sum or mean over a shape only known at run time (the reduced
    shape's ops colocated with the input's Shape), a sign (zeros filled to the input's Shape),
    digamma, atanh, the modulus of a complex tensor, a product (the transposed input's shape
    static where the input's is, so its Shape a constant), and xlogy / xdivy (TF 1.15's ops, named
    Xlogy / Xdivy without a name scope, and their gradients' broadcast axes computed first):
    types, names, inputs and control inputs, colocation, in creation order."""
    out = {}
    for name, (dtype, shape, forward) in sorted(_GRADIENT_FORWARDS.items()):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(getattr(tf, dtype), shape, name="x")
            y = forward(tf, x)
            first = len(graph.get_operations())
            tf.gradients(y, [x])
            out[name] = _made_ops(graph, first)
    return out


def batch_normalization_of_python_numbers(tf):
    """tf.nn.batch_normalization with its statistics given as Python numbers, numpy arrays or
    tensors: TF leaves them as given (variance + epsilon of two numbers is one constant under
    Rsqrt), so the ops made, their names and the op count follow; and the values."""
    import numpy as np

    out = {}
    x_val = np.arange(12, dtype=np.float32).reshape(2, 2, 3) / 5.0
    forms = {
        "numbers": lambda tf: (0.5, 2.0, 0.1, 1.5),
        "arrays": lambda tf: tuple(
            np.array([v, v + 1, v + 2], np.float32) for v in (0.5, 2.0, 0.1, 1.5)
        ),
        "tensors": lambda tf: tuple(
            tf.constant([v, v + 1, v + 2], name=n)
            for v, n in ((0.5, "m"), (2.0, "v"), (0.1, "o"), (1.5, "s"))
        ),
        "no_offset_or_scale": lambda tf: (0.5, 2.0, None, None),
    }
    for name, form in sorted(forms.items()):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 2, 3], name="x")
            mean, variance, offset, scale = form(tf)
            first = len(graph.get_operations())
            y = tf.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
            made = _made_ops(graph, first)
            with tf.Session() as sess:
                value = sess.run(y, {x: x_val})
        out[name] = {"ops": made, "y": value.tolist(), "name": y.name}
    return out


def _optimizers(tf):
    return {
        "sgd": tf.train.GradientDescentOptimizer(0.1),
        "momentum": tf.train.MomentumOptimizer(0.1, 0.9),
        "adam": tf.train.AdamOptimizer(0.01),
        "rmsprop": tf.train.RMSPropOptimizer(0.01, momentum=0.9, centered=True),
        "adagrad": tf.train.AdagradOptimizer(0.1),
        "ftrl": tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    }


def resource_variable_updates_graphs(tf):
    """minimize() of a dense and an embedding-looked-up resource variable by each optimizer:
    colocation with a resource variable is with its handle op (slots, the lookup, Adam's
    beta powers and their first read), control dependencies on an update are on the update
    op (not a read after it), plain SGD's sparse step is ResourceScatterAdd alone of
    -grad * the rate as given; the ops (types, names, inputs, control inputs, colocation),
    and the variables after three steps. Also control_dependencies and group on a resource
    variable itself: they wait for its handle, so they run before it is initialized."""
    import numpy as np

    out = {}
    for name in sorted(_optimizers(tf)):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 3], name="x")
            w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer(), use_resource=True)
            emb = tf.get_variable(
                "emb", [5, 3], initializer=tf.ones_initializer(), use_resource=True
            )
            step = tf.train.get_or_create_global_step()
            loss = tf.reduce_sum(tf.matmul(x, w)) + tf.reduce_sum(
                tf.nn.embedding_lookup(emb, [1, 3, 1])
            )
            first = len(graph.get_operations())
            train = _optimizers(tf)[name].minimize(loss, global_step=step)
            made = _made_ops(graph, first)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: np.ones((2, 3), np.float32)})
                values = [v.tolist() for v in sess.run([w, emb])]
        out[name] = {"ops": made, "values": values}
    # A reference variable's ApplyAdam reads the (resource) beta powers in its name scope.
    graph = tf.Graph()
    with graph.as_default():
        a = tf.get_variable("a", [2], initializer=tf.ones_initializer(), use_resource=True)
        b = tf.get_variable("b", [3], initializer=tf.ones_initializer())
        loss = tf.reduce_sum(a * 2.0) + tf.reduce_sum(b * b)
        first = len(graph.get_operations())
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        made = _made_ops(graph, first)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            values = [v.tolist() for v in sess.run([a, b])]
    out["adam_resource_and_reference"] = {"ops": made, "values": values}
    graph = tf.Graph()
    with graph.as_default():
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer(), use_resource=True)
        with tf.control_dependencies([v]):
            c = tf.constant(1.0, name="c")
        g = tf.group(v, name="g")
        with tf.Session() as sess:
            before = sess.run([c, g])
        out["waits_on_handle"] = {
            "c_control": [op.name for op in c.op.control_inputs],
            "g_control": [op.name for op in g.control_inputs],
            "before_init": [before[0], before[1] is None],
        }
    return out


def resource_variable_scatters(tf):
    """tf.scatter_* and tf.scatter_nd_* of a resource variable (and the variable's own
    scatter_nd_* methods): the ResourceScatter op with the updates converted first and the
    indices in the op's name scope, the n-d ones with use_locking True; what they return is
    the variable after the update, named after the update's op; the values."""
    import numpy as np

    graph = tf.Graph()
    with graph.as_default():
        r = tf.get_variable("r", [4, 2], initializer=tf.ones_initializer(), use_resource=True)
        first = len(graph.get_operations())
        rows = [[5.0, 6.0], [7.0, 8.0]]
        results = []
        for fn in ("scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"):
            results.append(getattr(tf, fn)(r, [[1], [3]], rows))
        for fn in ("update", "add", "sub", "mul", "div", "max", "min"):
            name = "my_add" if fn == "add" else None
            results.append(getattr(tf, "scatter_" + fn)(r, [1, 2], rows, name=name))
        results.append(r.scatter_nd_add([[0]], [[1.0, 1.0]]))
        made = _made_ops(graph, first)
        described = [
            [type(t).__name__, t.op.type, t.op.name, t.name, t.op.node_def.attr["use_locking"].b]
            for t in results
        ]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = [np.asarray(sess.run(t)).tolist() for t in results]
    return {"ops": made, "results": described, "values": values}


CASES = {
    "summary_names_with_illegal_characters": summary_names_with_illegal_characters,
    "ops_of_unary_and_reduction_gradients": ops_of_unary_and_reduction_gradients,
    "batch_normalization_of_python_numbers": batch_normalization_of_python_numbers,
    "resource_variable_updates_graphs": resource_variable_updates_graphs,
    "resource_variable_scatters": resource_variable_scatters,
}
