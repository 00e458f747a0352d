"""Between-graph training steps whose fetched values depend on when the parameter server runs
each node: a global step fetched beside the train op that increments it, the weights and the
loss of the same step. On a ps task TF sends what a worker or the client asks for as soon as
it can (before the updates that wait for the worker's gradients), and the increment of the
global step waits for the weight updates (apply_gradients puts it under their control
dependency). Each case starts a ps and a worker server in this process on free loopback
ports, warms the session up, then records. TF's fetch of the global step races with the
increment (its ps copies the value when the client's request comes): one run in five of
TF 1.15 here fetched a warm step's value after the increment; the data file holds the answer
the other four gave. `fn(tf) -> dict of plain values`, run on TF 1.15
by record_distributed_step_order.py and on tfcluster by
tests/unit/test_distributed_step_order.py. Python 3.7 code."""

from __future__ import annotations

import socket

import numpy as np

WARM_RUNS = 150


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _servers(tf):
    cluster = tf.train.ClusterSpec(
        {"ps": [f"localhost:{_free_port()}"], "worker": [f"localhost:{_free_port()}"]}
    )
    ps = tf.train.Server(cluster, job_name="ps", task_index=0)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    return cluster, ps, worker


def _plain(values):
    return [None if v is None else np.asarray(v).tolist() for v in values]


def _train_with_global_step(tf, make_global_step):
    tf.reset_default_graph()
    cluster, _ps, worker = _servers(tf)  # the ps serves while it is held
    device = tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster=cluster)
    with tf.device(device):
        global_step = make_global_step(tf)
        w = tf.Variable(tf.ones([3]))
        loss = tf.reduce_sum(w * w)
        train = tf.train.GradientDescentOptimizer(0.001).minimize(loss, global_step=global_step)
    out = {}
    with tf.Session(worker.target) as sess:
        sess.run(tf.global_variables_initializer())
        out["first_steps"] = [_plain(sess.run([train, loss, global_step, w])) for _ in range(3)]
        for _ in range(WARM_RUNS):
            sess.run([train, loss, global_step, w])
        out["warm_steps"] = [_plain(sess.run([train, loss, global_step, w])) for _ in range(3)]
        out["step_after"] = np.asarray(sess.run(global_step)).tolist()
    return out


def global_step_beside_train_op(tf):
    """`_, loss, step, w = sess.run([train, loss, global_step, w])` under
    replica_device_setter: the step is the global step before this step's increment, the loss
    and w the values the gradients came from."""
    return _train_with_global_step(
        tf,
        lambda tf: tf.get_variable(
            "global_step", [], initializer=tf.constant_initializer(0), trainable=False
        ),
    )


def created_global_step_beside_train_op(tf):
    """The same with tf.train.get_or_create_global_step (an int64 variable)."""
    return _train_with_global_step(tf, lambda tf: tf.train.get_or_create_global_step())


CASES = {
    "global_step_beside_train_op": global_step_beside_train_op,
    "created_global_step_beside_train_op": created_global_step_beside_train_op,
}
