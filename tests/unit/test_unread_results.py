"""Nodes whose results no node of the step reads run as NoOps (runtime/unread_results.py), as
TensorFlow's dependency optimizer makes them. The session-level cases were checked with TF
1.15.0: a Reshape that would fail, waited on only through a control edge, does not fail the
step; fetched, it does; a stateful op waited on runs; with dependency_optimization OFF the
Reshape runs and fails."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.core.protobuf import rewriter_config_pb2
from tfcluster.distributed.master_session import _prune
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.unread_results import unread_to_noops

FOUR = np.arange(4, dtype=np.float32)


def _noops(graph: Any, fetches: list[str], targets: list[str] = ()) -> dict[str, Any]:
    """The NoOps of the step pruned to `fetches` and `targets`, as the master plans it."""
    nodes = {op.name: node_from_operation(op) for op in graph.get_operations()}
    needed = _prune(nodes, [], fetches, list(targets))
    return unread_to_noops(nodes, needed, [], fetches, list(targets))


def test_an_unread_result_waited_on_does_not_run():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        bad = tf.reshape(x, [3])  # fails for 4 values, if it runs
        with tf.control_dependencies([bad]):
            out = tf.identity(x * 2)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {x: FOUR}), FOUR * 2)
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run([out, bad], {x: FOUR})


def test_dependency_optimization_off_runs_the_unread_node():
    config = tf.ConfigProto()
    rewrite = config.graph_options.rewrite_options
    rewrite.dependency_optimization = rewriter_config_pb2.RewriterConfig.OFF
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        bad = tf.reshape(x, [3])
        with tf.control_dependencies([bad]):
            out = tf.identity(x * 2)
        with tf.Session(config=config) as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {x: FOUR})


def test_a_stateful_op_waited_on_still_runs():
    with tf.Graph().as_default():
        counter = tf.Variable(0)
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            out = tf.identity(tf.constant(1.0))
        with tf.Session() as sess:
            sess.run(counter.initializer)
            sess.run(out)
            sess.run(out)
            assert sess.run(counter) == 2


def test_unread_nodes_become_noops_keeping_their_inputs_as_control_inputs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 2], name="x")
        w = tf.constant(np.eye(2, dtype=np.float32), name="w")
        unread = tf.matmul(tf.square(x, name="sq"), w, name="unread")
        with tf.control_dependencies([unread]):
            out = tf.identity(x, name="out")
    noops = _noops(g, [out.name])
    assert noops["unread"].op == "NoOp"
    assert set(noops["unread"].control_inputs) == {"sq", "w"}
    # Its fanin read by nobody else follows; the placeholder and the constant stay.
    assert noops["sq"].op == "NoOp"
    assert noops["sq"].control_inputs == ["x"]
    assert "x" not in noops and "w" not in noops


def test_fetched_targeted_and_read_nodes_are_kept():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        a = tf.square(x, name="a")
        b = tf.negative(x, name="b")
        c = tf.add(a, 1.0, name="c")
        with tf.control_dependencies([b, c]):
            tf.no_op(name="gate")
        d = tf.square(x, name="d")  # outside the step: not needed, left alone
    assert _noops(g, [a.name], ["gate"]).keys() == {"b", "c"}
    assert _noops(g, [c.name], ["gate"]).keys() == {"b"}
    assert _noops(g, [], ["gate", "b"]).keys() == {"c", "a"}
    assert d.op.name not in _noops(g, [], ["gate"])


def test_the_conv_net_gradient_of_its_input_images_is_not_computed():
    """tf.gradients' gate waits on conv2d's input gradient, which nobody reads."""
    g = tf.Graph()
    with g.as_default():
        images = tf.placeholder(tf.float32, [2, 8, 8, 1])
        net = tf.layers.conv2d(images, 4, 3, padding="same")
        loss = tf.reduce_sum(net * net)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    noops = _noops(g, [], [train.name])
    assert [n for n in noops if "Conv2DBackpropInput" in n] == [
        "gradients/conv2d/Conv2D_grad/Conv2DBackpropInput"
    ]
    assert not [n for n in noops if "Conv2DBackpropFilter" in n]


def test_a_node_reading_a_switch_output_is_kept():
    """As a NoOp it would wait on the Switch by a control edge, live on either branch."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        pred = tf.placeholder(tf.bool, [], name="pred")
        _, taken = g.create_op("Switch", [x, pred], {"T": tf.float32}, name="sw").outputs
        branch = tf.square(taken, name="branch")
        after = tf.negative(branch, name="after")
        with tf.control_dependencies([after]):
            tf.no_op(name="gate")
    assert _noops(g, [], ["gate"]).keys() == {"after"}
