"""Behaviours public TF1 course programs (a linear-regression lecture series computing its
gradients by hand beside tf.train's) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_course_sweep.py and on tfcluster by
tests/unit/test_course_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

# Shapes that broadcast against each other in every combination.
_SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1)]
_OPS = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / b,
}
# (parent, child) op families of the trees.
_PAIRS = [("mul", "mul"), ("add", "add"), ("add", "sub"), ("sub", "add"), ("mul", "div")]


def push_down_through_broadcasting(tf):
    """op(C, op(X, Y)) and op(op(X, Y), C) with constants C and Y and a variable X of shapes
    that broadcast: TF 1.15's constant folding pushes C down to Y whatever the shapes and
    folds C with Y, so the tree rounds as X op (C op Y). Values as they come out (bits)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    trees = []
    for i in range(60):
        parent, child = _PAIRS[i % len(_PAIRS)]
        sc, sx, sy = [_SHAPES[rng.randint(len(_SHAPES))] for _ in range(3)]
        c, x, y = [rng.uniform(0.5, 2.0, s).astype(np.float32) for s in (sc, sx, sy)]
        const_left, through_identity = rng.rand() < 0.5, rng.rand() < 0.5
        inner = _OPS[child](tf.Variable(x), tf.constant(y))
        out = _OPS[parent](tf.constant(c), inner) if const_left else _OPS[parent](inner, c)
        trees.append(tf.identity(out) if through_identity else out)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"values": sess.run(trees)}


def gradient_through_tuple_identities(tf):
    """cost = mean(square(x_data * W - y_data)) over Python lists, its gradient fetched from
    compute_gradients while apply_gradients runs, and a hand-written gradient beside it: TF
    1.15's dependency optimizer bypasses the gradients' tuple Identities (and makes the
    gradient for the constant x_data a NoOp), so its second round of constant folding folds
    x_data * (2/3 * ...) into one constant: the gradient is sum(C * (x_data * W - y_data))."""
    tf.reset_default_graph()
    x_data, y_data = [1, 2, 3], [1, 2, 3]
    w = tf.Variable(5.0)
    by_hand = tf.reduce_mean((w * x_data - y_data) * x_data) * 2
    cost = tf.reduce_mean(tf.square(x_data * w - y_data))
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.01)
    gvs = optimizer.compute_gradients(cost)
    train = optimizer.apply_gradients(gvs)
    grads, hand, weights = [], [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(40):
            weights.append(sess.run(w))
            h, g = sess.run([by_hand, gvs[0][0]])
            hand.append(h)
            grads.append(g)
            sess.run(train)
    return {"gradients": np.array(grads), "by_hand": np.array(hand), "weights": np.array(weights)}


def log_of_softmax(tf):
    """A hand-written cross entropy, mean(-sum(y * log(softmax(logits)), 1)), over rows of
    three classes: TF 1.15's arithmetic optimizer computes log(softmax(x)) as LogSoftmax(x)
    where the Softmax has no other reader and is not fetched (so the cost differs in the last
    bit from Log of the rounded probabilities); not with the Softmax fetched beside it, read
    twice, or in a graph of fewer than four nodes."""
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    logits = (rng.randn(64, 3) * 0.01).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 64)]
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    probs = tf.nn.softmax(tf.nn.relu(x))
    log_probs = tf.log(probs)
    rows = -tf.reduce_sum(y * log_probs, axis=1)
    cost = tf.reduce_mean(rows)
    twice = tf.log(probs) + probs
    out = {}
    with tf.Session() as sess:
        feed = {x: logits, y: labels}
        out["cost"] = sess.run(cost, feed)
        out["rows"] = sess.run(rows, feed)
        out["log_fetched"] = sess.run(log_probs, feed)
        out["with_softmax_fetched"] = sess.run([log_probs, probs], feed)[0]
        out["softmax_read_twice"] = sess.run(twice, feed)
    tf.reset_default_graph()
    p = tf.placeholder(tf.float32)
    alone = tf.log(tf.nn.softmax(p))
    with tf.Session() as sess:
        out["three_node_graph"] = sess.run(alone, {p: logits})
    return out


CASES = {
    f.__name__: f
    for f in (push_down_through_broadcasting, gradient_through_tuple_identities, log_of_softmax)
}
