"""Task servers as local processes: free ports, `tfcluster-server` subprocesses (one task or a
whole cluster), waiting for them to serve, and their gRPC health."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .ports import free_ports

__all__ = ["free_ports"]


def cluster_flag(jobs: dict[str, Sequence[int]]) -> str:
    """{'worker': [p0, p1]} -> 'worker|localhost:p0;localhost:p1'."""
    return ",".join(
        f"{job}|" + ";".join(f"localhost:{p}" for p in ports) for job, ports in jobs.items()
    )


def health_status(port: int, service: str = "", timeout: float = 1.0) -> int | None:
    """The gRPC health status of localhost:port (None: no answer)."""
    with grpc.insecure_channel(f"localhost:{port}") as ch:
        try:
            resp = health_pb2_grpc.HealthStub(ch).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError:
            return None
        return int(resp.status)


def wait_serving(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if health_status(port, timeout=0.5) == health_pb2.HealthCheckResponse.SERVING:
            return
        time.sleep(0.05)
    raise TimeoutError(f"no task server is SERVING on port {port} after {timeout}s")


class TaskProcess:
    """`tfcluster-server` (via `python -m`) for one task, in its own process."""

    def __init__(
        self,
        cluster: str,
        job: str,
        index: int,
        port: int,
        env: dict[str, str] | None = None,
        command: Sequence[str] | None = None,
    ) -> None:
        self.port = port
        self.job = job
        self.index = index
        args = list(command or [sys.executable, "-m", "tfcluster.cli.server_main"])
        if cluster:
            args += [f"--cluster_spec={cluster}", f"--job_name={job}", f"--task_index={index}"]
        full_env = dict(os.environ)
        # Many tasks share this machine: each metrics endpoint takes any free port.
        full_env.setdefault("TFCLUSTER_METRICS_PORT", "0")
        full_env.update(env or {})
        # A file, not a pipe: a server that logs a lot must never block on a full pipe.
        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - lives with the process
        self.proc = subprocess.Popen(
            args, env=full_env, stdout=subprocess.DEVNULL, stderr=self._log, text=True
        )

    @property
    def target(self) -> str:
        return f"grpc://localhost:{self.port}"

    def wait_serving(self, timeout: float = 30.0) -> TaskProcess:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"task server exited with {self.proc.returncode}: {self.stderr()}"
                )
            if health_status(self.port, timeout=0.5) == health_pb2.HealthCheckResponse.SERVING:
                return self
            time.sleep(0.05)
        raise TimeoutError(f"task server on port {self.port} not SERVING after {timeout}s")

    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        self._log.seek(0)
        return self._log.read()

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM (a graceful stop); SIGKILL if it takes longer than `timeout`."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return int(self.proc.returncode)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


class Cluster:
    """Starts task servers for a test and stops every one of them at the end."""

    def __init__(self) -> None:
        self.tasks: list[TaskProcess] = []

    def start(self, jobs: dict[str, Sequence[int]], env: dict[str, str] | None = None) -> None:
        flag = cluster_flag(jobs)
        for job, ports in jobs.items():
            for i, port in enumerate(ports):
                self.tasks.append(TaskProcess(flag, job, i, port, env))
        for t in self.tasks:
            t.wait_serving()

    def task(self, job: str, index: int) -> TaskProcess:
        """The task's latest process (a restarted task's new one)."""
        return next(t for t in reversed(self.tasks) if t.job == job and t.index == index)

    def add(self, task: TaskProcess) -> TaskProcess:
        self.tasks.append(task)
        return task

    def close(self) -> None:
        for t in self.tasks:
            t.terminate()
