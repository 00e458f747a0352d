"""A worker that refuses a step's RunGraph (a graph it does not know, after a restart; feeds
that do not fit) aborts the step there: what the step's other partitions wait to receive
from it fails at once, instead of after the orphan timeout. A master that sends RunGraph from
its own thread (rpc PipelinedWorker) reads that answer only after its own partition: the
abort is what wakes that partition."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tfcluster.distributed.worker import Worker
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.partition import Partition

PS = "/job:ps/replica:0/task:0"
WORKER = "/job:worker/replica:0/task:0"
KEY = rdv.make_key(f"{PS}/device:CPU:0", f"{WORKER}/device:CPU:0", "rows:0")


def test_a_receiver_waiting_on_an_unknown_graphs_step_fails_at_once() -> None:
    ps = Worker(PS)
    got: list[Any] = []
    ps.recv_tensor(41, KEY, lambda v, e: got.append(e))
    assert got == []  # waits: the step has not run here yet
    with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found"):
        ps.run_graph("session", "00000000ffffffff", 41, [])
    assert len(got) == 1 and isinstance(got[0], tf.errors.AbortedError)
    assert "Graph handle is not found" in got[0].message
    # A receiver that comes later is answered at once too, and nothing is left behind.
    late: list[Any] = []
    ps.recv_tensor(41, KEY, lambda v, e: late.append(e))
    assert isinstance(late[0], tf.errors.AbortedError)
    assert ps.wait_idle(1.0)


def test_a_step_with_the_wrong_number_of_feeds_fails_its_receivers() -> None:
    ps = Worker(PS)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.identity(x, name="y")
    part = Partition(
        PS, [node_from_operation(x.op), node_from_operation(y.op)], [x.name], [y.name], []
    )
    handle = ps.register_graph("session", part)
    got: list[Any] = []
    ps.recv_tensor(42, KEY, lambda v, e: got.append(e))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected 1 feeds, got 0"):
        ps.run_graph("session", handle, 42, [])
    assert isinstance(got[0], tf.errors.InvalidArgumentError)
    # The worker goes on serving other steps.
    assert ps.run_graph("session", handle, 43, [1.5]).fetches == [1.5]
