"""A dependency cycle that runs through two tasks (no task's executor can see it) is refused
by the master with InvalidArgumentError naming its nodes, before any task waits on it; the
session keeps working for steps without the cycle."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def test_a_cycle_through_two_tasks_is_an_invalid_argument_naming_its_nodes(
    cluster: Cluster,
) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0, name="x")
        with tf.device("/job:worker/task:0"):
            a = tf.identity(x, name="on_worker")
        with tf.device("/job:ps/task:0"):
            b = tf.identity(a, name="on_ps")
        a.op._add_control_input(b.op)  # on_worker waits for on_ps, which waits for it
        fine = tf.add(x, 1.0, name="fine")
    config = tf.ConfigProto(operation_timeout_in_ms=20_000)
    with tf.Session(f"grpc://localhost:{pw}", graph=g, config=config) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(b)
        message = info.value.message
        assert "cycle with 2 nodes" in message and "on_worker" in message and "on_ps" in message
        np.testing.assert_allclose(sess.run(fine), 2.0)
