"""Between-graph replication with MonitoredTrainingSession, as the main job runs it:
`tfcluster train` starts a ps and two worker processes; the MLP must reach > 90% held-out
accuracy on digits with both workers training, and TensorBoard's own reader must read the
scalars written during training."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]

pytest.importorskip("sklearn")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def _results(stdout: str) -> list[dict]:
    return [json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")]


def test_tfcluster_train_reaches_90_percent_on_digits_with_both_workers(
    tmp_path: os.PathLike,
) -> None:
    logdir = os.path.join(str(tmp_path), "run")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "train",
            "--last_step=1200",
            f"--logdir={logdir}",
            "--save_checkpoint_steps=300",
        ],
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert f"run folder (checkpoints, TensorBoard logs, task logs): {logdir}" in out
    chief = _results(out)[-1]
    assert chief["task_index"] == 0
    assert chief["held_out_accuracy"] > 0.90, chief
    assert chief["global_step"] >= 1200
    # The second worker's own RESULT line is in its task log.
    with open(os.path.join(logdir, "tasks", "worker-1.log")) as f:
        other = _results(f.read())[-1]
    assert other["task_index"] == 1
    # Both workers took part in the asynchronous training.
    total = chief["local_steps"] + other["local_steps"]
    assert total >= 1200
    assert other["local_steps"] >= 0.1 * total and chief["local_steps"] >= 0.1 * total
    assert "worker 0: " in out and "worker 1: " in out and "held-out accuracy: " in out
    # Checkpoints: the final one is what latest_checkpoint names.
    assert chief["latest_checkpoint"].startswith(os.path.join(logdir, "model.ckpt-"))
    assert os.path.exists(chief["latest_checkpoint"] + ".index")

    # TensorBoard's reader reads the scalars the chief wrote while training.
    acc = event_accumulator.EventAccumulator(logdir, size_guidance={"scalars": 0})
    acc.Reload()
    scalars = acc.Tags()["scalars"]
    assert {"loss", "accuracy", "global_step/sec"} <= set(scalars)
    losses = acc.Scalars("loss")
    assert len(losses) >= 10
    steps = [e.step for e in losses]
    assert steps == sorted(steps) and steps[-1] >= 1000
    first = sum(e.value for e in losses[:3]) / 3
    last = sum(e.value for e in losses[-3:]) / 3
    assert last < 0.5 * first
    assert "hidden_weights" in acc.Tags()["histograms"]


def test_tfcluster_train_usage_errors() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tfcluster.cli.tfcluster_main", "train", "--workers=0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "at least one worker" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "tfcluster.cli.tfcluster_main"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "train" in proc.stdout
