"""Graphs TF 1.15 wrote with v1 control flow run on a ps/worker cluster of processes: the
imported LSTM training MetaGraph placed by replica_device_setter (variables and Adam's
updates on the ps, the loops on the worker) trains with TF's losses, and a frozen nested
while loop whose nodes were scattered over both tasks runs each loop on one task."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports
from tf_reference import reference

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

FILES = os.path.join(reference.DATA_DIR, "v1_control_flow")
with open(os.path.join(reference.DATA_DIR, "v1_control_flow.json")) as _f:
    RECORDED: dict[str, Any] = json.load(_f)


def _array(recorded: dict[str, Any]) -> np.ndarray:
    return np.asarray(recorded["value"], dtype=recorded["dtype"]).reshape(recorded["shape"])


def test_imported_lstm_training_graph_trains_across_ps_and_worker(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    rec = RECORDED["lstm_train"]
    feed = {
        "x:0": _array(rec["x"]),
        "lengths:0": _array(rec["lengths"]),
        "target:0": _array(rec["target"]),
    }
    g = tf.Graph()
    with g.as_default():
        setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")
        with tf.device(setter):
            saver = tf.train.import_meta_graph(os.path.join(FILES, "lstm_train.meta"))
        kernel = g.get_tensor_by_name("rnn/lstm_cell/kernel:0")
        assert kernel.op.device.startswith("/job:ps")
        train_op = tf.get_collection(tf.GraphKeys.TRAIN_OP)[0]
        config = tf.ConfigProto(operation_timeout_in_ms=60_000)
        with tf.Session(f"grpc://localhost:{pw}", config=config) as sess:
            saver.restore(sess, os.path.join(FILES, "lstm_train"))
            losses = [sess.run(["loss:0", train_op], feed)[0] for _ in rec["losses"]]
            np.testing.assert_allclose(losses, rec["losses"], rtol=1e-5)
            reference.assert_close(sess.run(kernel), _array(rec["kernel_after"]), atol=1e-6)


def test_a_loop_scattered_over_two_tasks_runs_on_one(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    rec = RECORDED["while"]
    gd = tf.GraphDef()
    with open(os.path.join(FILES, "while.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    # Every other node on the ps: loop bodies, predicates and Exits land on both tasks.
    for k, node in enumerate(gd.node):
        node.device = "/job:ps/task:0" if k % 2 else "/job:worker/task:0"
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    config = tf.ConfigProto(operation_timeout_in_ms=60_000)
    with tf.Session(f"grpc://localhost:{pw}", graph=g, config=config) as sess:
        for run in rec["runs"]:
            got = sess.run(["i_final:0", "total:0"], {"n:0": run["n"], "v:0": _array(rec["v"])})
            reference.assert_close(got[0], _array(run["i_final"]))
            reference.assert_close(got[1], _array(run["total"]))


def test_batch_norm_saved_model_under_replica_device_setter(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    rec = RECORDED["bn_saved_model"]
    x = _array(rec["x"])
    g = tf.Graph()
    config = tf.ConfigProto(operation_timeout_in_ms=60_000)
    with g.as_default(), tf.Session(f"grpc://localhost:{pw}", config=config) as sess:
        setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")
        with tf.device(setter):
            meta = tf.saved_model.loader.load(
                sess, [tf.saved_model.tag_constants.SERVING], os.path.join(FILES, "bn_saved_model")
            )
        assert g.get_operation_by_name("batch_normalization/moving_mean").device.startswith(
            "/job:ps"
        )
        sig = meta.signature_def["serving_default"]
        x_name, training = sig.inputs["x"].name, sig.inputs["training"].name
        y = sess.run(sig.outputs["y"].name, {x_name: x})
        reference.assert_close(y, _array(rec["y_infer"]))
        sess.run("update", {x_name: x, training: True})
        moving = sess.run("batch_normalization/moving_mean:0")
        reference.assert_close(moving, _array(rec["moving_mean_after_update"]))


def test_a_dead_branch_value_bound_for_another_task_is_a_clear_error(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(2.0)
        pred = tf.placeholder(tf.bool, [], name="pred")
        with tf.device("/job:worker/task:0"):
            switch = g.create_op("Switch", [x, pred], {"T": tf.float32}, name="switch")
            taken = tf.identity(switch.outputs[1], name="taken")
        with tf.device("/job:ps/task:0"):
            neg = tf.negative(taken, name="neg")
    config = tf.ConfigProto(operation_timeout_in_ms=60_000)
    with tf.Session(f"grpc://localhost:{pw}", graph=g, config=config) as sess:
        assert sess.run(neg, {pred: True}) == -2.0
        with pytest.raises(tf.errors.UnimplementedError, match="dead tensor"):
            sess.run(neg, {pred: False})
        assert sess.run(neg, {pred: True}) == -2.0
