"""SyncReplicasOptimizer with an embedding (ps + 2 workers, gRPC servers in this process): the
gather's IndexedSlices gradients are aggregated by a SparseConditionalAccumulator on the ps,
as in TF 1.15: each row is averaged over the workers whose gradient had it, and only the
looked-up rows move."""

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

EMB0 = np.arange(20, dtype=np.float32).reshape(10, 2) / 10.0
IDS = [np.array([1, 3], np.int32), np.array([3, 5], np.int32)]
SCALE = [np.float32(1.0), np.float32(3.0)]  # d loss / d row, per worker
LR = 0.5


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


class _Replica:
    def __init__(self, spec: tf.train.ClusterSpec, i: int) -> None:
        self.graph = tf.Graph()
        with self.graph.as_default():
            setter = tf.train.replica_device_setter(
                worker_device=f"job:worker/task:{i}", cluster=spec
            )
            with tf.device(setter):
                self.gs = tf.train.get_or_create_global_step()
                self.emb = tf.Variable(EMB0, name="emb")
                self.ids = tf.placeholder(tf.int32, [None])
                rows = tf.nn.embedding_lookup(self.emb, self.ids)
                loss = tf.reduce_sum(rows) * SCALE[i]
                self.opt = tf.train.SyncReplicasOptimizer(
                    tf.train.GradientDescentOptimizer(LR),
                    replicas_to_aggregate=2,
                    total_num_replicas=2,
                )
                self.train = self.opt.minimize(loss, global_step=self.gs)
            self.hook = self.opt.make_session_run_hook(is_chief=(i == 0))


def test_rows_are_averaged_over_the_workers_that_looked_them_up(
    cluster: tf.train.ClusterSpec,
) -> None:
    replicas = [_Replica(cluster, i) for i in range(2)]
    accumulator = replicas[0].opt._accumulator_list[0][0]
    assert isinstance(accumulator, tf.SparseConditionalAccumulator)
    assert accumulator.accumulator_ref.device == "/job:ps/task:0"
    sessions: list[Any] = [None, None]
    created = threading.Barrier(2, timeout=60)

    def run(i: int) -> None:
        r = replicas[i]
        with r.graph.as_default():
            sessions[i] = tf.train.MonitoredTrainingSession(
                master="grpc://" + cluster.task_address("worker", i),
                is_chief=(i == 0),
                hooks=[r.hook],
                stop_grace_period_secs=1,
            )
            created.wait()
            sessions[i].run(r.train, {r.ids: IDS[i]})

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    r0, s0 = replicas[0], sessions[0]
    with r0.graph.as_default():
        deadline = time.monotonic() + 30
        while s0.run(r0.gs) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert s0.run(r0.gs) == 1
        emb = s0.run(r0.emb)
    want = EMB0.copy()
    want[1] -= LR * SCALE[0]  # only worker 0 looked row 1 up: not halved
    want[5] -= LR * SCALE[1]
    want[3] -= LR * (SCALE[0] + SCALE[1]) / 2
    np.testing.assert_allclose(emb, want, rtol=1e-6)
    for i, s in enumerate(sessions):
        with replicas[i].graph.as_default():
            s.close()
