"""SyncReplicasOptimizer on a real cluster (ps + 2 workers, gRPC servers in this process):
the first update is the mean of the two workers' gradients, stale gradients are dropped,
and training with MonitoredTrainingSession runs to its last step."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

W0 = np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)
BATCHES = [
    np.array([[1.0, 2.0], [0.5, -1.0]], np.float32),
    np.array([[-3.0, 0.5], [2.0, 2.0]], np.float32),
]
LR = 0.1


@pytest.fixture
def cluster() -> Iterator[tf.train.ClusterSpec]:
    p = free_ports(3)
    spec = tf.train.ClusterSpec(
        {"ps": [f"localhost:{p[0]}"], "worker": [f"localhost:{p[1]}", f"localhost:{p[2]}"]}
    )
    servers = [
        tf.train.Server(spec, job_name="ps", task_index=0),
        tf.train.Server(spec, job_name="worker", task_index=0),
        tf.train.Server(spec, job_name="worker", task_index=1),
    ]
    try:
        yield spec
    finally:
        for s in servers:
            s.stop(grace=0.5)


def _target(spec: tf.train.ClusterSpec, i: int) -> str:
    return "grpc://" + spec.task_address("worker", i)


def _grad(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    # d/dw sum((x @ w)^2) = 2 x^T (x w)
    return 2.0 * x.T @ (x @ w)


class _Replica:
    """One worker's graph (between-graph replication), as each worker process builds it."""

    def __init__(self, spec: tf.train.ClusterSpec, i: int) -> None:
        self.graph = tf.Graph()
        with self.graph.as_default():
            setter = tf.train.replica_device_setter(
                worker_device=f"job:worker/task:{i}", cluster=spec
            )
            with tf.device(setter):
                self.gs = tf.train.get_or_create_global_step()
                self.x = tf.placeholder(tf.float32, [None, 2])
                self.w = tf.Variable(W0, name="w")
                loss = tf.reduce_sum(tf.square(tf.matmul(self.x, self.w)))
                self.opt = tf.train.SyncReplicasOptimizer(
                    tf.train.GradientDescentOptimizer(LR),
                    replicas_to_aggregate=2,
                    total_num_replicas=2,
                )
                self.train = self.opt.minimize(loss, global_step=self.gs)
                self.local_step = self.opt._local_step
                acc = self.opt._accumulator_list[0][0]
                self.num_accumulated = acc.num_accumulated()
            self.hook = self.opt.make_session_run_hook(is_chief=(i == 0))


def test_first_update_is_the_mean_of_both_workers_gradients(cluster: tf.train.ClusterSpec) -> None:
    replicas = [_Replica(cluster, i) for i in range(2)]
    r0 = replicas[0]
    assert r0.w.device == "/job:ps/task:0"
    # The local step stays on the worker (colocated with an anchor op), not on the ps.
    assert r0.local_step.device == "/job:worker/task:0"
    sessions: list[Any] = [None, None]
    created = threading.Barrier(2, timeout=60)

    def run(i: int) -> None:
        r = replicas[i]
        with r.graph.as_default():
            sessions[i] = tf.train.MonitoredTrainingSession(
                master=_target(cluster, i),
                is_chief=(i == 0),
                hooks=[r.hook],
                stop_grace_period_secs=1,
            )
            created.wait()
            sessions[i].run(r.train, {r.x: BATCHES[i]})

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(s is not None for s in sessions)
    s0 = sessions[0]
    with r0.graph.as_default():
        deadline = time.monotonic() + 30
        while s0.run(r0.gs) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert s0.run(r0.gs) == 1
        w1 = s0.run(r0.w)
        want = W0 - LR * (_grad(W0, BATCHES[0]) + _grad(W0, BATCHES[1])) / 2
        np.testing.assert_allclose(w1, want, rtol=1e-5)
        # Neither worker's gradient alone gives this update.
        for b in BATCHES:
            assert not np.allclose(w1, W0 - LR * _grad(W0, b), rtol=1e-3)

        # Worker 0's next gradient is stamped with its local step 0 (from the initial token),
        # older than the accumulators' step 1: it is dropped, and the token it gets is 1.
        assert s0.run(r0.local_step) == 0
        s0.run(r0.train, {r0.x: BATCHES[0]})
        assert s0.run(r0.num_accumulated) == 0
        assert s0.run(r0.local_step) == 1
        # Now current: this one is kept, waiting for a second replica.
        s0.run(r0.train, {r0.x: BATCHES[0]})
        assert s0.run(r0.num_accumulated) == 1
        assert s0.run(r0.gs) == 1
    for i, s in enumerate(sessions):
        with replicas[i].graph.as_default():
            s.close()


def test_sync_training_runs_to_the_last_step(cluster: tf.train.ClusterSpec) -> None:
    replicas = [_Replica(cluster, i) for i in range(2)]
    steps = [0, 0]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        r = replicas[i]
        try:
            with (
                r.graph.as_default(),
                tf.train.MonitoredTrainingSession(
                    master=_target(cluster, i),
                    is_chief=(i == 0),
                    hooks=[r.hook, tf.train.StopAtStepHook(last_step=8)],
                    stop_grace_period_secs=1,
                ) as sess,
            ):
                while not sess.should_stop():
                    sess.run(r.train, {r.x: BATCHES[i]})
                    steps[i] += 1
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)
    # Every global step took two gradients: at least 8 * 2 pushes between the workers.
    assert steps[0] + steps[1] >= 16
    assert steps[0] >= 1 and steps[1] >= 1


def test_a_blocked_dequeue_on_the_ps_is_cancelled_when_the_step_fails(
    cluster: tf.train.ClusterSpec,
) -> None:
    from tfcluster.ops.data_flow_ops import FIFOQueue

    with tf.device("/job:ps/task:0"):
        q = FIFOQueue(2, tf.float32, shapes=[[]], shared_name="blocking_q")
        deq = q.dequeue()
        enq = q.enqueue(7.0)
    with tf.device("/job:worker/task:0"):
        bad = tf.placeholder(tf.float32)
        fails = tf.reshape(bad, [3]) + deq  # the worker's part fails at run time
    with tf.Session(_target(cluster, 0)) as sess:
        t0 = time.monotonic()
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(fails, {bad: [1.0, 2.0]})
        # The ps partition, blocked on the empty queue, was aborted with the step.
        assert time.monotonic() - t0 < 10
        sess.run(enq)
        assert sess.run(deq) == 7.0
