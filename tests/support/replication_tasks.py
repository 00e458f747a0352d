"""Task processes for tests/integration/test_ps_worker_replication.py (run in spawned
processes): a server per task, and a between-graph replication worker ("one graph per worker,
parameters on ps")."""

# Written as TF1 user programs are, %-formatting included.
# ruff: noqa: UP031

from __future__ import annotations

from multiprocessing.queues import Queue
from typing import Any

import numpy as np
import tfcluster as tf


def serve_task(jobs: dict[str, Any], job_name: str, task_index: int) -> None:
    """A tf.train.Server for one task of `jobs`, serving until the process is killed."""
    cluster = tf.train.ClusterSpec(jobs)
    server = tf.train.Server(cluster, job_name=job_name, task_index=task_index)
    server.join()


def regression_data(seed: int, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """y = x @ [2, -3] + 0.5, a problem every trainer here should solve."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2)).astype(np.float32)
    y = (x @ np.array([[2.0], [-3.0]], np.float32) + 0.5).astype(np.float32)
    return x, y


def between_graph_worker(
    jobs: dict[str, Any], task_index: int, steps: int, out: Queue[Any]
) -> None:
    """Between-graph replication: this worker's own graph, its parameters placed on
    the ps job by replica_device_setter, shared with the other workers' graphs by name."""
    cluster = tf.train.ClusterSpec(jobs)
    server = tf.train.Server(cluster, job_name="worker", task_index=task_index)
    worker_device = "/job:worker/task:%d" % task_index
    with tf.device(tf.train.replica_device_setter(worker_device=worker_device, cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        count = tf.assign_add(global_step, 1, use_locking=True)
    sess = tf.Session(server.target)
    if task_index == 0:
        sess.run(tf.global_variables_initializer())
    while len(sess.run(tf.report_uninitialized_variables())) > 0:
        import time

        time.sleep(0.1)
    data_x, data_y = regression_data(seed=task_index)
    for _ in range(steps):
        sess.run([train_op, count], {x: data_x, y: data_y})
    placement = {v.op.name: v.device for v in (global_step, w, b)}
    out.put(("done", task_index, placement, float(sess.run(loss, {x: data_x, y: data_y}))))
    server.join()
