"""train_and_evaluate across a TF_CONFIG cluster of local processes (chief, worker, ps and
evaluator), as the operator runs it: training reaches max_steps with variables on the ps,
the chief writes checkpoints, graph.pbtxt and summaries into model_dir, and the evaluator
evaluates checkpoints until the last one, whose evaluation makes the final export."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from typing import Any

from support.cluster_processes import free_ports

PROGRAM = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "support", "estimator_cluster_program.py"
)


def _start(task: str, cluster: dict[str, Any], model_dir: str, out: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": task, "index": 0}})
    return subprocess.Popen(
        [sys.executable, PROGRAM, model_dir, out],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_train_and_evaluate_on_a_tf_config_cluster(tmp_path: Any) -> None:
    chief, worker, ps = free_ports(3)
    cluster = {
        "chief": [f"localhost:{chief}"],
        "worker": [f"localhost:{worker}"],
        "ps": [f"localhost:{ps}"],
    }
    model_dir = str(tmp_path / "model")
    out = str(tmp_path / "metrics.json")
    procs = {t: _start(t, cluster, model_dir, out) for t in ("ps", "chief", "worker", "evaluator")}
    try:
        for task in ("chief", "worker", "evaluator"):
            output, _ = procs[task].communicate(timeout=240)
            assert procs[task].returncode == 0, f"{task} failed:\n{output[-4000:]}"
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    with open(out) as f:
        metrics = json.load(f)
    assert metrics["global_step"] >= 40
    assert 0.0 <= metrics["accuracy"] <= 1.0 and metrics["loss"] > 0
    files = os.listdir(model_dir)
    assert "checkpoint" in files and "graph.pbtxt" in files
    assert glob.glob(os.path.join(model_dir, "model.ckpt-*.index"))
    assert glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))
    assert glob.glob(os.path.join(model_dir, "eval", "events.out.tfevents.*"))
    exports = glob.glob(os.path.join(model_dir, "export", "final", "*", "saved_model.pb"))
    assert len(exports) == 1, exports
    assert os.path.isfile(os.path.join(os.path.dirname(exports[0]), "variables", "variables.index"))
