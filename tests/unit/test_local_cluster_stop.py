"""Stopping a local cluster (`tfcluster cluster`/`run`, Ctrl-C): every task is told to stop at
once, so the command's stop takes the slowest task's time rather than the sum over tasks."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from support.cluster_command import start_cluster_command
from tfcluster.cli.tfcluster_main import LocalCluster

# A task that takes a while to stop: on SIGTERM it notes the time, lingers, then exits 0.
_SLOW_TO_STOP = """
import signal, sys, time
path = sys.argv[1]
def on_term(signum, frame):
    with open(path, "w") as f:
        f.write(repr(time.time()))
    time.sleep(1.0)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
open(path + ".up", "w").close()
while True:
    time.sleep(0.05)
"""


def test_every_task_is_told_to_stop_before_any_is_waited_for(tmp_path: Path) -> None:
    cluster = LocalCluster(str(tmp_path / "logs"))
    marks = [tmp_path / f"task{i}.stopped" for i in range(3)]
    for i, mark in enumerate(marks):
        cluster.start_task(
            [sys.executable, "-c", _SLOW_TO_STOP, str(mark)], "ps", i, {}, foreground=False
        )
    deadline = time.time() + 30
    while not all(Path(str(m) + ".up").exists() for m in marks):
        assert time.time() < deadline, "tasks did not start"
        time.sleep(0.05)
    cluster.close()
    told = sorted(float(m.read_text()) for m in marks)
    # Told together: the last task heard SIGTERM before the first had finished its 1 s linger.
    assert told[-1] - told[0] < 0.9, told
    assert all(t.proc.returncode == 0 for t in cluster.tasks)


def test_ctrl_c_stops_the_cluster_command_started_with_sigint_ignored(tmp_path: Path) -> None:
    """A shell script's background job inherits SIGINT ignored; Ctrl-C (SIGINT) still stops
    `tfcluster cluster` and its tasks."""
    proc, _ = start_cluster_command(
        tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)
    )
    try:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
