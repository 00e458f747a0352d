"""Behaviours the TF1 programs of Stanford's CS20 and MorvanZhou's two tutorial repositories
showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_public_sweep2.py and on tfcluster by tests/unit/test_public_sweep2_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import error_class as _error_class
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error_class as _error_class

# [rows, depth] of the matrix: a dense layer's batch and inputs (odd rows take Eigen's half
# packet; depths below, at and past 8 float32 lanes; a long one).
_MATVEC_SHAPES = [(100, 10), (100, 7), (9, 5), (64, 33), (1, 5), (7, 1), (2000, 20), (17, 784)]


def matmul_one_output_column(tf):
    """tf.matmul(x, w) with w of one column (a regression's output layer written as
    tf.matmul(x, W) + b): TF 1.15 sums each output as Eigen's row-major matrix-vector product
    (8 float32 / 4 float64 lanes), so the program's numbers are TF's to the last bit."""
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    outs = []
    for dtype in (np.float32, np.float64):
        for rows, depth in _MATVEC_SHAPES:
            x = rng.randn(rows, depth).astype(dtype)
            w = rng.randn(depth, 1).astype(dtype)
            outs.append(tf.matmul(tf.constant(x), tf.constant(w)))
            # A row vector transposed to a column: the same product.
            outs.append(tf.matmul(tf.constant(x), tf.constant(w.T.copy()), transpose_b=True))
    with tf.Session() as sess:
        return {"values": sess.run(outs)}


def _pushdown_trees(tf, rng):
    """Add/Sub and Mul/Div trees of variables and constants (random values: every order of
    the operations rounds differently): name -> tensor fetched alone, and the variables."""
    shape = [64]

    def var(dtype=np.float32):
        return tf.Variable(rng.uniform(0.5, 2.0, shape).astype(dtype))

    def const(dtype=np.float32):
        return tf.constant(rng.uniform(0.5, 2.0, shape).astype(dtype))

    trees = {
        "sub_of_add_and_c": lambda: (var() + var()) - const(),
        "add_of_add_and_c": lambda: (var() + var()) + const(),
        "c_plus_add": lambda: const() + (var() + var()),
        "c_minus_add": lambda: const() - (var() + var()),
        "sub_of_sub_and_c": lambda: (var() - var()) - const(),
        "add_of_sub_and_c": lambda: (var() - var()) + const(),
        "c_minus_sub": lambda: const() - (var() - var()),
        "mul_of_mul_and_c": lambda: (var() * const()) * const(),
        "python_scalars": lambda: var() * 3.1 * 0.7,
        "two_constants_added": lambda: (var() + 0.1) + 0.2,
        "div_of_mul_by_c": lambda: (var() * var()) / const(),
        "raw_div_of_mul_by_c": lambda: tf.div(var() * var(), const()),
        "mul_of_div_and_c": lambda: (var() / var()) * const(),
        "tf_add_ops": lambda: tf.add(tf.add(var(), var()), const()),
        "float64": lambda: (var(np.float64) + var(np.float64)) - const(np.float64),
        "regression_residual": lambda: (var() * const() + var()) - const(),
        "chain_of_three_constants": lambda: ((var() + const()) + const()) - const(),
        "int_sub": lambda: (tf.Variable([5, 7]) + tf.Variable([1, 2])) - tf.constant([3, 4]),
        "int_mul": lambda: (tf.Variable([5, 7]) * tf.Variable([1, 2])) * tf.constant([3, 4]),
        "strings_joined": lambda: (tf.Variable("a") + tf.Variable("b")) + tf.constant("c"),
    }
    return {name: build() for name, build in trees.items()}


_REORDERED_WITHOUT_FOLDING = ("python_scalars", "two_constants_added", "chain_of_three_constants")


def constant_push_down(tf):
    """(W * x + b) - y with numpy constants x, y (MorvanZhou's first regression): TF 1.15's
    constant folding pushes constants down Add/Sub and Mul/Div trees ((b - y) + W * x) before
    the graph runs, so the sums round as TF's; a child used twice or fetched stays as it is,
    and so does everything with the constant_folding rewriter off, divisions included (but
    the trees that TF's arithmetic optimizer reorders then: of scalar constants, and of more
    than two additions, which it makes one AddN). Trees whose operands broadcast
    are left out: the arithmetic optimizer reorders those too (MinimizeBroadcasts)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(11)
    trees = _pushdown_trees(tf, rng)
    shared = tf.Variable(rng.uniform(0.5, 2.0, [64]).astype(np.float32))
    inner = shared + tf.constant(rng.uniform(0.5, 2.0, [64]).astype(np.float32))
    c = tf.constant(rng.uniform(0.5, 2.0, [64]).astype(np.float32))
    kept = {"child_used_twice": [inner * 1.3 - c, inner * 2.0], "child_fetched": [inner - c, inner]}
    off = tf.ConfigProto()
    off.graph_options.rewrite_options.constant_folding = 2  # RewriterConfig.OFF
    out = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["trees"] = {name: sess.run(t) for name, t in trees.items()}
        out["kept"] = {name: sess.run(ts) for name, ts in kept.items()}
        values = sess.run(tf.global_variables())
    with tf.Session(config=off) as sess:
        for v, value in zip(tf.global_variables(), values):
            v.load(value, sess)
        out["folding_off"] = {
            name: sess.run(t) for name, t in trees.items() if name not in _REORDERED_WITHOUT_FOLDING
        }
    return out


def linear_regression_on_constants(tf):
    """MorvanZhou's tf5 example: y = W * x_data + b against y_data, both numpy constants,
    trained by gradient descent; W and b after every step."""
    tf.reset_default_graph()
    rng = np.random.RandomState(1)
    x_data = rng.rand(100).astype(np.float32)
    y_data = x_data * 0.1 + 0.3
    w = tf.Variable(np.float32([-0.4]))
    b = tf.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(w * x_data + b - y_data))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    steps = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(60):
            sess.run(train)
            steps.append(np.concatenate(sess.run([w, b])))
    return {"steps": np.stack(steps)}


CASES = {
    f.__name__: f
    for f in (matmul_one_output_column, constant_push_down, linear_regression_on_constants)
}


def from_generator_casts_yielded_values(tf):
    """Stanford's word2vec yields its target words as a float64 array (np.zeros([n, 1])) into
    a Dataset.from_generator of tf.int32: TF 1.15 converts what the generator yields with
    np.asarray(value, dtype), casting floats to integers, and fails only on values numpy
    cannot convert."""
    tf.reset_default_graph()
    yielded = [
        ("float64_array_as_int32", np.array([[401.0], [8.9], [-2.5]]), tf.int32),
        ("python_float_as_int64", 2.7, tf.int64),
        ("bool_as_int32", [True, False], tf.int32),
        ("int_as_float32", [1, 2], tf.float32),
        ("digit_string_as_int64", "7", tf.int64),
    ]
    out = {}
    for name, value, dtype in yielded:
        ds = tf.data.Dataset.from_generator(lambda value=value: iter([value]), dtype)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            out[name] = sess.run(nxt)
    bad = tf.data.Dataset.from_generator(lambda: iter(["x"]), tf.int64)
    nxt = tf.data.make_one_shot_iterator(bad).get_next()
    with tf.Session() as sess:
        out["letters_as_int64"] = _error_class(lambda: sess.run(nxt))
    return out


CASES["from_generator_casts_yielded_values"] = from_generator_casts_yielded_values
