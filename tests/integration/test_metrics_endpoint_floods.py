"""Hundreds of idle connections to a task's /metrics port (slowloris: a request never finished)
take a bounded number of threads; one past the bound is answered 503 at once, the idle ones are
dropped after a while, and then scrapes answer again. The task serves sessions throughout."""

from __future__ import annotations

import socket
import time
import urllib.request

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import TaskProcess, cluster_flag, free_ports
from tfcluster.task_server.metrics.endpoint import IDLE_SECONDS, MAX_CONNECTIONS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

IDLE = 300


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise AssertionError("no Threads line")


def _scrape(port: int) -> bytes:
    with urllib.request.urlopen(f"http://localhost:{port}/metrics", timeout=10) as r:
        return r.read()  # type: ignore[no-any-return]


def _session_runs(task: TaskProcess) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.fill([3], 2.0) * 2.0
    with tf.Session(task.target, graph=g) as sess:
        np.testing.assert_array_equal(sess.run(x), np.full(3, 4.0, np.float32))


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0.0)
    try:
        while sock.recv(4096):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_idle_metrics_connections_take_bounded_threads_and_are_dropped() -> None:
    port, metrics_port = free_ports(2)
    task = TaskProcess(
        cluster_flag({"worker": [port]}),
        "worker",
        0,
        port,
        env={"TFCLUSTER_METRICS_PORT": str(metrics_port)},
    ).wait_serving()
    idle: list[socket.socket] = []
    try:
        assert b"tfcluster_" in _scrape(metrics_port)
        before = _threads(task.proc.pid)
        for _ in range(IDLE):
            s = socket.create_connection(("localhost", metrics_port), timeout=5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # headers never end
            idle.append(s)
        time.sleep(1.0)
        # One thread per served connection, never one per idle client.
        assert _threads(task.proc.pid) <= before + MAX_CONNECTIONS + 8
        _session_runs(task)
        # Past the bound: a clear 503, at once.
        with socket.create_connection(("localhost", metrics_port), timeout=5) as extra:
            extra.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
            assert extra.recv(100).startswith(b"HTTP/1.0 503"), "expected 503 past the bound"
        # The idle clients are dropped by the server, which scrapes answer again.
        end = time.monotonic() + IDLE_SECONDS + 20
        while time.monotonic() < end:
            try:
                if b"tfcluster_" in _scrape(metrics_port):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            raise AssertionError("scrapes still refused after the idle clients timed out")
        # A scrape answers once one slot is free; the other idle clients, connected over a few
        # seconds of a loaded machine, time out one after another within IDLE_SECONDS more.
        end = time.monotonic() + IDLE_SECONDS + 10
        open_ones = list(idle)
        while open_ones and time.monotonic() < end:
            open_ones = [s for s in open_ones if not _closed_by_server(s)]
            time.sleep(0.5)
        assert not open_ones, f"{len(open_ones)} idle clients never dropped by the server"
        _session_runs(task)
    finally:
        for s in idle:
            s.close()
        assert task.terminate() == 0
