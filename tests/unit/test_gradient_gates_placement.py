"""Gradient gates (tf.tuple's group_deps under GATE_OP) sit on their inputs' device, as TF's
_GroupControlDeps puts them: a gate left without a device is placed apart from the gradients
it joins, and every gated gradient of a worker then waits on a round trip to another task."""

from __future__ import annotations

import tfcluster as tf


def test_the_gates_of_a_worker_s_gradients_are_on_that_worker() -> None:
    cluster = tf.train.ClusterSpec({"ps": ["localhost:1"], "worker": ["localhost:2"]})
    with tf.Graph().as_default() as graph:
        setter = tf.train.replica_device_setter(cluster=cluster)
        with tf.device(setter):
            x = tf.placeholder(tf.float32, [4, 3])
            w = tf.get_variable("w", [3, 2])
            loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
            tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        gates = [op for op in graph.get_operations() if op.name.endswith("tuple/group_deps")]
        assert gates
        assert {op.device for op in gates} == {"/job:worker"}


def test_a_group_of_ops_on_one_device_is_on_that_device_whatever_the_scope() -> None:
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            a = tf.constant(1.0)
            b = tf.constant(2.0)
        with tf.device("/job:ps/task:0"):
            joined = tf.group(a, b)
        assert joined.device == "/job:worker/task:1"
