"""Supervisor-based between-graph replication on a real local cluster (1 ps + 2 workers, task
servers as processes; each worker's program is its own process, support/supervisor_replica):
the second worker starts first and waits until the chief has initialised the model, both
train it, the chief writes its checkpoint and event file; after the ps restarts (all its
variables gone) a new chief restores the latest checkpoint and goes on from its step."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time

import pytest
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Replica:
    def __init__(self, args: list[str], index: int, target: str, log_path: str) -> None:
        self.log_path = log_path
        log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - owned by the process
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([TESTS, env.get("PYTHONPATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "support.supervisor_replica",
                *args,
                f"--task_index={index}",
                f"--target={target}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )

    def output(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_for(self, text: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.output():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not in the replica's output:\n{self.output()[-3000:]}")

    def result(self, timeout: float) -> dict:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        out = self.output()
        assert self.proc.returncode == 0, out[-3000:]
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert lines, out[-3000:]
        return dict(json.loads(lines[-1][7:]))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def _events(logdir: str) -> list[object]:
    import tfcluster as tf

    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(tf.train.summary_iterator(path))
    return out


def test_chief_initialises_worker_waits_and_a_restarted_chief_restores(
    cluster: Cluster, tmp_path: os.PathLike
) -> None:
    logdir = os.path.join(str(tmp_path), "train")
    ps_port, w0_port, w1_port = free_ports(3)
    cluster.start({"ps": [ps_port], "worker": [w0_port, w1_port]})
    args = [
        f"--ps_hosts=localhost:{ps_port}",
        f"--worker_hosts=localhost:{w0_port},localhost:{w1_port}",
        f"--logdir={logdir}",
        "--train_steps=300",
    ]
    replicas: list[Replica] = []
    try:
        worker = Replica(args, 1, f"grpc://localhost:{w1_port}", str(tmp_path / "w1.log"))
        replicas.append(worker)
        # With no chief yet, the worker polls: the model stays uninitialised.
        worker.wait_for("Waiting for model to be ready", timeout=90)
        assert "READY" not in worker.output()
        chief = Replica(args, 0, f"grpc://localhost:{w0_port}", str(tmp_path / "w0.log"))
        replicas.append(chief)
        chief_result = chief.result(timeout=150)
        worker_result = worker.result(timeout=60)
    finally:
        for r in replicas:
            r.stop()

    # (The worker may step as soon as the chief's init op ran, before the chief reads the step.)
    assert 0 <= chief_result["start_step"] < 300 and 0 <= worker_result["start_step"] < 300
    assert chief_result["local_steps"] > 0 and worker_result["local_steps"] > 0
    assert chief_result["saved_step"] >= 300
    assert chief_result["final_loss"] < 0.05
    saved = chief_result["saved"]
    assert os.path.basename(saved) == f"model.ckpt-{chief_result['saved_step']}"
    assert os.path.exists(saved + ".index") and os.path.exists(saved + ".meta")
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    # Only the chief writes events: the graph, its services' summaries, START and STOP.
    events = _events(logdir)
    kinds = {e.WhichOneof("what") for e in events}
    assert {"file_version", "graph_def", "meta_graph_def", "session_log", "summary"} <= kinds
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {"train_loss", "w_norm", "global_step/sec"} <= tags
    statuses = [e.session_log.status for e in events if e.HasField("session_log")]
    assert statuses[0] == 1 and statuses[-1] == 2  # START ... STOP

    # The ps restarts: every variable is gone; a new chief restores the checkpoint.
    cluster.task("ps", 0).kill()
    cluster.tasks.remove(cluster.task("ps", 0))
    from support.cluster_processes import TaskProcess, cluster_flag

    flag = cluster_flag({"ps": [ps_port], "worker": [w0_port, w1_port]})
    cluster.add(TaskProcess(flag, "ps", 0, ps_port)).wait_serving()
    args[-1] = f"--train_steps={chief_result['saved_step'] + 20}"
    again = Replica(args, 0, f"grpc://localhost:{w0_port}", str(tmp_path / "w0-again.log"))
    try:
        restored = again.result(timeout=150)
    finally:
        again.stop()
    assert restored["start_step"] == chief_result["saved_step"]
    assert restored["start_w"] == pytest.approx(chief_result["saved_w"], rel=1e-6)
    assert restored["saved_step"] >= chief_result["saved_step"] + 20
    assert "Restoring parameters from" in again.output()
