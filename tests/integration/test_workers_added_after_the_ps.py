"""Elastic workers: a ps whose cluster spec names no worker (or fewer than train) serves the
workers that sessions bring. The master of each session tells the tasks it registers graphs on
where the session's tasks are (CreateWorkerSession with the master's cluster, as TensorFlow's
does for a session with a cluster_def), so the ps fetches a new worker's gradients from it."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, TaskProcess, cluster_flag, free_ports
from tfcluster.protos import worker_pb2

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]


def _train_step(worker: int) -> tuple[tf.Graph, tf.Tensor, tf.Operation, tf.Operation]:
    """w on the ps; the loss and its gradient on ``worker``: the update on the ps needs the
    gradient the worker computed."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([1.0, 2.0], name="w")
        with tf.device(f"/job:worker/task:{worker}"):
            x = tf.constant([[1.0, 1.0], [2.0, 0.5]])
            loss = tf.reduce_sum(tf.square(tf.linalg.matvec(x, w)))
            grad = tf.gradients(loss, [w])[0]
        with tf.device("/job:ps/task:0"):
            update = tf.assign_sub(w, 0.01 * grad)
    return g, w.value(), update, w.initializer


def _expected(steps: int) -> np.ndarray:
    w = np.array([1.0, 2.0])
    x = np.array([[1.0, 1.0], [2.0, 0.5]])
    for _ in range(steps):
        w = w - 0.01 * 2 * x.T @ (x @ w)
    return w


def test_workers_added_after_the_ps_started_train_on_its_variables(cluster: Cluster) -> None:
    ps, w0, w1, w2 = free_ports(4)
    # The ps knows only itself; worker 0 started with one worker, workers 1 and 2 came later.
    cluster.add(TaskProcess(cluster_flag({"ps": [ps]}), "ps", 0, ps)).wait_serving()
    cluster.add(TaskProcess(cluster_flag({"ps": [ps], "worker": [w0]}), "worker", 0, w0))
    grown = {"ps": [ps], "worker": [w0, w1, w2]}
    cluster.add(TaskProcess(cluster_flag(grown), "worker", 1, w1))
    cluster.add(TaskProcess(cluster_flag(grown), "worker", 2, w2))
    for task in cluster.tasks:
        task.wait_serving()
    filters = {i: ["/job:ps", f"/job:worker/task:{i}"] for i in range(3)}
    steps = 0
    g, value, update, init = _train_step(0)
    config = tf.ConfigProto(device_filters=filters[0])
    with tf.Session(f"grpc://localhost:{w0}", graph=g, config=config) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(update)
            steps += 1
    for worker, port in ((1, w1), (2, w2), (1, w1)):
        g, value, update, _ = _train_step(worker)
        config = tf.ConfigProto(device_filters=filters[worker], operation_timeout_in_ms=20_000)
        with tf.Session(f"grpc://localhost:{port}", graph=g, config=config) as sess:
            for _ in range(2):
                sess.run(update)
                steps += 1
            np.testing.assert_allclose(sess.run(value), _expected(steps), rtol=1e-5)
    # The ps kept serving its first worker all along.
    g, value, _, _ = _train_step(0)
    with tf.Session(
        f"grpc://localhost:{w0}", graph=g, config=tf.ConfigProto(device_filters=filters[0])
    ) as sess:
        np.testing.assert_allclose(sess.run(value), _expected(steps), rtol=1e-5)


def test_a_malformed_session_cluster_is_refused_and_the_task_keeps_serving(
    cluster: Cluster,
) -> None:
    (ps,) = free_ports(1)
    cluster.add(TaskProcess(cluster_flag({"ps": [ps]}), "ps", 0, ps)).wait_serving()
    create = grpc.insecure_channel(f"localhost:{ps}").unary_unary(
        "/tfcluster.WorkerService/CreateWorkerSession",
        request_serializer=worker_pb2.CreateWorkerSessionRequest.SerializeToString,
        response_deserializer=worker_pb2.CreateWorkerSessionResponse.FromString,
    )
    bad = worker_pb2.CreateWorkerSessionRequest(session_handle="s")
    bad.server_def.cluster.job.add(name="worker").tasks[0] = "no port here"
    with pytest.raises(grpc.RpcError) as refused:
        create(bad, timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not host:port" in (refused.value.details() or "")
    huge = worker_pb2.CreateWorkerSessionRequest(session_handle="s")
    job = huge.server_def.cluster.job.add(name="worker")
    for i in range(5000):
        job.tasks[i] = f"h{i}:1"
    with pytest.raises(grpc.RpcError) as refused:
        create(huge, timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # Still serving sessions.
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:0"):
        out = tf.constant(2.0) * 3.0
    with tf.Session(f"grpc://localhost:{ps}", graph=g) as sess:
        assert sess.run(out) == 6.0
