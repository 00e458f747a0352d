"""tf.cond inside a function's graph (a Dataset.map function, a tf.function) as TF 1.15
builds it there: cond_v2, one If and an Identity per output (`cond/Identity`,
`cond/Identity_1`), its branches counting their ops apart, so that random ops after the
cond, and inside a branch, draw TF's numbers under a graph seed. Written once for TF 1.15
(record_function_cond.py) and tfcluster (tests/unit/test_function_cond.py); kept runnable
on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import dataset_elements, registrar
except ImportError:
    from case_tools import dataset_elements, registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=5)


@case
def map_cond_then_noise(tf):
    names = []

    def fn(x):
        y = tf.cond(x > 1.0, lambda: x * 2.0, lambda: x * 3.0)
        names.append(y.name)
        return y + tf.random_uniform([])

    dataset = tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32)).map(fn)
    return {"values": dataset_elements(tf, dataset, 4), "names": names}


@case
def map_cond_of_two_outputs(tf):
    names = []

    def fn(x):
        a, b = tf.cond(x > 1.0, lambda: (x, x + 1.0), lambda: (x * 2.0, x))
        names.extend([a.name, b.name])
        return a + b * tf.random_uniform([])

    dataset = tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)).map(fn)
    return {"values": dataset_elements(tf, dataset, 3), "names": names}


@case
def map_noise_inside_a_branch(tf):
    def fn(x):
        flip = tf.random_uniform([]) > 0.5
        y = tf.cond(flip, lambda: x + tf.random_uniform([]), lambda: x - tf.random_normal([]))
        return y, tf.random_uniform([2])

    dataset = tf.data.Dataset.range(5).map(lambda x: tf.cast(x, tf.float32)).map(fn)
    return {"values": dataset_elements(tf, dataset, 5)}


@case
def map_nested_conds(tf):
    def fn(x):
        inner = lambda: tf.cond(x > 2.0, lambda: x, lambda: -x)  # noqa: E731
        y = tf.cond(x > 0.0, inner, lambda: x * 10.0)
        return y * tf.random_uniform([])

    dataset = tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32)).map(fn)
    return {"values": dataset_elements(tf, dataset, 4)}


@case
def graph_cond_then_noise(tf):
    x = tf.placeholder(tf.float32, [])
    y = tf.cond(x > 1.0, lambda: x * 2.0, lambda: x * 3.0)
    noise = tf.random_uniform([2])
    with tf.Session() as sess:
        return {"name": y.name, "values": sess.run([y, noise], {x: 2.0})[1].tolist()}


@case
def map_assert_case_and_rot90_then_noise(tf):
    """A branch returning an op (Assert's guard for non-string data) returns the predicate's
    value in cond_v2; tf.case and rot90 chain conds."""
    results = []

    def fn(x):
        check = tf.Assert(x >= 0.0, [x])
        with tf.control_dependencies([check]):
            y = tf.case(
                [(x > 2.0, lambda: x), (x < 1.0, lambda: x * 2.0)],
                default=lambda: x * 3.0,
                exclusive=True,
            )
        image = tf.reshape(tf.range(12.0), [2, 2, 3]) * y
        turned = tf.image.rot90(image, tf.cast(x, tf.int32))
        results.append(check.name if hasattr(check, "name") else str(check))
        return turned[0, 0], tf.random_uniform([2])

    dataset = tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32)).map(fn)
    return {"values": dataset_elements(tf, dataset, 4), "check": results}
