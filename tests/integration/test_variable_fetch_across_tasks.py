"""A variable fetched from another task in the step that updates it reads as TensorFlow's
distributed runtime most often reads it: TF copies the value when it sends it, and sends as
soon as it can. So an update that waits for a value from another task (a gradient, as in every
between-graph training step: `_, step = sess.run([train_op, global_step])`) mostly comes after
the fetched value is sent, while an update that needs nothing from elsewhere races with it.
TensorFlow 1.15 on an in-process ps + worker cluster gives, run to run, [0, 2, 4, 6] most
often for the first program (sometimes a later value shows, e.g. [0, 4, 6, 6]) and anything
between [0, 1, 2, 3] and [1, 2, 3, 4] for the second; tfcluster reads the fetched variable
when the step first waits for another task (or at its end), so it gives one of those answers
every time: TF's usual one for the waiting update."""

from __future__ import annotations

import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def test_fetched_variable_is_read_as_tensorflow_sends_it(cluster: Cluster) -> None:
    ps_port, worker_port = free_ports(2)
    cluster.start({"ps": [ps_port], "worker": [worker_port]})
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:0"):
            p = tf.placeholder(tf.int32, [])
            doubled = p * 2
        with tf.device("/job:ps/task:0"):
            waits = tf.Variable(0, name="waits")
            waiting_update = tf.assign_add(waits, doubled)
            at_once = tf.Variable(0, name="at_once")
            immediate_update = tf.assign_add(at_once, 1)
        with tf.Session(cluster.task("worker", 0).target) as sess:
            sess.run(tf.global_variables_initializer())
            before = [int(sess.run([waiting_update, waits], {p: 1})[1]) for _ in range(4)]
            after = [int(sess.run([immediate_update, at_once])[1]) for _ in range(4)]
            # Either way the variable holds every update once the step is done.
            final = sess.run([waits, at_once])
    assert before == [0, 2, 4, 6]
    assert after == [1, 2, 3, 4]
    assert [int(v) for v in final] == [8, 4]
