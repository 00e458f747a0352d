"""Estimator train_and_evaluate with MultiWorkerMirroredStrategy over a worker-only TF_CONFIG
(TF 1.15's distribute coordinator, INDEPENDENT_WORKER mode), two local worker processes,
against TF 1.15 (tests/tf_reference/distribute_coordinator_cases.py, recorded by
record_distribute_coordinator.py): train_and_evaluate returns None, both workers train the
same synchronous steps, the chief checkpoints into model_dir and the other worker into
model_dir/tmp_worker_1, and the caller's estimator keeps its own (local) config."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
from support.ports import free_ports
from tf_reference.distribute_coordinator_cases import run_cluster

DATA = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "distribute_coordinator.json"


def test_multi_worker_mirrored_train_and_evaluate_matches_tf(tmp_path: Any) -> None:
    want = json.loads(DATA.read_text())["workers"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[2] / "server"), env.get("PYTHONPATH", "")]
    )
    got = run_cluster(sys.executable, "tfcluster", str(tmp_path), free_ports(2), env)
    for g, w in zip(got, want):
        assert g["result"] == w["result"] == "None"
        np.testing.assert_allclose(g["losses"], w["losses"], rtol=1e-5)
        assert g["checkpoints"] == w["checkpoints"]
        assert g["config_task"] == w["config_task"]
    # The chief's final variables (another worker reads whichever checkpoint the chief
    # wrote last when it looks, in TF as here).
    np.testing.assert_allclose(got[0]["w"], want[0]["w"], rtol=1e-5)
