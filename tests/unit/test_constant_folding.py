"""Constant folding before a step's graph is placed: what folds, what must not, same results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import tfcluster as tf
from support.traced_memory import traced_peak
from tfcluster.runtime.constant_folding import fold_constants
from tfcluster.runtime.graph_ir import Node, node_from_operation


def _fold(fetches: Sequence[tf.Tensor], feeds: Sequence[str] = ()) -> dict[str, Node]:
    g = tf.get_default_graph()
    nodes = {op.name: node_from_operation(op) for op in g.get_operations()}
    dtype_of = {t.name: t.dtype for op in g.get_operations() for t in op.outputs}
    return fold_constants(nodes, list(nodes), set(feeds), dtype_of)


def _trace_names(sess: tf.Session, fetch: tf.Tensor, feed: dict[tf.Tensor, np.ndarray]) -> set[str]:
    md = tf.RunMetadata()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    sess.run(fetch, feed, options=opts, run_metadata=md)
    return {n.node_name for d in md.step_stats.dev_stats for n in d.node_stats}


def test_nodes_reading_only_constants_fold_to_the_value_their_kernel_computes() -> None:
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    shape = tf.concat([tf.constant([2]), tf.constant([3])], 0, name="shape")
    ones = tf.fill(shape, 2.5, name="ones")
    y = tf.add(x, ones, name="y")
    folded = _fold([y], ["x:0"])
    assert set(folded) == {"shape", "ones"}
    assert folded["ones"].op == "Const" and not folded["ones"].inputs
    np.testing.assert_array_equal(folded["ones"].attrs["value"], np.full((2, 3), 2.5, np.float32))
    assert folded["ones"].attrs["dtype"] == tf.float32
    assert folded["shape"].attrs["value"].dtype == np.int32


def test_fed_constants_stateful_ops_and_nodes_with_control_inputs_do_not_fold() -> None:
    dims = tf.constant([2, 2], name="dims")
    filled = tf.fill(dims, 1.0, name="filled")  # reads a fed constant
    noise = tf.random_uniform(tf.constant([2], name="n"), name="noise")  # stateful
    with tf.control_dependencies([noise]):
        waits = tf.identity(tf.constant(1.0, name="one"), name="waits")
    folded = _fold([filled, noise, waits], ["dims:0"])
    assert not {"dims", "filled", "noise", "one", "waits"} & set(folded)


def test_a_constant_expression_that_fails_still_fails_at_run_naming_its_node() -> None:
    bad = tf.gather(tf.constant([1, 2, 3]), tf.constant([5]), name="bad_gather")
    assert "bad_gather" not in _fold([bad])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad_gather"):
            sess.run(bad)
        assert sess.run(tf.constant(1)) == 1  # the session keeps working


def test_sessions_fold_constants_unless_the_optimizer_level_is_l0() -> None:
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    shape = tf.stack([tf.constant(2), tf.constant(3)], name="shape")
    y = x * tf.fill(shape, 0.5, name="half")
    feed = {x: np.arange(6, dtype=np.float32).reshape(2, 3)}
    l0 = tf.ConfigProto(
        graph_options=tf.GraphOptions(
            optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
        )
    )
    with tf.Session() as sess:
        folded = _trace_names(sess, y, feed)
        out = sess.run(y, feed)
    with tf.Session(config=l0) as sess:
        unfolded = _trace_names(sess, y, feed)
        out_l0 = sess.run(y, feed)
    np.testing.assert_array_equal(out, out_l0)
    # Folded: 'half' runs as a constant; what only it read (the stack) never runs.
    assert "half" in folded and "shape" not in folded
    assert {"half", "shape"} <= unfolded


def test_gradients_of_a_model_are_the_same_folded_and_not() -> None:
    rng = np.random.default_rng(3)
    x = tf.placeholder(tf.float32, [8, 5], name="x")
    w = tf.constant(rng.standard_normal((5, 4)).astype(np.float32))
    logits = tf.reshape(tf.matmul(x, w), tf.stack([tf.constant(2), tf.constant(16)]))
    loss = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=tf.one_hot(tf.constant([1, 3]), 16), logits=logits
        )
    )
    grad = tf.gradients(loss, x)[0]
    feed = {x: rng.standard_normal((8, 5)).astype(np.float32)}
    l0 = tf.ConfigProto(
        graph_options=tf.GraphOptions(
            optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
        )
    )
    with tf.Session() as sess:
        folded = sess.run([loss, grad], feed)
    with tf.Session(config=l0) as sess:
        unfolded = sess.run([loss, grad], feed)
    assert folded[0] == unfolded[0]
    np.testing.assert_array_equal(folded[1], unfolded[1])


def test_values_too_big_to_fold_are_never_computed_while_planning() -> None:
    """`tf.ones([16M])` (64 MiB), a Tile or broadcast of small constants to a huge value, and
    a hostile Fill asking for terabytes stay as they are: planning allocates nothing for them
    (the step computes what it needs on its own device, under the memory budget)."""
    big = tf.ones([16 << 20], name="big")
    tiled = tf.tile(tf.constant([1.0, 2.0]), tf.constant([1 << 23]), name="tiled")
    wide = tf.add(tf.zeros([4096, 1]), tf.zeros([1, 4096]), name="wide")
    bomb = tf.fill(tf.constant([1 << 20, 1 << 20]), 1.0, name="bomb")
    small = tf.fill(tf.constant([2, 2]), 3.0, name="small")
    with traced_peak() as peak:
        folded = _fold([big, tiled, wide, bomb, small])
    assert not {"big", "tiled", "wide", "bomb"} & set(folded)
    assert "small" in folded
    assert peak.bytes < 4 << 20, f"planning allocated {peak.bytes} bytes"
