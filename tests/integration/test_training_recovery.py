"""The ps dies mid-training and comes back: training finishes from the last checkpoint with no
help from the user's code (the example's loop is just `while not sess.should_stop(): run`).

Three processes run tfcluster.examples.digits_distributed (ps, chief, second worker). Once a
checkpoint exists the ps is SIGKILLed (all variables lost) and a new ps starts on the same
port. The workers' MonitoredTrainingSessions see UnavailableError/AbortedError, make new
sessions, the chief restores the latest checkpoint, and both go on to the last step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from support.cluster_processes import free_ports

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]

pytest.importorskip("sklearn")

LAST_STEP = 2400


def _start(args: list[str], job: str, index: int, log_path: str) -> subprocess.Popen[str]:
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - owned by the process
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tfcluster.examples.digits_distributed",
            *args,
            f"--job_name={job}",
            f"--task_index={index}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _checkpoint_steps(logdir: str) -> list[int]:
    steps = []
    for name in os.listdir(logdir) if os.path.isdir(logdir) else []:
        if name.startswith("model.ckpt-") and name.endswith(".index"):
            steps.append(int(name[len("model.ckpt-") : -len(".index")]))
    return sorted(steps)


def _tail(path: str, n: int = 3000) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()[-n:]


def _story(path: str) -> str:
    """Each session start the worker logged, then the end of its log."""
    with open(path, encoding="utf-8", errors="replace") as f:
        starts = [ln for ln in f.read().splitlines() if ln.startswith("session ready")]
    return "\n".join(starts) + "\n...\n" + _tail(path)


def _result(path: str) -> dict:
    with open(path) as f:
        lines = [ln for ln in f.read().splitlines() if ln.startswith("RESULT ")]
    assert lines, f"no RESULT in {path}:\n" + _tail(path)
    return json.loads(lines[-1][7:])


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def test_ps_killed_and_restarted_training_resumes_from_checkpoint(tmp_path: os.PathLike) -> None:
    d = str(tmp_path)
    logdir = os.path.join(d, "train")
    ps_port, w0_port, w1_port = free_ports(3)
    args = [
        f"--ps_hosts=localhost:{ps_port}",
        f"--worker_hosts=localhost:{w0_port},localhost:{w1_port}",
        f"--logdir={logdir}",
        f"--last_step={LAST_STEP}",
        "--save_checkpoint_steps=150",
        "--progress=none",
    ]
    procs: list[subprocess.Popen[str]] = []
    try:
        ps = _start(args, "ps", 0, os.path.join(d, "ps.log"))
        procs.append(ps)
        w1 = _start(args, "worker", 1, os.path.join(d, "w1.log"))
        w0 = _start(args, "worker", 0, os.path.join(d, "w0.log"))
        procs += [w1, w0]

        # Wait for a checkpoint past the first one, with both workers training (the second
        # one waits for the chief's initialisation, and may join late on a fast machine).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            steps = _checkpoint_steps(logdir)
            joined = "session ready" in _tail(os.path.join(d, "w1.log"))
            if steps and steps[-1] >= 300 and joined:
                break
            assert w0.poll() is None, _tail(os.path.join(d, "w0.log"))
            time.sleep(0.1)
        killed_after = _checkpoint_steps(logdir)[-1]
        assert 300 <= killed_after < LAST_STEP

        ps.kill()
        ps.wait(10)
        time.sleep(1.0)
        procs.append(_start(args, "ps", 0, os.path.join(d, "ps2.log")))

        assert w0.wait(150) == 0, _story(os.path.join(d, "w0.log"))
        assert w1.wait(60) == 0, _story(os.path.join(d, "w1.log"))
    finally:
        for p in procs:
            _stop(p)

    chief = _result(os.path.join(d, "w0.log"))
    other = _result(os.path.join(d, "w1.log"))
    # The chief made a second session after the ps came back, and it started from a restored
    # checkpoint (at or after the one that existed when the ps died), not from step 0.
    starts = chief["session_starts"]
    assert len(starts) >= 2, chief
    # (The other worker may step as soon as the chief's init op ran, before the chief reads
    # the step: under load its first session can start a few steps past 0.)
    assert 0 <= starts[0] < 300, chief
    assert all(s >= killed_after for s in starts[1:]), (starts, killed_after)
    # The other worker either made a new session after the restart (from the restored step) or
    # rode through the outage: its master registers its graph again on the restarted ps, and
    # steps that waited out the restart until the chief restored the variables see no error.
    assert all(s >= killed_after for s in other["session_starts"][1:]), (other, killed_after)
    # Training finished: the last step was reached and the model is good.
    assert chief["global_step"] >= LAST_STEP
    assert chief["held_out_accuracy"] > 0.90
    assert other["local_steps"] > 0
    # The checkpoint history goes on from the restored step.
    assert _checkpoint_steps(logdir)[-1] >= LAST_STEP
