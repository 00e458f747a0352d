"""ConfigProto.device_filters as TF has them: a session sees only the tasks its filters name
(the usual TF1 remedy: each worker sees the ps and itself), so it runs while an unrelated
worker is down; without filters the first run waits for every task, up to its deadline."""

from __future__ import annotations

import time

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, TaskProcess, cluster_flag, free_ports
from tfcluster.distributed.devices import filtered_tasks

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def _graph() -> tuple[tf.Graph, tf.Tensor, tf.Operation]:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:0"):
            out = v * 3.0
    return g, out, v.initializer


def test_a_session_filtered_to_the_ps_and_itself_runs_while_another_worker_is_down(
    cluster: Cluster,
) -> None:
    w0, w1, ps = free_ports(3)
    flag = cluster_flag({"worker": [w0, w1], "ps": [ps]})  # worker 1 never starts
    cluster.add(TaskProcess(flag, "worker", 0, w0)).wait_serving()
    cluster.add(TaskProcess(flag, "ps", 0, ps)).wait_serving()
    g, out, init = _graph()

    filtered = tf.ConfigProto(
        device_filters=["/job:ps", "/job:worker/task:0"], operation_timeout_in_ms=10_000
    )
    with tf.Session(f"grpc://localhost:{w0}", graph=g, config=filtered) as sess:
        sess.run(init)
        np.testing.assert_allclose(sess.run(out), 3.0)

    unfiltered = tf.ConfigProto(operation_timeout_in_ms=1500)
    t0 = time.monotonic()
    with (
        tf.Session(f"grpc://localhost:{w0}", graph=g, config=unfiltered) as sess,
        pytest.raises((tf.errors.DeadlineExceededError, tf.errors.UnavailableError)),
    ):
        sess.run(out)
    assert time.monotonic() - t0 < 10


def test_a_node_placed_on_a_filtered_out_task_is_an_invalid_argument(cluster: Cluster) -> None:
    w0, ps = free_ports(2)
    cluster.start({"worker": [w0], "ps": [ps]})
    g, _, init = _graph()
    config = tf.ConfigProto(device_filters=["/job:worker"])
    with (
        tf.Session(f"grpc://localhost:{w0}", graph=g, config=config) as sess,
        pytest.raises(tf.errors.InvalidArgumentError),
    ):
        sess.run(init)


def test_filters_name_tasks_by_job_replica_and_task() -> None:
    tasks = [
        "/job:ps/replica:0/task:0",
        "/job:worker/replica:0/task:0",
        "/job:worker/replica:0/task:1",
    ]
    assert filtered_tasks(tasks, []) == tasks
    assert filtered_tasks(tasks, ["/job:ps", "/job:worker/task:1"]) == [tasks[0], tasks[2]]
    assert filtered_tasks(tasks, ["/job:worker/replica:0/task:0/device:CPU:0"]) == [tasks[1]]
