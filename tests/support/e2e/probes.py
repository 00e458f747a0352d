"""Probes as the kubelet runs them: gRPC health, TCP connect, HTTP GET, exec in the container.

``Prober`` runs one probe of one container on its period and keeps the kubelet's result:
``successThreshold`` successes in a row turn it on, ``failureThreshold`` failures turn it off;
nothing is tried before ``initialDelaySeconds``.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def _port(value: int | str, ports: Mapping[str, int]) -> int:
    if isinstance(value, int) or str(value).isdigit():
        return int(value)
    if value not in ports:
        raise ValueError(f"no container port named {value!r}")
    return ports[value]


def grpc_probe(host: str, port: int, service: str, timeout: float) -> tuple[bool, str]:
    with grpc.insecure_channel(f"{host}:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as err:
            return False, f"failed to connect service {host}:{port}: {err.code().name}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return False, f"service unhealthy (responded with {status})"
    return True, ""


def tcp_probe(host: str, port: int, timeout: float) -> tuple[bool, str]:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True, ""
    except OSError as err:
        return False, f"dial tcp {host}:{port}: {err}"


def http_probe(host: str, port: int, action: Mapping[str, Any], timeout: float) -> tuple[bool, str]:
    scheme = action.get("scheme", "HTTP").lower()
    url = f"{scheme}://{action.get('host') or host}:{port}{action.get('path', '/')}"
    request = urllib.request.Request(url)
    for header in action.get("httpHeaders", []):
        request.add_header(header["name"], header["value"])
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            code = response.status
    except urllib.error.HTTPError as err:
        code = err.code
    except OSError as err:
        return False, f"Get {url}: {err}"
    return (200 <= code < 400), f"HTTP probe failed with statuscode: {code}"


def exec_probe(
    pid: int, command: list[str], env: Mapping[str, str], timeout: float
) -> tuple[bool, str]:
    """``command`` in the container's namespaces (mount, network, UTS) with its environment."""
    argv = ["nsenter", "-t", str(pid), "-m", "-n", "-u", "--", *command]
    try:
        done = subprocess.run(argv, env=dict(env), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"command {command!r} timed out"
    output = (done.stdout + done.stderr).decode(errors="replace")[-512:]
    return done.returncode == 0, output


class Prober:
    """One probe of one container, run on a thread until ``stop``; ``on_change(result)``."""

    def __init__(
        self,
        probe: Mapping[str, Any],
        host: str,
        ports: Mapping[str, int],
        pid: int,
        env: Mapping[str, str],
        on_change: Callable[[bool, str], None],
        initial: bool,
    ) -> None:
        self.probe = probe
        self.host = host
        self.ports = ports
        self.pid = pid
        self.env = env
        self.on_change = on_change
        self.result = initial
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="prober")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def check(self) -> tuple[bool, str]:
        probe = self.probe
        timeout = float(probe.get("timeoutSeconds", 1))
        if "grpc" in probe:
            action = probe["grpc"]
            port = int(action["port"])
            return grpc_probe(self.host, port, action.get("service", ""), timeout)
        if "tcpSocket" in probe:
            action = probe["tcpSocket"]
            host = action.get("host") or self.host
            return tcp_probe(host, _port(action["port"], self.ports), timeout)
        if "httpGet" in probe:
            action = probe["httpGet"]
            return http_probe(self.host, _port(action["port"], self.ports), action, timeout)
        if "exec" in probe:
            return exec_probe(self.pid, list(probe["exec"]["command"]), self.env, timeout)
        return False, f"unsupported probe handler {sorted(probe)}"

    def _run(self) -> None:
        probe = self.probe
        period = float(probe.get("periodSeconds", 10))
        success_threshold = int(probe.get("successThreshold", 1))
        failure_threshold = int(probe.get("failureThreshold", 3))
        successes = failures = 0
        if self._stop.wait(float(probe.get("initialDelaySeconds", 0))):
            return
        while not self._stop.is_set():
            ok, message = False, ""
            with contextlib.suppress(Exception):
                ok, message = self.check()
            if self._stop.is_set():
                return
            if ok:
                successes, failures = successes + 1, 0
                if not self.result and successes >= success_threshold:
                    self.result = True
                    self.on_change(True, "")
            else:
                successes, failures = 0, failures + 1
                if self.result and failures >= failure_threshold:
                    self.result = False
                    self.on_change(False, message)
            self._stop.wait(period)
