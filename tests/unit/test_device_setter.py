"""replica_device_setter: TF1's placement rules for between-graph replication."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf

CLUSTER = {"ps": ["h0:2222", "h1:2222"], "worker": ["h2:2222", "h3:2222"]}


def test_round_robin_variables_to_ps_and_ops_to_worker() -> None:
    with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
        v1 = tf.Variable(1.0, name="v1")
        v2 = tf.Variable(2.0, name="v2")
        v3 = tf.Variable(3.0, name="v3")
        a = v1 + v2
    assert v1.device == "/job:ps/task:0"
    assert v2.device == "/job:ps/task:1"
    assert v3.device == "/job:ps/task:0"
    assert a.device == "/job:worker"
    # The initializer and the read are colocated with the variable.
    assert v2.initializer.device == "/job:ps/task:1"
    assert v2.value().device == "/job:ps/task:1"


def test_worker_device_without_leading_slash() -> None:
    setter = tf.train.replica_device_setter(worker_device="job:worker/task:1", cluster=CLUSTER)
    with tf.device(setter):
        gs = tf.Variable(0, name="global_step", trainable=False)
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.zeros((3, 2), np.float32), name="w")
        y = tf.matmul(x, w)
    assert gs.device == "/job:ps/task:0"
    assert w.device == "/job:ps/task:1"
    assert x.device == "/job:worker/task:1"
    assert y.device == "/job:worker/task:1"


def test_explicit_devices_merge_and_override() -> None:
    setter = tf.train.replica_device_setter(ps_tasks=3, worker_device="/job:worker/task:2")
    with tf.device(setter):
        with tf.device("/job:ps/task:2"):
            pinned = tf.Variable(1.0, name="pinned")
        with tf.device("/cpu:0"):
            on_cpu = tf.constant(1.0)
        with tf.device("/job:other"):
            elsewhere = tf.Variable(1.0, name="elsewhere")
        nxt = tf.Variable(1.0, name="next")
    # The inner device is merged over the ps device; the task from the strategy is replaced
    # by the explicit one.
    assert pinned.device == "/job:ps/task:2"
    assert on_cpu.device == "/job:worker/task:2/device:CPU:0"
    # A different job keeps its own job; it takes no task from the strategy.
    assert elsewhere.device == "/job:other"
    # Round-robin went on counting every ps op: pinned took 0, elsewhere was not counted.
    assert nxt.device == "/job:ps/task:1"


def test_merge_devices_false_keeps_existing_device() -> None:
    setter = tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)
    with tf.device(setter):
        with tf.device("/job:foo/task:3"):
            a = tf.constant(1.0)
        b = tf.constant(2.0)
    assert a.device == "/job:foo/task:3"
    assert b.device == "/job:worker"


def test_custom_ps_device_and_ps_ops() -> None:
    setter = tf.train.replica_device_setter(
        ps_tasks=2, ps_device="/job:params", ps_ops=["VariableV2", "Const"]
    )
    with tf.device(setter):
        c1 = tf.constant(1.0)
        c2 = tf.constant(2.0)
        p = tf.placeholder(tf.float32)
    assert c1.device == "/job:params/task:0"
    assert c2.device == "/job:params/task:1"
    assert p.device == "/job:worker"


def test_no_ps_job_means_no_device_function() -> None:
    assert tf.train.replica_device_setter(cluster={"worker": ["a:1"]}) is None
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)  # type: ignore[arg-type]


def test_greedy_load_balancing_by_bytes() -> None:
    strategy = tf.train.GreedyLoadBalancingStrategy(2, tf.train.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        big = tf.Variable(np.zeros((100, 10), np.float32), name="big")  # 4000 bytes -> ps 0
        small1 = tf.Variable(np.zeros(10, np.float32), name="small1")  # -> ps 1 (40 bytes)
        small2 = tf.Variable(np.zeros(10, np.float64), name="small2")  # -> ps 1 (80 bytes)
        medium = tf.Variable(np.zeros((50, 10), np.float32), name="medium")  # -> ps 1
        last = tf.Variable(np.zeros(10, np.float32), name="last")  # 4000 vs 2120 -> ps 1
    assert [v.device for v in (big, small1, small2, medium, last)] == [
        "/job:ps/task:0",
        "/job:ps/task:1",
        "/job:ps/task:1",
        "/job:ps/task:1",
        "/job:ps/task:1",
    ]
    np.testing.assert_array_equal(strategy._ps_loads, [4000, 40 + 80 + 2000 + 40])


def test_byte_size_load_fn_rejects_multi_output_ops() -> None:
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="single output"):
        tf.train.byte_size_load_fn(tf.no_op())
    assert tf.train.byte_size_load_fn(x.op) == 8


def test_cluster_spec_object_is_accepted() -> None:
    class Spec:
        def as_dict(self) -> dict:
            return {"ps": ["a:1", "b:1", "c:1"], "worker": ["d:1"]}

    with tf.device(tf.train.replica_device_setter(cluster=Spec())):
        vs = [tf.Variable(float(i)) for i in range(4)]
    assert [v.device for v in vs] == [
        "/job:ps/task:0",
        "/job:ps/task:1",
        "/job:ps/task:2",
        "/job:ps/task:0",
    ]
