"""Checkpoints of variables spread over ps tasks: a sharded Saver writes one shard per ps
(TF's layout), from the client; the files are those a one-process run writes for the same
values, restore onto the tasks, and a SavedModel exported from the cluster serves locally."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports
from tfcluster.framework.tensor_bundle import bundle

pytestmark = pytest.mark.integration


def _model(cluster_spec: tf.train.ClusterSpec | None) -> dict[str, object]:
    setter = (
        tf.train.replica_device_setter(ps_tasks=2, cluster=cluster_spec)
        if cluster_spec is not None
        else None
    )
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
        b = tf.Variable(np.full(4, 0.5, np.float32), name="b")
        step = tf.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
    return {"x": x, "w": w, "b": b, "step": step, "y": y}


def test_sharded_checkpoints_of_ps_variables_are_written_by_the_client(
    cluster: Cluster, tmp_path: os.PathLike
) -> None:
    ports = free_ports(3)
    cluster.start({"worker": ports[:1], "ps": ports[1:]})
    spec = tf.train.ClusterSpec(
        {"worker": [f"localhost:{ports[0]}"], "ps": [f"localhost:{p}" for p in ports[1:]]}
    )
    d = str(tmp_path)
    os.makedirs(os.path.join(d, "dist"))
    m = _model(spec)
    devices = {v.op.name: v.device for v in tf.global_variables()}
    assert {devices["w"], devices["b"]} == {"/job:ps/task:0", "/job:ps/task:1"}
    saver = tf.train.Saver(sharded=True)
    target = cluster.task("worker", 0).target
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(m["step"].assign(9))  # type: ignore[attr-defined]
        path = saver.save(sess, os.path.join(d, "dist", "model"), global_step=m["step"])
        assert path == os.path.join(d, "dist", "model-9")
        assert sorted(f for f in os.listdir(os.path.join(d, "dist")) if ".data-" in f) == [
            "model-9.data-00000-of-00002",
            "model-9.data-00001-of-00002",
        ]
        sess.run(m["w"].assign(tf.zeros([3, 4])))  # type: ignore[attr-defined]
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(m["w"]), np.arange(12).reshape(3, 4))
        builder = tf.saved_model.builder.SavedModelBuilder(os.path.join(d, "export"))
        builder.add_meta_graph_and_variables(
            sess,
            ["serve"],
            {"serving_default": tf.saved_model.predict_signature_def({"x": m["x"]}, {"y": m["y"]})},
            clear_devices=True,
        )
        builder.save()

    # TF's layout: one shard per ps, devices in sorted order, each shard's tensors sorted by
    # name; the bytes are those of the bundle written directly with that grouping.
    values = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.full(4, 0.5, np.float32)}
    values["global_step"] = np.array(9, np.int64)
    shards = [
        [bundle.TensorToSave(k, values[k]) for k in sorted(values) if devices[k] == device]
        for device in sorted(set(devices.values()))
    ]
    local_path = os.path.join(d, "direct")
    bundle.write_bundle(local_path, shards)
    for suffix in (".index", ".data-00000-of-00002", ".data-00001-of-00002"):
        with open(path + suffix, "rb") as a, open(local_path + suffix, "rb") as b:
            assert a.read() == b.read(), suffix

    # The cluster's SavedModel serves in a plain local session.
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = tf.saved_model.loader.load(sess, ["serve"], os.path.join(d, "export"))
        sig = mgd.signature_def["serving_default"]
        out = sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: [[1.0, 0.0, 0.0]]})
        np.testing.assert_array_equal(out, [[0.5, 1.5, 2.5, 3.5]])
