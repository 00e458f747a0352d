"""Behaviour of variable scopes and partitioned variables beyond single graphs: checkpoints
of partitioned variables, training sharded variables on several ps tasks, sharing inside a
loop body, regularizers placed beside their variables."""

from __future__ import annotations

import os

import numpy as np
import tfcluster as tf
from support.ports import free_ports
from tfcluster.task_server.server import Server


def test_a_partitioned_variable_restores_into_another_partitioning(tmp_path: object) -> None:
    # The checkpoint holds the whole variable under its full name: shards of any partitioning
    # are read back from it, as TF's checkpoints allow.
    prefix = os.path.join(str(tmp_path), "model")
    full = np.arange(30, dtype=np.float32).reshape(10, 3)
    with tf.Graph().as_default():
        tf.get_variable(
            "emb", initializer=tf.constant(full), partitioner=tf.fixed_size_partitioner(3)
        )
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, prefix)
    assert tf.train.list_variables(prefix) == [("emb", [10, 3])]
    with tf.Graph().as_default():
        p = tf.get_variable("emb", [10, 3], partitioner=tf.fixed_size_partitioner(4))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(p)), full)
            assert [sess.run(v).shape for v in p] == [(3, 3), (3, 3), (2, 3), (2, 3)]


def test_sharded_variable_trains_on_two_ps_tasks() -> None:
    ps0, ps1, worker = (f"localhost:{p}" for p in free_ports(3))
    cluster = tf.train.ClusterSpec({"ps": [ps0, ps1], "worker": [worker]})
    servers = [
        Server(cluster, job_name=job, task_index=i)
        for job, i in (("ps", 0), ("ps", 1), ("worker", 0))
    ]
    try:
        with tf.Graph().as_default():
            setter = tf.train.replica_device_setter(cluster=cluster)
            with tf.device(setter):
                emb = tf.get_variable(
                    "emb",
                    [6, 2],
                    partitioner=tf.fixed_size_partitioner(3),
                    initializer=tf.ones_initializer(),
                )
                loss = tf.reduce_sum(tf.convert_to_tensor(emb) * [1.0, 2.0])
                train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
            assert [v.device for v in emb] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
            with tf.Session(servers[2].target) as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                np.testing.assert_allclose(sess.run(tf.convert_to_tensor(emb)), [[0.5, 0.0]] * 6)
    finally:
        for s in servers:
            s.stop()


def test_variables_are_shared_inside_a_loop_body() -> None:
    def body(i: tf.Tensor, acc: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.variable_scope("step", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        return i + 1, acc * w

    _, out = tf.while_loop(lambda i, acc: i < 3, body, [tf.constant(0), tf.constant(1.0)])
    assert [v.op.name for v in tf.global_variables()] == ["step/w"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 8.0


def test_a_regularizer_loss_is_made_beside_its_variable_on_the_ps() -> None:
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        with tf.variable_scope("layer", regularizer=tf.keras.regularizers.l2(0.1)):
            tf.get_variable("a", [2])
            tf.get_variable("b", [2])
        total = tf.losses.get_regularization_loss()
    losses = tf.losses.get_regularization_losses()
    assert [t.device for t in losses] == ["/job:ps/task:0", "/job:ps/task:1"]
    assert total.device == "/job:worker"
