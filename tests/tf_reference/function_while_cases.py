"""tf.while_loop inside a function's graph (a Dataset.map function) as TF 1.15 builds it
there: while_v2, whose cond and body count their own ops (from their arguments: the
counter, the maximum and the loop variables), an Identity per output around the While op
(`while/Identity_2` for the first loop variable), so that random ops inside the body and
after the loop draw TF's numbers under a graph seed. Written once for TF 1.15
(record_function_while.py) and tfcluster (tests/unit/test_function_while.py); kept runnable
on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import dataset_elements, registrar
except ImportError:
    from case_tools import dataset_elements, registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=5)


def _floats(tf):
    return tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32))


@case
def loop_then_noise(tf):
    names = []

    def fn(x):
        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [0, x])
        names.append(y.name)
        return y + tf.random_uniform([])

    return {"values": dataset_elements(tf, _floats(tf).map(fn), 3), "names": names}


@case
def noise_inside_the_body(tf):
    def fn(x):
        c = x * 2.0
        body = lambda i, v: (i + 1, v + c * tf.random_uniform([]))  # noqa: E731
        _, y = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), x])
        return y + tf.random_normal([])

    return {"values": dataset_elements(tf, _floats(tf).map(fn), 3)}


@case
def captures_and_maximum_iterations(tf):
    def fn(x):
        c, d = x * 5.0, x + 1.0
        _, y = tf.while_loop(
            lambda i, v: v < c + 10.0,
            lambda i, v: [i + 1, v + d],
            [tf.constant(0), x],
            maximum_iterations=tf.constant(4),
        )
        return y, tf.random_uniform([2])

    return {"values": dataset_elements(tf, _floats(tf).map(fn), 3)}


@case
def map_fn_scan_and_arrays_then_noise(tf):
    """map_fn, scan and a TensorArray's methods in a function: TF's TensorLists there."""

    def fn(x):
        v = tf.stack([x, x + 1.0, x + 2.0])
        # (No random op inside map_fn: TF runs its iterations in parallel, in any order.)
        doubled = tf.map_fn(lambda e: e * 2.0, v)
        summed = tf.scan(lambda a, e: a + e, v)
        ta = tf.TensorArray(tf.float32, size=3).unstack(v)
        picked = ta.gather([0, 2]) + ta.read(1) + tf.reduce_sum(ta.stack())
        return doubled, summed, picked, tf.random_uniform([2])

    return {"values": dataset_elements(tf, _floats(tf).map(fn), 3)}
