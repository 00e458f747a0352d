"""How TF 1.15 runs an InteractiveSession's steps: it always places pruned graphs
(graph_options.place_pruned_graph set on the caller's own config, or on a default config that
lets GPU memory grow), and TF's GraphExecutionState does not let grappler optimize a pruned
graph, so an AddN adds its inputs in the graph's order (a Session's arithmetic optimizer sorts
them by name) and a one-unit dense layer's MatMul + BiasAdd stay two kernels (a Session's
remapper fuses them). The LSTM-Human-Activity-Recognition notebook, run in an
InteractiveSession, took its gradients' sums in the graph's order. Each case is
`fn(tf) -> dict of plain values` (float32 results as hex strings: bits, not tolerances), run
on TF 1.15 by record_interactive_session.py and on tfcluster by
tests/unit/test_interactive_session.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _bits(values):
    return [float(v).hex() for v in np.asarray(values, np.float32).ravel()]


def _addn_graph(tf):
    """add_n over inputs whose names sort otherwise than the graph's order, with values whose
    float32 sum depends on that order: (c + a) + b = 1, (a + b) + c = 0."""
    tf.reset_default_graph()
    p = tf.placeholder(tf.float32, [2])
    c = tf.multiply(p, 1e8, name="c")
    a = tf.multiply(p, -1e8, name="a")
    b = tf.multiply(p, 1.0, name="b")
    return p, tf.add_n([c, a, b])


def addn_order_in_interactive_session(tf):
    p, total = _addn_graph(tf)
    sess = tf.InteractiveSession()
    try:
        return {"sum": _bits(total.eval({p: [1.0, 2.0]}))}
    finally:
        sess.close()


def addn_order_in_session(tf):
    p, total = _addn_graph(tf)
    with tf.Session() as sess:
        return {"sum": _bits(sess.run(total, {p: [1.0, 2.0]}))}


def addn_order_in_session_placing_pruned_graphs(tf):
    p, total = _addn_graph(tf)
    config = tf.ConfigProto()
    config.graph_options.place_pruned_graph = True
    with tf.Session(config=config) as sess:
        return {"sum": _bits(sess.run(total, {p: [1.0, 2.0]}))}


def _dense_one_unit(tf):
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    x = tf.placeholder(tf.float32, [5, 300])
    w = tf.constant(rng.randn(300, 1).astype(np.float32))
    b = tf.constant(rng.randn(1).astype(np.float32))
    y = tf.nn.bias_add(tf.matmul(x, w), b)
    return x, y, rng.randn(5, 300).astype(np.float32)


def dense_one_unit_in_interactive_session(tf):
    x, y, feed = _dense_one_unit(tf)
    sess = tf.InteractiveSession()
    try:
        return {"y": _bits(sess.run(y, {x: feed}))}
    finally:
        sess.close()


def dense_one_unit_in_session(tf):
    x, y, feed = _dense_one_unit(tf)
    with tf.Session() as sess:
        return {"y": _bits(sess.run(y, {x: feed}))}


def interactive_session_config(tf):
    """The caller's config comes back with place_pruned_graph set; without one the session's
    config lets GPU memory grow."""
    tf.reset_default_graph()
    config = tf.ConfigProto(log_device_placement=False)
    before = config.graph_options.place_pruned_graph
    sess = tf.InteractiveSession(config=config)
    sess.close()
    default = tf.InteractiveSession()
    own = default._config
    default.close()
    return {
        "before": before,
        "after": config.graph_options.place_pruned_graph,
        "default_pruned": own.graph_options.place_pruned_graph,
        "default_allow_growth": own.gpu_options.allow_growth,
    }


def l2_loss_sums(tf):
    """L2Loss is (x.square() * 0.5).sum() in Eigen's order (a dot product's differed in the
    last bits from 8192 values on), a whole-tensor sum split between threads past Eigen's
    cost threshold."""
    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    sizes = [7, 1000, 8192, 8200, 20000, 30000, 65536]
    losses = [tf.nn.l2_loss(tf.constant(rng.randn(n).astype(np.float32))) for n in sizes]
    matrix = tf.nn.l2_loss(tf.constant(rng.randn(64, 128).astype(np.float32)))
    config = tf.ConfigProto(intra_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        got = sess.run([*losses, matrix])
    return {"losses": _bits(got)}


for _fn in [
    addn_order_in_interactive_session,
    addn_order_in_session,
    addn_order_in_session_placing_pruned_graphs,
    dense_one_unit_in_interactive_session,
    dense_one_unit_in_session,
    interactive_session_config,
    l2_loss_sums,
]:
    CASES[_fn.__name__] = _fn
