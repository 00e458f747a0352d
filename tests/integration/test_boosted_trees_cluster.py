"""BoostedTreesClassifier trained by train_and_evaluate across a TF_CONFIG cluster of local
processes (chief, worker, ps): both workers' statistics meet in accumulators on the ps, the
chief grows the ensemble (its workers predict from a local copy reloaded every step), and the
checkpoint holds the grown trees, which predict well on the training data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import tfcluster as tf
from support import boosted_trees_cluster_program as program
from support.cluster_processes import free_ports
from tfcluster.protos import boosted_trees_pb2


def _start(task: str, cluster: dict[str, Any], model_dir: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": task, "index": 0}})
    return subprocess.Popen(
        [sys.executable, program.__file__, model_dir],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_boosted_trees_train_on_a_tf_config_cluster(tmp_path: Any) -> None:
    chief, worker, ps = free_ports(3)
    cluster = {
        "chief": [f"localhost:{chief}"],
        "worker": [f"localhost:{worker}"],
        "ps": [f"localhost:{ps}"],
    }
    model_dir = str(tmp_path / "model")
    procs = {t: _start(t, cluster, model_dir) for t in ("ps", "chief", "worker")}
    try:
        output, _ = procs["chief"].communicate(timeout=300)
        assert procs["chief"].returncode == 0, f"chief failed:\n{output[-4000:]}"
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    ensemble = boosted_trees_pb2.TreeEnsemble()
    ensemble.ParseFromString(tf.train.load_variable(model_dir, "boosted_trees:0_serialized"))
    finalized = [m.is_finalized for m in ensemble.tree_metadata]
    assert finalized[:2] == [True, True], ensemble
    features, labels = program.data()
    est = program.estimator(model_dir)
    probabilities = np.stack(
        [
            p["probabilities"][1]
            for p in est.predict(
                tf.estimator.inputs.numpy_input_fn(features, batch_size=400, shuffle=False)
            )
        ]
    )
    accuracy = np.mean((probabilities > 0.5) == (labels[:, 0] > 0.5))
    # Which shuffled batches each worker's statistics come from depends on timing: two
    # depth-2 trees land near 0.80-0.86 (0.7975 under a loaded CI machine); chance is 0.52.
    assert accuracy > 0.75, accuracy
