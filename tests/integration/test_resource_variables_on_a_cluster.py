"""Resource variables on a ps + worker cluster: the VarHandleOp lives on the ps (placed by
replica_device_setter), a worker's reads and updates of it run there (ops taking a handle are
placed with it), two sessions naming one shared_name on the ps share the variable, and
training gives the values the same program gives in one process."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
Y = (X @ np.array([[0.5], [-1.0], [2.0]], np.float32)).astype(np.float32)


def _program(device_fn: Any) -> tuple[Any, Any, list[Any]]:
    with tf.device(device_fn):
        with tf.variable_scope("model", use_resource=True):
            w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.1))
            emb = tf.get_variable("emb", [4, 1], initializer=tf.constant_initializer(0.2))
        pred = tf.matmul(X, w) + tf.nn.embedding_lookup(emb, [0, 1, 2, 3, 0, 1, 2, 3])
        loss = tf.reduce_mean(tf.square(pred - Y))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return loss, train, [w, emb]


def _train(target: str, device_fn: Any) -> tuple[list[float], list[Any], Any]:
    with tf.Graph().as_default() as g:
        loss, train, variables = _program(device_fn)
        with tf.Session(target) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [float(sess.run([loss, train])[0]) for _ in range(4)]
            return losses, sess.run(variables), g


def test_worker_trains_ps_resource_variables_as_one_process(cluster: Cluster) -> None:
    ps_port, worker_port = free_ports(2)
    cluster.start({"ps": [ps_port], "worker": [worker_port]})
    setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")
    losses, values, graph = _train(cluster.task("worker", 0).target, setter)
    handles = [op for op in graph.get_operations() if op.type == "VarHandleOp"]
    assert handles and {op.device for op in handles} == {"/job:ps/task:0"}
    updates = [op for op in graph.get_operations() if op.type.startswith("Resource")]
    assert {op.type for op in updates} == {
        "ResourceApplyMomentum",
        "ResourceSparseApplyMomentum",
        "ResourceGather",
    }
    local_losses, local_values, _ = _train("", None)
    np.testing.assert_allclose(losses, local_losses, rtol=1e-6)
    for got, want in zip(values, local_values):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_worker_op_reading_a_ps_handle_runs_on_the_ps(cluster: Cluster) -> None:
    ps_port, worker_port = free_ports(2)
    cluster.start({"ps": [ps_port], "worker": [worker_port]})
    target = cluster.task("worker", 0).target
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[3], shared_name="shared_v")
        with tf.device("/job:worker/task:0"):
            assign = tf.raw_ops.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
            read = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)
            doubled = read * 2.0
            # The handle passed on by an Identity on the worker: it goes with the handle.
            passed = tf.raw_ops.ReadVariableOp(resource=tf.identity(h), dtype=tf.float32)
        with tf.Session(target) as sess:
            sess.run(assign)
            np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0, 6.0])
            np.testing.assert_array_equal(sess.run(passed), [1.0, 2.0, 3.0])
    # Another graph and session naming the same shared_name on the ps: the same variable.
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[3], shared_name="shared_v")
        with tf.device("/job:worker/task:0"):
            add = tf.raw_ops.AssignAddVariableOp(resource=h, value=[1.0, 1.0, 1.0])
        with tf.control_dependencies([add]):
            read = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)
        never = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[], shared_name="never_set")
        with tf.Session(target) as sess:
            np.testing.assert_array_equal(sess.run(read), [2.0, 3.0, 4.0])
            with pytest.raises(tf.errors.FailedPreconditionError, match="never_set"):
                sess.run(tf.raw_ops.ReadVariableOp(resource=never, dtype=tf.float32))
            # The session keeps working after the error.
            np.testing.assert_array_equal(
                sess.run(tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)), [2.0, 3.0, 4.0]
            )
