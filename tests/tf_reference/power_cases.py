"""float32 powers as TF 1.15 computes them (found running a polynomial-regression tutorial,
whose costs came out apart in the last bits): the Pow kernel calls glibc's powf for every
value, and grappler's arithmetic optimizer first turns a Pow by a constant 2, 3, 0.5, -0.5 or
-1 into Square, x * Square(x), Sqrt, Rsqrt or Reciprocal (in graphs of four nodes or more).
Each case is `fn(tf) -> dict of plain values` (float32 results as their bit patterns), run on
TF 1.15 by record_powers.py and on tfcluster by tests/unit/test_powers_as_tf.py. Python 3.7
code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32).ravel().tolist()


def _bases(n=300, seed=0, low=-40.0):
    """Bases of every size; from e**low (e**-40 cubed or squared gives subnormals, which TF
    flushes to zero)."""
    rng = np.random.RandomState(seed)
    return np.concatenate(
        [rng.uniform(0.01, 10, n), rng.uniform(-10, 10, n), np.exp(rng.uniform(low, 40, n))]
    ).astype(np.float32)


@_case
def pow_kernel(tf):
    """Pow of fed tensors (no constant exponent for grappler to rewrite): tensor ** tensor,
    a scalar exponent fed, and exponents 4 and 1.7 as constants (Pow stays Pow)."""
    tf.reset_default_graph()
    xs = _bases()
    rng = np.random.RandomState(1)
    ys = rng.uniform(-4, 4, xs.size).astype(np.float32)
    x = tf.placeholder(tf.float32, name="x")
    y = tf.placeholder(tf.float32, name="y")
    outs = [tf.pow(x, y), tf.pow(x, 4.0), tf.pow(x, 1.7), x**-2.5]
    with tf.Session() as sess:
        got = sess.run(outs, {x: xs, y: ys})
        scalar = sess.run(tf.pow(x, y), {x: xs, y: np.float32(3.0)})
        one = [sess.run(outs[0], {x: v, y: np.float32(2.0)}) for v in xs[:50]]
    return {
        "tensor": _bits(got[0]),
        "four": _bits(got[1]),
        "one_point_seven": _bits(got[2]),
        "minus_two_and_half": _bits(got[3]),
        "fed_three": _bits(scalar),
        "scalars_fed_two": _bits(one),
    }


@_case
def constant_exponents(tf):
    """x ** c for the exponents grappler rewrites, fetched directly, inside a sum, and with
    an exponent made by constant folding; the exponent tensor fed (no rewrite). No result is
    subnormal (tfcluster's Mul and Square keep subnormals, which TF's would flush)."""
    tf.reset_default_graph()
    xs = np.abs(_bases(150, seed=2, low=-10.0))
    x = tf.placeholder(tf.float32, name="x")
    out = {}
    for c in (2.0, 3.0, 0.5, -0.5, -1.0, 1.0, 0.0):
        out[f"pow_{c}"] = tf.pow(x, c)
    out["cube_in_sum"] = tf.pow(x, 3.0) + 1.0
    out["folded_exponent"] = tf.pow(x, tf.constant(1.0) + 2.0)
    exponent = tf.constant(3.0, name="exponent")
    out["fed_exponent"] = tf.pow(x, exponent)
    with tf.Session() as sess:
        names = sorted(out)
        got = sess.run([out[k] for k in names], {x: xs})
        fed = sess.run(out["fed_exponent"], {x: xs, exponent: np.float32(3.0)})
    result = {k: _bits(v) for k, v in zip(names, got)}
    result["fed_exponent_fed"] = _bits(fed)
    return result


@_case
def small_graph_keeps_pow(tf):
    """A graph of three nodes (x, 3.0, x ** 3): TF's meta optimizer leaves it alone, so the
    cube is powf's; one more node anywhere in the graph and it is x * Square(x)."""
    xs = np.abs(_bases(150, seed=3, low=-10.0))
    result = {}
    for extra in (0, 1):
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32)
        for i in range(extra):
            tf.constant(i)
        cube = tf.pow(x, 3.0)
        with tf.Session() as sess:
            result[f"extra_{extra}"] = _bits(sess.run(cube, {x: xs}))
    return result


@_case
def polynomial_regression(tf):
    """A tutorial's polynomial regression: sum of W_i * x ** i for i in 1..4 fed one sample a
    step, cost sum((pred - y) ** 2) / (n - 1), two epochs of gradient descent (gradients
    through pow(x, i - 1) after constant folding)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    n = 100
    xs = np.linspace(-3, 3, n)
    ys = np.sin(xs) + rng.uniform(-0.5, 0.5, n)
    X = tf.placeholder(tf.float32)
    Y = tf.placeholder(tf.float32)
    init = rng.randn(5).astype(np.float32)
    pred = tf.Variable(init[0], name="bias")
    for i in range(1, 5):
        w = tf.Variable(init[i], name=f"weight_{i}")
        pred = tf.add(tf.multiply(tf.pow(X, i), w), pred)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (n - 1)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(cost)
    costs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            for a, b in zip(xs, ys):
                sess.run(train, {X: a, Y: b})
            costs.append(sess.run(cost, {X: xs, Y: ys}))
        weights = sess.run(tf.trainable_variables())
    return {"costs": _bits(costs), "weights": _bits(weights)}
