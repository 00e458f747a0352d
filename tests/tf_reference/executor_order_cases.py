"""Steps that write a variable and read it again with no order between the two: the values
depend on the order the executor runs the nodes in. TF does not promise one, but once a
session is warm (its kernels' cost estimates fall below the inline threshold, about a hundred
runs) its executor runs ready nodes first in, first out on one thread, and the answers are
the same every run. Each case warms the session up, then records. `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_executor_order.py and on tfcluster by
tests/unit/test_executor_order.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

WARM_RUNS = 150


def _warm(sess, fetches, feed=None):
    for _ in range(WARM_RUNS):
        sess.run(fetches, feed)


def assign_beside_cost(tf):
    """W.assign(W - lr * grad) fetched with a cost that reads W: the cost's read is shallow,
    the assign at the end of the gradient's chain, so the cost sees W from before the step
    (a linear-regression lecture computing its gradient by hand)."""
    tf.reset_default_graph()
    w = tf.Variable([2.0])
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    cost = tf.reduce_mean(tf.square(x * w - y))
    gradient = tf.reduce_mean((w * x - y) * x)
    update = w.assign(w - 0.1 * gradient)
    reset = w.assign([2.0])
    feed = {x: [1.0, 2.0, 3.0], y: [1.0, 2.0, 3.0]}
    out = {}
    with tf.Session() as sess:
        sess.run(reset)
        for key, fetches in (
            ("update_first", [update, cost, w]),
            ("cost_first", [cost, update, w]),
        ):
            _warm(sess, fetches, feed)
            sess.run(reset)
            out[key] = [[np.asarray(v).tolist() for v in sess.run(fetches, feed)] for _ in range(5)]
    return out


def assign_add_beside_reads(tf, use_resource=False):
    """AssignAdd fetched with reads of the variable at different depths, in both fetch
    orders: the write is ready first and lands before every read deeper than it."""
    tf.reset_default_graph()
    w = tf.Variable([2.0], use_resource=use_resource)
    increment = w.assign_add([1.0])
    reset = w.assign([2.0])
    readers = {
        "scaled": w * 2.0,
        "square": tf.square(w),
        "plus_zero": w + 0.0,
        "square_of_square": tf.square(tf.square(w)),
        "plus_constant": tf.add(w, tf.constant([1.0])),
    }
    out = {}
    with tf.Session() as sess:
        sess.run(reset)
        for key, reader in sorted(readers.items()):
            for order, fetches in (
                ("write_first", [increment, reader]),
                ("read_first", [reader, increment]),
            ):
                _warm(sess, fetches)
                sess.run(reset)
                out[key + "_" + order] = [np.asarray(v).tolist() for v in sess.run(fetches)]
    return out


def assign_add_beside_resource_reads(tf):
    """The same with a resource variable: each read is a ReadVariableOp of its own, ready
    as soon as the handle is, so every read comes before the increment."""
    return assign_add_beside_reads(tf, use_resource=True)


def hand_written_backprop(tf):
    """A two-layer net trained by assigning every weight in one run, the second layer's
    weights first while the first layer's gradient reads them: every read is shallower than
    every assign, so once warm the first layer's update uses the second layer's weights from
    before the step (cold, TF's threads race and either may come out)."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    w1 = tf.Variable([[0.5, -0.3], [0.2, 0.8]])
    b1 = tf.Variable([0.1, -0.1])
    w2 = tf.Variable([[0.7], [-0.4]])
    b2 = tf.Variable([0.05])
    hidden = tf.sigmoid(tf.matmul(x, w1) + b1)
    out_layer = tf.sigmoid(tf.matmul(hidden, w2) + b2)
    d_out = (out_layer - y) * out_layer * (1 - out_layer)
    d_w2 = tf.matmul(tf.transpose(hidden), d_out)
    d_hidden = tf.matmul(d_out, tf.transpose(w2)) * hidden * (1 - hidden)
    d_w1 = tf.matmul(tf.transpose(x), d_hidden)
    step = [
        tf.assign(w2, w2 - 50.0 * d_w2),
        tf.assign(b2, b2 - 0.5 * tf.reduce_mean(d_out, axis=[0])),
        tf.assign(w1, w1 - 0.5 * d_w1),
        tf.assign(b1, b1 - 0.5 * tf.reduce_mean(d_hidden, axis=[0])),
    ]
    cost = tf.reduce_mean(tf.square(out_layer - y))
    feed = {
        x: np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32),
        y: np.array([[0], [1], [1], [0]], np.float32),
    }
    initializers = [w1.initializer, b1.initializer, w2.initializer, b2.initializer]
    first_layer = []
    with tf.Session() as sess:
        for run in range(WARM_RUNS + 10):
            sess.run(initializers)
            sess.run([step, cost], feed)
            if run >= WARM_RUNS:
                first_layer.append(np.asarray(sess.run(w1)).tolist())
    return {"first_layer_after_one_step": first_layer}


CASES = {
    "assign_beside_cost": assign_beside_cost,
    "assign_add_beside_reads": assign_add_beside_reads,
    "assign_add_beside_resource_reads": assign_add_beside_resource_reads,
    "hand_written_backprop": hand_written_backprop,
}
