"""Programs whose graphs carry functions (tf.data transformations, tf.function, functional
If/While): each builds its graph with `tf` (TensorFlow 1.15 under record_function_library.py,
with control flow v2 on; tfcluster in tests/unit/test_function_library_interop.py and
write_function_library_samples.py) and returns what to run: `init` (op names run first),
`fetch` (tensor names run each step), `steps` (how many; 0: until OutOfRangeError).

`run_spec` runs such a spec in the default graph, so the same spec also runs a graph that
was imported from a MetaGraph file. Python 3.7 code: the recorder runs it under TF 1.15.
"""

import numpy as np


def _iterate(tf, ds, one_shot=False):
    it = ds.make_one_shot_iterator() if one_shot else ds.make_initializable_iterator()
    nxt = tf.nest.flatten(it.get_next())
    names = [tf.identity(t, name=f"out_{i}").name for i, t in enumerate(nxt)]
    init = [] if one_shot else [it.initializer.name]
    return {"init": init, "fetch": names, "steps": 0}


def data_map(tf):
    return _iterate(tf, tf.data.Dataset.range(6).map(lambda x: x * 2 + 1))


def data_map_captured_tuple(tf):
    c = tf.constant(3, tf.int64, name="c")
    scale = tf.constant(0.5, name="scale")
    ds = tf.data.Dataset.range(5).map(lambda x: (x * c, tf.cast(x, tf.float32) * scale))
    return _iterate(tf, ds)


def data_map_parallel(tf):
    ds = tf.data.Dataset.range(8).map(lambda x: x * x, num_parallel_calls=2)
    return _iterate(tf, ds)


def data_filter(tf):
    return _iterate(tf, tf.data.Dataset.range(12).filter(lambda x: tf.equal(x % 3, 0)))


def data_flat_map(tf):
    return _iterate(tf, tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)))


def data_interleave(tf):
    ds = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1
    )
    return _iterate(tf, ds)


def data_parallel_interleave_v2(tf):
    ds = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, num_parallel_calls=2
    )
    return _iterate(tf, ds)


def data_experimental_parallel_interleave(tf):
    ds = tf.data.Dataset.range(1, 4).apply(
        tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2
        )
    )
    return _iterate(tf, ds)


def data_map_and_batch(tf):
    ds = tf.data.Dataset.range(7).apply(tf.data.experimental.map_and_batch(lambda x: x * 10, 3))
    return _iterate(tf, ds)


def data_scan(tf):
    ds = tf.data.Dataset.range(6).apply(
        tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * x))
    )
    return _iterate(tf, ds)


def data_group_by_window(tf):
    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.group_by_window(
            lambda x: x % 2, lambda key, window: window.batch(2), window_size=2
        )
    )
    return _iterate(tf, ds)


def data_group_by_reducer(tf):
    reducer = tf.data.experimental.Reducer(
        init_func=lambda key: tf.constant(0, tf.int64),
        reduce_func=lambda state, x: state + x,
        finalize_func=lambda state: state * 10,
    )
    ds = tf.data.Dataset.range(9).apply(
        tf.data.experimental.group_by_reducer(lambda x: x % 3, reducer)
    )
    return _iterate(tf, ds)


def data_take_while(tf):
    ds = tf.data.Dataset.range(10).apply(tf.data.experimental.take_while(lambda x: x < 4))
    return _iterate(tf, ds)


def data_reduce(tf):
    total = tf.data.Dataset.range(6).reduce(tf.constant(0, tf.int64), lambda s, x: s + x * x)
    return {"init": [], "fetch": [tf.identity(total, name="total").name], "steps": 1}


def data_one_shot_map(tf):
    return _iterate(tf, tf.data.Dataset.range(4).map(lambda x: x - 1), one_shot=True)


def data_window_flat_map(tf):
    ds = tf.data.Dataset.range(7).window(3).flat_map(lambda w: w.batch(3))
    return _iterate(tf, ds)


def data_map_with_cond(tf):
    ds = tf.data.Dataset.range(6).map(lambda x: tf.cond(x > 2, lambda: x * 10, lambda: x))
    return _iterate(tf, ds)


def function_call(tf):
    @tf.function
    def f(x):
        return x * 3.0 + 1.0

    y = f(tf.constant([1.0, 2.0], name="x"))
    return {"init": [], "fetch": [tf.identity(y, name="fy").name], "steps": 1}


def function_nested(tf):
    @tf.function
    def inner(x):
        return tf.square(x) - 1.0

    @tf.function
    def outer(x, y):
        return inner(x) * y, x + y

    a, b = outer(tf.constant([1.0, 2.0, 3.0]), tf.constant(2.0))
    names = [tf.identity(a, name="a").name, tf.identity(b, name="b").name]
    return {"init": [], "fetch": names, "steps": 1}


def cond_v2(tf):
    x = tf.constant(2.0, name="x")
    r = tf.cond(x > 1.0, lambda: x * 5.0, lambda: x - 1.0, name="c")
    s = tf.cond(x < 1.0, lambda: x * 5.0, lambda: x - 1.0, name="d")
    names = [tf.identity(r, name="r").name, tf.identity(s, name="s").name]
    return {"init": [], "fetch": names, "steps": 1}


def while_v2(tf):
    i0 = tf.constant(0, name="i0")
    s0 = tf.constant(1.0, name="s0")
    i, s = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 1.5), [i0, s0], name="w")
    names = [tf.identity(i, name="i").name, tf.identity(s, name="s").name]
    return {"init": [], "fetch": names, "steps": 1}


def while_v2_gradient(tf):
    x = tf.constant(1.5, name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
    g = tf.gradients(y, x)[0]
    names = [tf.identity(y, name="y").name, tf.identity(g, name="g").name]
    return {"init": [], "fetch": names, "steps": 1}


def while_captures_and_limit(tf):
    x = tf.constant(2.0, name="x")
    i, s = tf.while_loop(
        lambda i, s: i < 10, lambda i, s: (i + 1, s * x), (0, 1.0), maximum_iterations=4
    )
    names = [tf.identity(i, name="i").name, tf.identity(s, name="s").name]
    return {"init": [], "fetch": names, "steps": 1}


def cond_reads_variable(tf):
    v = tf.Variable(3.0, name="v")
    p = tf.constant(True, name="p")
    r = tf.cond(p, lambda: v * 2.0, lambda: v - 1.0, name="c")
    init = tf.global_variables_initializer()
    return {"init": [init.name], "fetch": [tf.identity(r, name="r").name], "steps": 1}


def function_reads_variable(tf):
    v = tf.Variable([1.0, 2.0], name="v")

    @tf.function
    def f(x):
        return x * v

    y = f(tf.constant([3.0, 4.0]))
    init = tf.global_variables_initializer()
    return {"init": [init.name], "fetch": [tf.identity(y, name="y").name], "steps": 1}


def variable_initialized_value(tf):
    w = tf.Variable(tf.ones([2]) * 3.0, name="w")
    u = tf.Variable(w.initialized_value() * 2.0, name="u")
    init = tf.global_variables_initializer()
    return {"init": [init.name], "fetch": [tf.identity(u, name="u_value").name], "steps": 1}


def dynamic_rnn_forward(tf):
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 24.0, name="x")
    with tf.variable_scope("rnn_scope", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicLSTMCell(5)
        out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[4, 2])
    init = tf.global_variables_initializer()
    names = [tf.identity(out, name="out").name, tf.identity(state.h, name="h").name]
    return {"init": [init.name], "fetch": names, "steps": 1}


def cond_updates_variable(tf):
    v = tf.Variable(1.0, name="v")
    p = tf.placeholder_with_default(True, [], name="p")
    r = tf.cond(p, lambda: tf.assign_add(v, 2.0), lambda: tf.identity(v), name="c")
    init = tf.global_variables_initializer()
    return {"init": [init.name], "fetch": [tf.identity(r, name="r").name], "steps": 3}


def resource_variable_in_bodies(tf):
    v = tf.get_variable("rv", initializer=tf.constant([1.0, 2.0]), use_resource=True)

    @tf.function
    def f(x):
        return x * v + v.read_value()

    y = f(tf.constant([3.0, 4.0]))
    c = tf.cond(tf.constant(True), lambda: v * 2.0, lambda: v * 3.0)
    init = tf.global_variables_initializer()
    names = [tf.identity(y, name="y").name, tf.identity(c, name="cv").name]
    return {"init": [init.name], "fetch": names, "steps": 1}


def dynamic_rnn_gradient(tf):
    x = tf.constant(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 18.0, name="x")
    with tf.variable_scope("rnn_grad_scope", initializer=tf.constant_initializer(0.2)):
        cell = tf.nn.rnn_cell.BasicRNNCell(4)
        out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, [x, *tf.trainable_variables("rnn_grad_scope")])
    init = tf.global_variables_initializer()
    names = [tf.identity(g, name=f"grad_{i}").name for i, g in enumerate(grads)]
    return {"init": [init.name], "fetch": names, "steps": 1}


CASES = {
    f.__name__: f
    for f in (
        data_map,
        data_map_captured_tuple,
        data_map_parallel,
        data_filter,
        data_flat_map,
        data_interleave,
        data_parallel_interleave_v2,
        data_experimental_parallel_interleave,
        data_map_and_batch,
        data_scan,
        data_group_by_window,
        data_group_by_reducer,
        data_take_while,
        data_reduce,
        data_one_shot_map,
        data_window_flat_map,
        data_map_with_cond,
        function_call,
        function_nested,
        cond_v2,
        while_v2,
        while_v2_gradient,
        while_captures_and_limit,
        cond_reads_variable,
        function_reads_variable,
        variable_initialized_value,
        dynamic_rnn_forward,
        dynamic_rnn_gradient,
        cond_updates_variable,
        resource_variable_in_bodies,
    )
}


def run_spec(tf, spec, limit=40):
    """Runs `init`, then `fetch` `steps` times (0: until the end of the data): a list of steps,
    each a list of arrays."""
    graph = tf.get_default_graph()
    fetches = [graph.get_tensor_by_name(n) for n in spec["fetch"]]
    out = []
    with tf.Session(graph=graph) as sess:
        for name in spec["init"]:
            sess.run(graph.get_operation_by_name(name))
        steps = spec["steps"] or limit
        for _ in range(steps):
            try:
                out.append([np.asarray(v) for v in sess.run(fetches)])
            except tf.errors.OutOfRangeError:
                break
    return out
