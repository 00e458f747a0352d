"""Between-graph SyncReplicasOptimizer on a real local cluster (1 ps + 2 workers as task server
processes; each worker's program is its own process, support/sync_replicas_replica), as TF1's
distributed MNIST program runs it: under tf.train.Supervisor (the chief runs the init tokens
and starts the chief queue runner) and under MonitoredTrainingSession with the optimizer's
hook. The second worker starts first and waits for the chief; then both workers' steps
progress, and the global step advances at most once per two gradients (replicas_to_aggregate)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_STEPS = 300


class Replica:
    """One worker's program, its output in a file."""

    def __init__(self, args: list[str], index: int, port: int, log_path: str) -> None:
        self.log_path = log_path
        log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - owned by the process
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([TESTS, env.get("PYTHONPATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "support.sync_replicas_replica",
                *args,
                f"--task_index={index}",
                f"--target=grpc://localhost:{port}",
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
            raise AssertionError(
                f"the replica did not finish in {timeout}s:\n{self.output()[-3000:]}"
            ) from None
        out = self.output()
        assert self.proc.returncode == 0, out[-3000:]
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert lines, out[-3000:]
        return dict(json.loads(lines[-1][7:]))

    def global_steps_seen(self) -> list[int]:
        return [int(ln.split()[2]) for ln in self.output().splitlines() if ln.startswith("STEP ")]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.mark.parametrize("session", ["supervisor", "monitored"])
def test_both_workers_step_and_the_global_step_needs_two_gradients(
    cluster: Cluster, tmp_path: os.PathLike, session: str
) -> None:
    ps_port, w0_port, w1_port = free_ports(3)
    cluster.start({"ps": [ps_port], "worker": [w0_port, w1_port]})
    args = [
        f"--ps_hosts=localhost:{ps_port}",
        f"--worker_hosts=localhost:{w0_port},localhost:{w1_port}",
        f"--logdir={tmp_path}/train",
        f"--train_steps={TRAIN_STEPS}",
        f"--session={session}",
    ]
    replicas: list[Replica] = []
    try:
        worker = Replica(args, 1, w1_port, f"{tmp_path}/w1.log")
        replicas.append(worker)
        # No chief yet: the worker polls, the model stays uninitialised.
        worker.wait_for("Waiting for model to be ready", timeout=90)
        start_gate = f"{tmp_path}/worker_ready"
        chief = Replica([*args, f"--start_after={start_gate}"], 0, w0_port, f"{tmp_path}/w0.log")
        replicas.append(chief)
        # The chief alone may push both gradients of each step; it trains once the other
        # worker's session is ready (a MonitoredTrainingSession worker polls every 30 s).
        worker.wait_for("READY", timeout=120)
        open(start_gate, "w").close()
        chief_result = chief.result(timeout=150)
        worker_result = worker.result(timeout=60)
    finally:
        for r in replicas:
            r.stop()

    # Both reach the last step, each having trained on its own.
    assert chief_result["last_step"] >= TRAIN_STEPS - 1
    assert worker_result["last_step"] >= TRAIN_STEPS - 1
    assert chief_result["local_steps"] > 0
    assert worker_result["local_steps"] >= 10, worker.output()[-3000:]
    # The second worker's steps see the global step move on (it gets tokens, step after step).
    seen = worker.global_steps_seen()
    assert seen == sorted(seen) and seen[-1] > seen[0]
    # Each update takes two gradients (stale ones are dropped): never more updates than
    # half the gradients pushed (plus the step the last token was read at).
    pushed = chief_result["local_steps"] + worker_result["local_steps"]
    assert max(chief_result["last_step"], worker_result["last_step"]) <= pushed // 2 + 1
