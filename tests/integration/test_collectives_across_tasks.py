"""Collective ops between worker processes (real task servers on loopback): all-reduce,
all-gather and broadcast give what TF 1.15 gives (the programs of
tests/tf_reference/collectives_cases.py, recorded by record_collectives.py), and
MultiWorkerMirroredStrategy trains three workers, each its own process's session, to TF
1.15's losses with TF's collective ops in each graph. A member left alone fails with the
session's timeout, and a group leader that dies fails its members with UnavailableError."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports
from tf_reference import reference
from tf_reference.collectives_cases import CASES, N_TASKS
from tf_reference.collectives_cases import Cluster as CaseCluster
from tfcluster.ops import collective_ops


@pytest.fixture(scope="module")
def workers() -> Iterator[CaseCluster]:
    ports = free_ports(N_TASKS)
    cluster = Cluster()
    try:
        cluster.start({"worker": ports})
        yield CaseCluster(
            [f"grpc://localhost:{p}" for p in ports],
            {"worker": [f"localhost:{p}" for p in ports]},
        )
    finally:
        cluster.close()


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, list) and recorded and isinstance(recorded[0], (list, np.ndarray)):
        assert len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        got = np.asarray(got)
        assert got.dtype == recorded.dtype, where
        reference.assert_close(got, recorded, rtol=2e-5, atol=1e-5)
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str, workers: CaseCluster) -> None:
    tf.reset_default_graph()
    _assert_same(CASES[name](tf, workers), reference.case("collectives", name), name)


def test_a_member_left_alone_fails_with_the_session_timeout(workers: CaseCluster) -> None:
    with tf.Graph().as_default():
        with tf.device(workers.device(1)):
            lone = collective_ops.all_reduce(tf.constant([1.0]), 2, 31, 1, "Add", "Id", [0])
        config = tf.ConfigProto(operation_timeout_in_ms=1500)
        with tf.Session(workers.targets[1], config=config) as sess:
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(lone)
            assert time.monotonic() - start < 30
    # The lone part was taken back: the group meets cleanly afterwards.
    with tf.Graph().as_default():
        outs = []
        for i in (1, 2):
            with tf.device(workers.device(i)):
                outs.append(
                    collective_ops.all_reduce(tf.constant([float(i)]), 2, 31, 1, "Add", "Id", [0])
                )
        with tf.Session(workers.targets[1]) as sess:
            assert [float(v[0]) for v in sess.run(outs)] == [3.0, 3.0]


def test_members_of_a_dead_leader_fail_with_unavailable() -> None:
    ports = free_ports(2)
    cluster = Cluster()
    try:
        cluster.start({"worker": ports})
        errors: list[BaseException] = []

        def member() -> None:
            with tf.Graph().as_default():
                with tf.device("/job:worker/task:1"):
                    out = collective_ops.all_reduce(tf.constant([1.0]), 2, 32, 1, "Add", "Id", [0])
                config = tf.ConfigProto(device_filters=["/job:worker/task:1"])
                with tf.Session(f"grpc://localhost:{ports[1]}", config=config) as sess:
                    try:
                        sess.run(out)
                    except tf.errors.OpError as e:
                        errors.append(e)

        t = threading.Thread(target=member)
        t.start()
        time.sleep(1.5)  # the member waits at the leader (worker 0)
        cluster.task("worker", 0).kill()
        t.join(60)
        assert not t.is_alive(), "the member hangs after its group leader died"
        assert errors and isinstance(errors[0], tf.errors.UnavailableError), errors
    finally:
        cluster.close()
