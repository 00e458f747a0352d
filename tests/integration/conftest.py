"""Integration fixtures: task servers on loopback (real processes, or servers of this
process), always cleaned up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def worker_and_two_ps() -> Iterator[dict[str, tf.train.Server]]:
    """A worker and two ps tasks, each a server of this process ("worker", "ps0", "ps1")."""
    w, p0, p1 = free_ports(3)
    spec = tf.train.ClusterSpec(
        {"worker": [f"localhost:{w}"], "ps": [f"localhost:{p0}", f"localhost:{p1}"]}
    )
    made = {
        "worker": tf.train.Server(spec, job_name="worker", task_index=0),
        "ps0": tf.train.Server(spec, job_name="ps", task_index=0),
        "ps1": tf.train.Server(spec, job_name="ps", task_index=1),
    }
    try:
        yield made
    finally:
        for server in made.values():
            server.stop()
