"""Session tensor handles through a grpc:// session on a two-task cluster: the tensor stays
in the state of the task that made it (the handle names its device) and is read there."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import free_ports


@pytest.fixture
def cluster() -> Iterator[tf.train.ClusterSpec]:
    p = free_ports(2)
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p[0]}", f"localhost:{p[1]}"]})
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(2)]
    try:
        yield servers[0].target
    finally:
        for s in servers:
            s.stop(grace=0.5)


def test_a_handle_made_on_another_task_is_read_there(cluster: str) -> None:
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            data = tf.constant([1.0, 2.0, 3.0]) * 2.0
        h = tf.get_session_handle(data)
        with tf.Session(cluster) as sess:
            hv = sess.run(h)
            assert hv.handle.endswith(";/job:worker/replica:0/task:1/device:CPU:0")
            np.testing.assert_array_equal(hv.eval(), [2.0, 4.0, 6.0])
            p, x = tf.get_session_tensor(hv.handle, tf.float32)
            assert p.device == "/job:worker/replica:0/task:1/device:CPU:0"
            with tf.device("/job:worker/task:0"):
                y = x + 1.0
            np.testing.assert_array_equal(sess.run(y, feed_dict={p: hv.handle}), [3.0, 5.0, 7.0])
            hv.delete()
            with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
                sess.run(y, feed_dict={p: hv.handle})
            # The session keeps working after the error.
            assert sess.run(h).handle != hv.handle
