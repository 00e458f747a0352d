"""Many client threads and processes on one master: exact counts under contention, and steps
that move tensors between tasks running side by side without mixing their values."""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.queues import Queue
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

CTX = multiprocessing.get_context("spawn")


def _counter_graph() -> tuple[tf.Graph, Any, Any, Any]:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            remote = tf.Variable(0.0, name="remote_count")
        with tf.device("/job:worker/task:0"):
            local = tf.Variable(0, dtype=tf.int64, name="local_count")
        bump = tf.group(
            tf.assign_add(remote, 1.0, use_locking=True),
            tf.assign_add(local, tf.constant(1, tf.int64), use_locking=True),
        )
    return g, remote, local, bump


def _run_threads(fn: Any, n: int) -> list[BaseException]:
    errors: list[BaseException] = []

    def wrapped(i: int) -> None:
        try:
            fn(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    return errors


def test_threads_count_exactly_with_use_locking(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    g, remote, local, bump = _counter_graph()
    shared = tf.Session(f"grpc://localhost:{pw}", graph=g)
    shared.run([remote.initializer, local.initializer])
    threads, steps = 8, 60

    def work(i: int) -> None:
        # Half the threads share one session, the others have their own.
        sess = shared if i % 2 else tf.Session(f"grpc://localhost:{pw}", graph=g)
        for _ in range(steps):
            sess.run(bump)

    assert _run_threads(work, threads) == []
    assert shared.run([remote, local]) == [threads * steps, threads * steps]


def process_client(port: int, threads: int, steps: int, out: Queue[Any]) -> None:
    """A separate client process: its own graph, built from scratch, sharing by name."""
    g, _, _, bump = _counter_graph()
    sess = tf.Session(f"grpc://localhost:{port}", graph=g)
    errors = _run_threads(lambda i: [sess.run(bump) for _ in range(steps)], threads)
    out.put([repr(e) for e in errors])


def test_processes_and_threads_on_one_master(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    g, remote, local, _ = _counter_graph()
    sess = tf.Session(f"grpc://localhost:{pw}", graph=g)
    sess.run([remote.initializer, local.initializer])
    out = CTX.Queue()
    procs = [CTX.Process(target=process_client, args=(pw, 3, 40, out)) for _ in range(3)]
    try:
        for p in procs:
            p.start()
        reports = [out.get(timeout=180) for _ in procs]
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
    assert reports == [[], [], []]
    assert sess.run([remote, local]) == [3 * 3 * 40, 3 * 3 * 40]


def test_concurrent_steps_keep_their_own_tensors(cluster: Cluster) -> None:
    """Each thread feeds its own values through a step that crosses three tasks both ways."""
    ports = free_ports(3)
    cluster.start({"worker": ports[:2], "ps": ports[2:]})
    x = tf.placeholder(tf.float32, [None])
    with tf.device("/job:ps/task:0"):
        scale = tf.Variable(3.0, name="scale")
    with tf.device("/job:worker/task:1"):
        y = x * scale  # feed -> worker 1, scale ps -> worker 1
    with tf.device("/job:ps/task:0"):
        z = y + 1.0  # worker 1 -> ps
    with tf.device("/job:worker/task:0"):
        total = tf.reduce_sum(z)  # ps -> worker 0
    sess = tf.Session(f"grpc://localhost:{ports[0]}")
    sess.run(scale.initializer)

    def work(i: int) -> None:
        rng = np.random.default_rng(i)
        for _ in range(40):
            value = rng.normal(size=int(rng.integers(1, 50))).astype(np.float32)
            zv, tv = sess.run([z, total], {x: value})
            np.testing.assert_allclose(zv, value * 3.0 + 1.0, rtol=1e-6)
            np.testing.assert_allclose(tv, (value * 3.0 + 1.0).sum(), rtol=1e-4, atol=1e-4)

    assert _run_threads(work, 6) == []
