"""A step meets a peer that froze (SIGSTOP) or a caller that vanished (SIGKILL), on direct
streams (the default path): the step fails within a few heartbeats with UnavailableError, as
gRPC's keepalive would fail it, and work whose caller is gone stops; closing a session stops
its running steps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, TaskProcess, cluster_flag, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

HEARTBEAT = 0.3
SERVER = [sys.executable, "-m", "tfcluster.cli.server_main", f"--heartbeat_seconds={HEARTBEAT}"]


@pytest.fixture
def ps_and_worker() -> Iterator[tuple[TaskProcess, TaskProcess]]:
    pw, pp = free_ports(2)
    flag = cluster_flag({"worker": [pw], "ps": [pp]})
    cluster = Cluster()
    try:
        worker = cluster.add(TaskProcess(flag, "worker", 0, pw, command=SERVER))
        ps = cluster.add(TaskProcess(flag, "ps", 0, pp, command=SERVER))
        worker.wait_serving()
        ps.wait_serving()
        yield worker, ps
    finally:
        for t in cluster.tasks:
            if t.proc.poll() is None:
                os.kill(t.proc.pid, signal.SIGCONT)
        cluster.close()


def _run_in_thread(fn: Any, timeout: float) -> tuple[Any, BaseException | None, float]:
    box: list[Any] = []

    def work() -> None:
        try:
            box.append((fn(), None))
        except BaseException as e:  # reported to the test
            box.append((None, e))

    t0 = time.monotonic()
    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(timeout)
    assert box, f"the step was still blocked after {timeout}s"
    return box[0][0], box[0][1], time.monotonic() - t0


def _bump_ps_from_worker_on_direct_streams(worker: TaskProcess) -> tuple[Any, Any]:
    """A session on `worker` and a fetch that adds 1 to a variable on the ps (2x the new
    value), run 40 times so that the worker has moved over to the ps's direct stream."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(0.0, name="v")
            bump = tf.assign_add(v, 1.0)
        with tf.device("/job:worker/task:0"):
            out = tf.identity(bump) * 2.0
    sess = tf.Session(worker.target, graph=g)
    sess.run(v.initializer)
    for _ in range(40):  # the worker finds the ps's direct endpoint and moves over
        sess.run(out)
        time.sleep(0.01)
    return sess, out


def test_a_frozen_ps_fails_the_step_with_unavailable_within_a_few_heartbeats(
    ps_and_worker: tuple[TaskProcess, TaskProcess],
) -> None:
    worker, ps = ps_and_worker
    sess, out = _bump_ps_from_worker_on_direct_streams(worker)
    os.kill(ps.proc.pid, signal.SIGSTOP)
    try:
        _, err, took = _run_in_thread(lambda: sess.run(out), timeout=15)
    finally:
        os.kill(ps.proc.pid, signal.SIGCONT)
    assert isinstance(err, tf.errors.UnavailableError), repr(err)
    assert took < 10 * HEARTBEAT + 3


def test_a_frozen_ps_fails_each_step_by_its_own_deadline_and_serves_again_when_thawed(
    ps_and_worker: tuple[TaskProcess, TaskProcess],
) -> None:
    """Each step's RunOptions.timeout_in_ms bounds it, also the ones that must open a new
    connection to the frozen ps (its kernel accepts, the ps never answers): a step asked for
    0.2 s took the 2 s connect timeout before."""
    worker, ps = ps_and_worker
    sess, out = _bump_ps_from_worker_on_direct_streams(worker)
    options = tf.RunOptions(timeout_in_ms=200)
    os.kill(ps.proc.pid, signal.SIGSTOP)
    try:
        for _ in range(3):
            _, err, took = _run_in_thread(lambda: sess.run(out, options=options), timeout=15)
            assert isinstance(err, tf.errors.DeadlineExceededError), repr(err)
            assert took < 1.5, f"a 0.2 s step took {took:.2f} s"
    finally:
        os.kill(ps.proc.pid, signal.SIGCONT)
    end = time.monotonic() + 20
    while True:  # a step the ps read before it froze may still land once thawed
        try:
            assert sess.run(out) >= 82.0
            break
        except tf.errors.OpError:
            assert time.monotonic() < end, "the thawed ps never served the session again"
            time.sleep(0.2)


LOOP_CLIENT = """
import sys
import tfcluster as tf
with tf.device("/job:ps/task:0"):
    done = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])
sess = tf.Session(sys.argv[1])
print("running", flush=True)
sess.run(done)
"""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy(pid: int, over: float = 1.0) -> float:
    """The share of one CPU that process `pid` used over the next `over` seconds."""
    before = _cpu_seconds(pid)
    time.sleep(over)
    return (_cpu_seconds(pid) - before) / over


def _start_endless_loop(target: str, ps_pid: int, tmp_path: Path) -> subprocess.Popen[str]:
    script = tmp_path / "loop_client.py"
    script.write_text(LOOP_CLIENT)
    client = subprocess.Popen(
        [sys.executable, str(script), target], stdout=subprocess.PIPE, text=True
    )
    assert client.stdout is not None and client.stdout.readline().strip() == "running"
    end = time.monotonic() + 20
    while _busy(ps_pid, 0.5) < 0.5:  # the loop runs on the ps
        assert time.monotonic() < end, "the loop never started on the ps"
    return client


def _wait_idle(pid: int, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while _busy(pid, 0.5) > 0.3:
        assert time.monotonic() < end, f"process {pid} still runs the step {timeout}s later"


def test_a_killed_client_stops_its_step_on_the_ps(
    ps_and_worker: tuple[TaskProcess, TaskProcess], tmp_path: Path
) -> None:
    worker, ps = ps_and_worker
    client = _start_endless_loop(worker.target, ps.proc.pid, tmp_path)
    client.kill()
    client.wait(5)
    _wait_idle(ps.proc.pid)


def test_a_killed_master_stops_its_step_on_the_ps(
    ps_and_worker: tuple[TaskProcess, TaskProcess], tmp_path: Path
) -> None:
    worker, ps = ps_and_worker
    client = _start_endless_loop(worker.target, ps.proc.pid, tmp_path)
    try:
        worker.kill()
        _wait_idle(ps.proc.pid)
    finally:
        client.kill()
        client.wait(5)


def _endless_loop() -> Any:
    return tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])


@pytest.mark.parametrize("remote", [False, True], ids=["local", "remote"])
def test_closing_a_session_cancels_its_running_step(
    remote: bool, ps_and_worker: tuple[TaskProcess, TaskProcess]
) -> None:
    worker, _ = ps_and_worker
    g = tf.Graph()
    with g.as_default():
        done = _endless_loop()
    sess = tf.Session(worker.target if remote else "", graph=g)
    box: list[BaseException] = []

    def run() -> None:
        try:
            sess.run(done)
        except BaseException as e:  # reported to the test
            box.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    time.sleep(1.0)
    sess.close()
    t.join(10)
    assert not t.is_alive(), "the step still runs after its session closed"
    assert isinstance(box[0], tf.errors.CancelledError | tf.errors.AbortedError), repr(box[0])
