"""Divisions by a square root as TF 1.15 computes them (found running a style-transfer
network's instance normalisation, (x - mean) / (variance + eps) ** 0.5, whose printed losses
came out apart): grappler's arithmetic optimizer turns x / Sqrt(y) into x * Rsqrt(y) where the
Sqrt has no other reader and is not fetched or fed (after turning a Pow by 0.5 into a Sqrt),
in graphs of four nodes or more. Each case is `fn(tf) -> dict of plain values` (float results
as their bit patterns), run on TF 1.15 by record_sqrt_divisions.py and on tfcluster by
tests/unit/test_sqrt_divisions_as_tf.py. Every division has a graph of its own: TF merges
identical nodes first, which tfcluster does not. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _bits(a):
    a = np.asarray(a)
    view = np.uint64 if a.dtype == np.float64 else np.uint32
    return a.view(view).ravel().tolist()


def _operands(dtype=np.float32, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.standard_normal((4, 300)).astype(dtype)
    y = rng.uniform(0.01, 5.0, (4, 300)).astype(dtype)
    return x, y


def _run_alone(tf, build, dtype=np.float32, extra_feeds=None):
    """build(x, y) -> tensor (or (tensor, feed_dict)) in a graph of its own, run on fed x, y."""
    xs, ys = _operands(dtype)
    with tf.Graph().as_default():
        x = tf.placeholder(dtype, name="x")
        y = tf.placeholder(dtype, name="y")
        out = build(tf, x, y)
        feed = {x: xs, y: ys}
        if isinstance(out, tuple):
            out, more = out
            feed.update(more)
        with tf.Session() as sess:
            return _bits(sess.run(out, feed))


def _sqrt_fed(tf, x, y):
    root = tf.sqrt(y)
    return x / root, {root: np.sqrt(_operands()[1]) * np.float32(1.25)}


DIVISIONS = {
    "truediv": lambda tf, x, y: x / tf.sqrt(y),
    "div_op": lambda tf, x, y: tf.div(x, tf.sqrt(y)),
    "realdiv": lambda tf, x, y: tf.realdiv(x, tf.sqrt(y)),
    "broadcast_divisor": lambda tf, x, y: x / tf.sqrt(y[:, :1] + 1.0),
    "pow_half_with_eps": lambda tf, x, y: (x - 0.5) / (y + 1e-3) ** 0.5,
    "identity_of_division": lambda tf, x, y: tf.identity(x / tf.sqrt(y)),
    # Kept as divisions: the Sqrt read twice, or by both inputs, fetched, fed.
    "sqrt_read_twice": lambda tf, x, y: (lambda r: x / r + 0.0 * r)(tf.sqrt(y)),
    "sqrt_read_by_both_inputs": lambda tf, x, y: (lambda r: r / r)(tf.sqrt(y)),
    "sqrt_fetched_beside": lambda tf, x, y: (lambda r: [x / r, r])(tf.sqrt(y)),
    "sqrt_fed": _sqrt_fed,
    # Kept too: a Sqrt of constants alone (TF's constant folding makes it a constant first).
    "sqrt_of_a_constant": lambda tf, x, y: x / tf.sqrt(tf.constant(_operands(seed=1)[1])),
    "segment_sqrt_n_of_fed_data": lambda tf, x, y: tf.math.unsorted_segment_sqrt_n(
        tf.transpose(tf.reshape(x, [4, 300])), np.arange(300, dtype=np.int32) % 7, 7
    ),
}


@_case
def divisions_by_a_square_root(tf):
    """x / sqrt(y) in float32 as `/`, tf.div, tf.realdiv, a broadcast divisor, a Pow by 0.5
    with an epsilon, under an Identity; and the divisions TF keeps."""
    return {name: _run_alone(tf, build) for name, build in sorted(DIVISIONS.items())}


@_case
def float64_division_by_a_square_root(tf):
    """The float64 form (TF's Rsqrt of doubles)."""
    return {"truediv": _run_alone(tf, DIVISIONS["truediv"], np.float64)}


@_case
def three_node_graph_keeps_its_division(tf):
    """x / sqrt(x): three nodes, which TF's meta optimizer leaves alone; one more node and
    the division is a product by Rsqrt."""
    xs = _operands()[1]
    result = {}
    for extra in (0, 1):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32)
            for i in range(extra):
                tf.constant(i)
            out = x / tf.sqrt(x)
            with tf.Session() as sess:
                result[f"extra_{extra}"] = _bits(sess.run(out, {x: xs}))
    return result


@_case
def instance_normalised_network_trains(tf):
    """A convolution, instance normalisation ((x - mean) / (variance + eps) ** 0.5, scale and
    shift variables), relu, trained by Adam on a content loss: each step's loss fetched alone
    (a forward graph, where the division is rewritten) and the variables after four steps (the
    training step's gradient reads the Sqrt too: its division stays)."""
    rng = np.random.RandomState(3)
    images = rng.uniform(0, 255, (2, 12, 12, 3)).astype(np.float32)
    target = rng.uniform(0, 1, (2, 12, 12, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 12, 12, 3])
        w = tf.Variable(rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.1)
        net = tf.nn.conv2d(x / 255.0, w, [1, 1, 1, 1], "SAME")
        mu, sigma_sq = tf.nn.moments(net, [1, 2], keep_dims=True)
        shift = tf.Variable(tf.zeros([4]))
        scale = tf.Variable(tf.ones([4]))
        normalized = (net - mu) / (sigma_sq + 1e-3) ** 0.5
        preds = tf.nn.relu(scale * normalized + shift)
        loss = tf.nn.l2_loss(preds - target)
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        losses = []
        # Two intra-op threads, as recorded: the products' and reductions' blocks follow them.
        config = tf.ConfigProto(intra_op_parallelism_threads=2)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                losses.append(sess.run(loss, {x: images}))
                sess.run(train, {x: images})
            losses.append(sess.run(loss, {x: images}))
            weights = sess.run([w, shift, scale])
    return {"losses": _bits(losses), "weights": [_bits(v) for v in weights]}
