"""Hundreds of idle streaming calls (a client that opens streams and sends nothing) leave a
task answering its health checks and control calls; past the task's limit of work calls, a
new one gets RESOURCE_EXHAUSTED at once."""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2
from support.cluster_processes import TaskProcess, cluster_flag, free_ports, health_status
from tfcluster.protos import master_pb2

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

STREAMS = (
    "/tfcluster.MasterService/RunStepStream",
    "/tfcluster.WorkerService/RunGraphStream",
    "/tfcluster.WorkerService/RecvTensors",
)


def _task(*flags: str) -> TaskProcess:
    (port,) = free_ports(1)
    command = [sys.executable, "-m", "tfcluster.cli.server_main", *flags]
    return TaskProcess(cluster_flag({"worker": [port]}), "worker", 0, port, command=command)


class _IdleStreams:
    """n streaming calls that send nothing and wait."""

    def __init__(self, port: int, n: int, first: bytes | None = None) -> None:
        """`first`: a message each stream sends before it waits (None: nothing at all)."""
        self.channel = grpc.insecure_channel(f"localhost:{port}")
        self._stop: list[queue.SimpleQueue[None]] = []
        self.calls: list[Any] = []
        # A stream that sent a message stays open on the step streams (their errors are
        # answered in-band); RecvTensors may end, so only those are used then.
        methods = STREAMS if first is None else STREAMS[:2]
        for i in range(n):
            stop: queue.SimpleQueue[None] = queue.SimpleQueue()
            self._stop.append(stop)
            method = self.channel.stream_stream(methods[i % len(methods)])
            self.calls.append(method(_wait(stop, first)))

    def close(self) -> None:
        for stop in self._stop:
            stop.put(None)
        for call in self.calls:
            call.cancel()
        self.channel.close()


def _wait(stop: queue.SimpleQueue[None], first: bytes | None = None) -> Iterator[bytes]:
    if first is not None:
        yield first
    stop.get()


def _list_devices(port: int) -> int:
    with grpc.insecure_channel(f"localhost:{port}") as ch:
        call = ch.unary_unary("/tfcluster.MasterService/ListDevices")
        data = call(master_pb2.ListDevicesRequest().SerializeToString(), timeout=5)
    return len(master_pb2.ListDevicesResponse.FromString(data).local_device)


def test_three_hundred_idle_streams_leave_health_and_list_devices_answering() -> None:
    task = _task().wait_serving()
    streams = _IdleStreams(task.port, 300)
    try:
        time.sleep(2.0)  # every call has reached the server and holds a thread there
        t0 = time.monotonic()
        assert health_status(task.port, timeout=3) == health_pb2.HealthCheckResponse.SERVING
        assert _list_devices(task.port) >= 1
        assert time.monotonic() - t0 < 5
    finally:
        streams.close()
        task.terminate()


def test_a_work_call_past_the_limit_is_resource_exhausted_and_health_still_answers() -> None:
    task = _task("--max_work_calls=10").wait_serving()
    streams = _IdleStreams(task.port, 10, first=b"")
    try:
        time.sleep(1.0)
        with grpc.insecure_channel(f"localhost:{task.port}") as ch:
            extra = ch.stream_stream(STREAMS[0])(iter([b""]))
            with pytest.raises(grpc.RpcError) as info:
                next(extra)
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "at most 10 calls" in (info.value.details() or "")
        assert health_status(task.port, timeout=3) == health_pb2.HealthCheckResponse.SERVING
        assert _list_devices(task.port) >= 1
    finally:
        streams.close()
        task.terminate()


def test_unary_calls_that_never_send_their_request_leave_sessions_answered() -> None:
    """Unary calls whose request never comes (HTTP/2 streams opened, no message), and streams
    whose first message never comes, hold no more threads than the waiting limit and no
    work-call slot: past the limit the longest waiting is cancelled, and health, ListDevices, a
    step stream and a session keep being answered while the flood stays open."""
    task = _task("--max_work_calls=10").wait_serving()
    channel = grpc.insecure_channel(f"localhost:{task.port}")
    stops: list[queue.SimpleQueue[None]] = []
    calls = []
    for i in range(400):
        stop: queue.SimpleQueue[None] = queue.SimpleQueue()
        stops.append(stop)
        if i % 5 == 4:  # streams too: those never take a work-call slot meanwhile
            streaming = channel.stream_stream(STREAMS[i % 2])
            calls.append(streaming(_wait(stop)))
            continue
        method = ("ListDevices", "CreateSession", "RunStep", "CloseSession")[i % 5]
        unary = channel.stream_unary(f"/tfcluster.MasterService/{method}")
        calls.append(unary.future(_wait(stop)))
    try:
        time.sleep(3.0)  # every call has reached the server
        assert health_status(task.port, timeout=5) == health_pb2.HealthCheckResponse.SERVING
        assert _list_devices(task.port) >= 1
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(3.0) * 2.0
        with tf.Session(task.target, graph=g) as sess:
            assert sess.run(x, options=tf.RunOptions(timeout_in_ms=10000)) == 6.0
        # A step stream that sends its request is answered (in-band), not refused.
        with grpc.insecure_channel(f"localhost:{task.port}") as ch:
            step = ch.stream_stream(STREAMS[0])(iter([b""]), timeout=10)
            assert next(step)
        codes = [c.code() for c in calls if c.done()]
        assert codes and set(codes) == {grpc.StatusCode.CANCELLED}, codes
    finally:
        for stop in stops:
            stop.put(None)
        for call in calls:
            call.cancel()
        channel.close()
        assert task.terminate() == 0
