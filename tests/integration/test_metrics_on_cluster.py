"""tf.metrics and tf.losses on a cluster of task server processes, through grpc:// sessions.

Under tf.train.replica_device_setter TF 1.15 places a metric's local variables as it places
any variable: on the ps tasks, round robin with the model's variables (recorded from TF in
tf_reference/data/metrics.json, case placement_under_replica_device_setter); the update ops
that add to them go with them, the value and update_op computations stay on the worker.
A metric's state therefore lives on the ps, and two workers that build the same metric (same
names) share it, as in TF. The values read through the cluster are those of a local session.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, cluster_flag, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

RNG = np.random.RandomState(3)
X = RNG.normal(size=(48, 4)).astype(np.float32)
Y = (X @ np.array([1.0, -1.0, 0.5, 2.0], np.float32) > 0).astype(np.int64)


def _build(cluster_spec: Any) -> dict[str, Any]:
    """A softmax classifier, its loss and four metrics, as a between-graph TF1 program (on
    one process when cluster_spec is None)."""
    g = tf.Graph()
    with g.as_default():
        setter = None
        if cluster_spec is not None:
            setter = tf.train.replica_device_setter(
                cluster=cluster_spec, worker_device="/job:worker/task:0"
            )
        with tf.device(setter):
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.placeholder(tf.int64, [None], name="y")
            w = tf.get_variable("w", [4, 2], initializer=tf.constant_initializer(0.1))
            logits = tf.matmul(x, w)
            loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
            pred = tf.argmax(logits, 1)
            metrics = {
                "accuracy": tf.metrics.accuracy(y, pred),
                "auc": tf.metrics.auc(y, tf.nn.softmax(logits)[:, 1], num_thresholds=11),
                "mean_iou": tf.metrics.mean_iou(y, pred, num_classes=2),
                "precision": tf.metrics.precision(y, pred),
            }
        return {
            "graph": g,
            "x": x,
            "y": y,
            "loss": loss,
            "train": train,
            "metrics": metrics,
            "init": [tf.global_variables_initializer(), tf.local_variables_initializer()],
            "local_init": tf.local_variables_initializer(),
        }


def _train_and_evaluate(model: dict[str, Any], target: str) -> dict[str, Any]:
    with model["graph"].as_default(), tf.Session(target) as sess:
        sess.run(model["init"])
        losses = [
            sess.run([model["loss"], model["train"]], {model["x"]: X, model["y"]: Y})[0]
            for _ in range(5)
        ]
        updates = {k: v[1] for k, v in model["metrics"].items()}
        values = {k: v[0] for k, v in model["metrics"].items()}
        streamed = []
        for lo in range(0, 48, 16):
            feed = {model["x"]: X[lo : lo + 16], model["y"]: Y[lo : lo + 16]}
            streamed.append(sess.run(updates, feed))
        final = sess.run(values)
        again = sess.run(values)  # reading does not update
        sess.run(model["local_init"])
        reset = sess.run(values)
    return {"losses": losses, "streamed": streamed, "final": final, "again": again, "reset": reset}


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_metrics_on_ps_tasks_stream_through_a_grpc_session(cluster: Cluster) -> None:
    ps0, ps1, worker = free_ports(3)
    jobs = {"ps": [ps0, ps1], "worker": [worker]}
    cluster.start(jobs)
    spec = tf.train.ClusterSpec({j: [f"localhost:{p}" for p in ps] for j, ps in jobs.items()})
    model = _build(spec)

    # Placed as TF 1.15 places them: round robin over the ps tasks after the model's w.
    local_devices = {v.op.name: v.device for v in model["graph"].get_collection("local_variables")}
    assert local_devices == {
        "accuracy/total": "/job:ps/task:1",
        "accuracy/count": "/job:ps/task:0",
        "auc/true_positives": "/job:ps/task:1",
        "auc/false_negatives": "/job:ps/task:0",
        "auc/true_negatives": "/job:ps/task:1",
        "auc/false_positives": "/job:ps/task:0",
        "mean_iou/total_confusion_matrix": "/job:ps/task:1",
        "precision/true_positives/count": "/job:ps/task:0",
        "precision/false_positives/count": "/job:ps/task:1",
    }
    g = model["graph"]
    assert g.get_operation_by_name("accuracy/AssignAdd").device == "/job:ps/task:1"
    assert g.get_operation_by_name("accuracy/update_op").device == "/job:worker/task:0"
    assert g.get_operation_by_name("accuracy/value").device == "/job:worker/task:0"

    remote = _train_and_evaluate(model, cluster.task("worker", 0).target)
    local = _train_and_evaluate(_build(None), "")  # the same program in-process
    _same(remote, local)
    # Each update_op returned the metric with its batch counted; the reads after the last
    # one agree with it and with each other; local_variables_initializer zeroed them.
    for k in ("accuracy", "auc", "precision"):
        assert remote["final"][k] == pytest.approx(remote["streamed"][-1][k])
    _same(remote["final"], remote["again"])
    assert remote["reset"]["accuracy"] == 0.0 and remote["reset"]["mean_iou"] == 0.0
    # The streamed accuracy is that of the trained model over all 48 examples.
    assert 0.5 < remote["final"]["accuracy"] <= 1.0


def test_two_workers_building_the_same_metric_share_its_variables(cluster: Cluster) -> None:
    """Between-graph replication: each worker's graph has accuracy/total and accuracy/count on
    the same ps task, so their updates add up in one pair of variables (TF's behaviour)."""
    ps, w0, w1 = free_ports(3)
    jobs = {"ps": [ps], "worker": [w0, w1]}
    cluster.start(jobs)
    spec = tf.train.ClusterSpec(
        {"ps": [f"localhost:{ps}"], "worker": [f"localhost:{w0}", f"localhost:{w1}"]}
    )
    results = []
    for index, labels, preds in ((0, [1, 1, 0, 0], [1, 0, 0, 0]), (1, [2, 2], [2, 2])):
        g = tf.Graph()
        with g.as_default():
            with tf.device(
                tf.train.replica_device_setter(
                    cluster=spec, worker_device=f"/job:worker/task:{index}"
                )
            ):
                value, update = tf.metrics.accuracy(labels, preds)
            with tf.Session(cluster.task("worker", index).target) as sess:
                if index == 0:
                    sess.run(tf.local_variables_initializer())
                results.append(sess.run(update))
                results.append(sess.run(value))
    assert results == [0.75, 0.75, pytest.approx(5 / 6), pytest.approx(5 / 6)]
    assert cluster_flag(jobs).startswith("ps|")
