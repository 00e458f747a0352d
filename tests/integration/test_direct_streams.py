"""Direct streams beside gRPC (rpc/direct): steps, RunGraph and RecvTensors move onto them
once a peer's endpoint is known, everything stays on gRPC without them, deadlines and errors
read as they do over gRPC, and a direct port that gets garbage keeps serving."""

from __future__ import annotations

import contextlib
import resource
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc
import numpy as np
import pytest
import tfcluster as tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cluster_processes import free_ports
from tfcluster.ops.data_flow_ops import FIFOQueue
from tfcluster.protos import direct_service_pb2, worker_pb2
from tfcluster.rpc import shm
from tfcluster.rpc.direct import client as direct
from tfcluster.rpc.direct import wire as direct_wire

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

RUN_GRAPH = "/tfcluster.WorkerService/RunGraphStream"
RPC_CONFIG = dict(operation_timeout_in_ms=30_000)


def _cluster() -> tuple[tf.train.Server, tf.train.Server]:
    ports = free_ports(2)
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in ports]})
    return (
        tf.train.Server(spec, job_name="worker", task_index=0),
        tf.train.Server(spec, job_name="worker", task_index=1),
    )


def _remote_session(server: tf.train.Server, graph: tf.Graph) -> tf.Session:
    """A session that reaches the master over the network, though it is in this process."""
    config = tf.ConfigProto(**RPC_CONFIG)
    config.rpc_options.use_rpc_for_inprocess_master = True
    return tf.Session(server.target, graph=graph, config=config)


def _wait_ready(address: str, step: Any, timeout: float = 15.0) -> None:
    """Runs `step` until this process knows `address`'s direct endpoint."""
    end = time.monotonic() + timeout
    while not direct.link(address).ready:
        assert time.monotonic() < end, f"no direct endpoint found for {address}"
        step()
        time.sleep(0.01)


@pytest.fixture
def cluster() -> Iterator[tuple[tf.train.Server, tf.train.Server]]:
    s0, s1 = _cluster()
    yield s0, s1
    s0.stop()
    s1.stop()


@pytest.mark.parametrize("shm_setting", ["0", "1"])
def test_steps_move_onto_direct_streams(
    cluster: tuple[tf.train.Server, tf.train.Server],
    monkeypatch: pytest.MonkeyPatch,
    shm_setting: str,
) -> None:
    monkeypatch.setenv("TFCLUSTER_SHM", shm_setting)
    s0, s1 = cluster
    assert s0.direct_port > 0 and s1.direct_port > 0
    n = 3 << 20  # 12 MiB: many messages of the wire's largest size
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:1"):
            v = tf.Variable(np.arange(n, dtype=np.float32), name="v")
            doubled = v * 2.0
            fed = tf.placeholder(tf.float32, [n], name="fed")
            total = tf.reduce_sum(fed)
        with tf.device("/job:worker/task:0"):
            plus = doubled[-1] + 1.0
    with _remote_session(s0, g) as sess:
        sess.run(v.initializer)
        _wait_ready(f"localhost:{s0.port}", lambda: sess.run(plus))
        _wait_ready(f"localhost:{s1.port}", lambda: sess.run(plus))
        value = np.ones(n, np.float32)

        def steps() -> None:
            for _ in range(3):
                assert sess.run(plus) == 2.0 * (n - 1) + 1.0
            out = sess.run(doubled)
            np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32) * 2.0)
            out[0] = 5.0  # what a session returns is the caller's to change
            assert sess.run(total, {fed: value}) == float(n)

        exports: list[int] = []
        export = shm.export
        monkeypatch.setattr(shm, "export", lambda a: exports.append(a.nbytes) or export(a))
        steps()
        # Big tensors travel in the stream itself: /dev/shm is for gRPC calls only.
        assert exports == []
        # The session's steps reached the master directly, the master's RunGraph and the
        # tensors task 0 pulled reached task 1 directly.
        assert s0._transport.direct.calls_served > 0
        assert s1._transport.direct.calls_served > 0
        # Calls stay open from step to step (one per thread that makes them): no new
        # connection per step.
        before = (s0._transport.direct.calls_served, s1._transport.direct.calls_served)
        for _ in range(3):
            steps()
        assert (s0._transport.direct.calls_served, s1._transport.direct.calls_served) == before


def test_without_direct_streams_every_call_stays_on_grpc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFCLUSTER_DIRECT", "0")
    s0, s1 = _cluster()
    try:
        assert s0.direct_port == 0 and s1.direct_port == 0
        g = tf.Graph()
        with g.as_default(), tf.device("/job:worker/task:1"):
            out = tf.constant(3.0) * 2.0
        with _remote_session(s0, g) as sess:
            for _ in range(20):
                assert sess.run(out) == 6.0
        assert s0._transport.direct.calls_served == 0 and s1._transport.direct.calls_served == 0
        assert not direct.link(f"localhost:{s0.port}").ready
    finally:
        s0.stop()
        s1.stop()


def test_a_deadline_and_an_error_on_a_direct_stream(
    cluster: tuple[tf.train.Server, tf.train.Server],
) -> None:
    s0, _ = cluster
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:1"):
            q = FIFOQueue(2, tf.float32, shapes=[[]], shared_name="direct_q")
            deq = q.dequeue()
            x = tf.placeholder(tf.float32, [None])
            bad = tf.reshape(x, [3])
        with tf.device("/job:worker/task:0"):
            ok = tf.constant(1.0) + 1.0
    with _remote_session(s0, g) as sess:
        _wait_ready(f"localhost:{s0.port}", lambda: sess.run(ok))
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(deq, options=tf.RunOptions(timeout_in_ms=300))
        assert time.monotonic() - start < 10
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(bad, {x: np.ones(2, np.float32)})
        # The calls that failed are replaced; the next steps work.
        assert sess.run(ok) == 2.0
        assert sess.run(bad, {x: np.ones(3, np.float32)}).tolist() == [1.0, 1.0, 1.0]


def test_a_peer_that_restarts_is_found_again(
    cluster: tuple[tf.train.Server, tf.train.Server],
) -> None:
    s0, s1 = cluster
    spec = s1.cluster_spec
    g = tf.Graph()
    with g.as_default(), tf.device("/job:worker/task:1"):
        out = tf.constant(2.0) * 3.0
    with _remote_session(s0, g) as sess:
        _wait_ready(f"localhost:{s1.port}", lambda: sess.run(out))
        s1.stop()
        with pytest.raises(
            (tf.errors.UnavailableError, tf.errors.AbortedError, tf.errors.DeadlineExceededError)
        ):
            sess.run(out, options=tf.RunOptions(timeout_in_ms=2000))
        s1 = tf.train.Server(spec, job_name="worker", task_index=1)
        try:
            end = time.monotonic() + 20
            served = 0
            while served == 0:
                assert time.monotonic() < end, "the restarted task was not reached directly"
                # AbortedError at most once: the graphs are registered again.
                with contextlib.suppress(tf.errors.AbortedError):
                    assert sess.run(out) == 6.0
                served = s1._transport.direct.calls_served
                time.sleep(0.01)
        finally:
            s1.stop()


# ---- garbage on the direct port ----------------------------------------------------------
def _raw(port: int) -> socket.socket:
    return socket.create_connection(("localhost", port), timeout=10)


def _hello(method: str, token: bytes) -> bytes:
    path = method.encode()
    return direct_wire.MAGIC + bytes([len(path)]) + path + bytes([len(token)]) + token


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _status(answer: bytes) -> tuple[int, str]:
    (n,) = struct.unpack_from("<Q", answer)
    assert n & (1 << 63), answer[:40]
    size = n & ~(1 << 63)
    (code,) = struct.unpack_from("<I", answer, 8)
    return code, answer[12 : 8 + size].decode()


@pytest.fixture(scope="module")
def lone_server() -> Iterator[tf.train.Server]:
    server = tf.train.Server.create_local_server()
    yield server
    server.stop()


def _still_serves(server: tf.train.Server) -> None:
    g = tf.Graph()
    with g.as_default():
        out = tf.constant(4.0) + 1.0
    with _remote_session(server, g) as sess:
        assert sess.run(out) == 5.0
    # And a direct call still opens.
    wire = direct.connect(
        "localhost", server.direct_port, RUN_GRAPH, server._transport.direct.token, 5
    )
    wire.close()


def test_the_endpoint_is_described_over_grpc(lone_server: tf.train.Server) -> None:
    with grpc.insecure_channel(f"localhost:{lone_server.port}") as ch:
        data = ch.unary_unary(direct_wire.DESCRIBE)(b"", timeout=10)
    endpoint = direct_service_pb2.DirectEndpoint.FromString(data)
    assert endpoint.port == lone_server.direct_port
    assert len(endpoint.token) == 16


@pytest.mark.parametrize(
    "hello, code",
    [
        (_hello(RUN_GRAPH, b"not the token"), grpc.StatusCode.FAILED_PRECONDITION),
        (_hello("/tfcluster.WorkerService/NoSuchMethod", b""), None),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", None),
        (direct_wire.MAGIC + b"\x05ab", None),  # cut short
    ],
)
def test_a_bad_hello_is_refused(
    lone_server: tf.train.Server, hello: bytes, code: grpc.StatusCode | None
) -> None:
    if code is None and b"NoSuchMethod" in hello:
        hello = _hello("/tfcluster.WorkerService/NoSuchMethod", lone_server._transport.direct.token)
        code = grpc.StatusCode.UNIMPLEMENTED
    with _raw(lone_server.direct_port) as sock:
        sock.sendall(hello)
        if code is None:
            sock.shutdown(socket.SHUT_WR)
        answer = _read_all(sock)
    if code is None:
        assert answer == b""
    else:
        assert _status(answer)[0] == code.value[0]
    _still_serves(lone_server)


def test_a_wrong_token_reads_as_a_grpc_error(lone_server: tf.train.Server) -> None:
    with pytest.raises(grpc.RpcError) as info:
        direct.connect("localhost", lone_server.direct_port, RUN_GRAPH, b"x" * 16, 5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    "body",
    [
        struct.pack("<Q", 1 << 62),  # a message bigger than any machine
        struct.pack("<Q", 100) + b"only a few bytes",  # then the client hangs up
        struct.pack("<Q", (1 << 63) | 2) + b"xx",  # a status frame from the client
        struct.pack("<Q", 2) + b"\xff\xff",  # not a RunGraphRequest
    ],
)
def test_bad_messages_end_the_call_and_the_server_keeps_serving(
    lone_server: tf.train.Server, body: bytes
) -> None:
    with _raw(lone_server.direct_port) as sock:
        sock.sendall(_hello(RUN_GRAPH, lone_server._transport.direct.token) + body)
        sock.shutdown(socket.SHUT_WR)
        answer = _read_all(sock)
    code, _ = _status(answer)
    assert code == 0  # the hello was accepted
    rest = answer[12:]
    if rest:
        # A malformed request is answered with a status, as gRPC would.
        assert _status(rest)[0] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    _still_serves(lone_server)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(messages=st.lists(st.binary(max_size=64), max_size=4))
def test_fuzzed_direct_run_graph_messages(
    lone_server: tf.train.Server, messages: list[bytes]
) -> None:
    server = lone_server
    call = direct.DirectCall(
        direct.connect(
            "localhost", server.direct_port, RUN_GRAPH, server._transport.direct.token, 5
        )
    )
    try:
        with contextlib.suppress(grpc.RpcError):
            # The server may answer a bad message and hang up before it has the rest.
            call.send(iter(messages))
            call.half_close()
        for msg in call:
            resp = worker_pb2.RunGraphResponse.FromString(bytes(msg))
            # In-band answers: an error status, never a crash.
            assert resp.status_code != 0 or not resp.status_message
    except grpc.RpcError as e:
        # A status, or the connection reset by a server that hung up on unread requests.
        assert e.code() in (
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            grpc.StatusCode.UNAVAILABLE,
        ), e.details()
    finally:
        call.cancel()


def test_after_fuzzing_the_direct_port_still_serves(lone_server: tf.train.Server) -> None:
    _still_serves(lone_server)


def test_a_malformed_direct_call_is_counted_like_a_grpc_one() -> None:
    server = tf.train.Server({"local": ["localhost:0"]}, metrics_port=0)
    try:
        assert server.metrics is not None

        def count() -> float:
            value = server.metrics.registry.get_sample_value(
                "tfcluster_errors_total",
                {
                    "tf_job": "local",
                    "tf_task": "0",
                    "method": "RunGraphStream",
                    "code": "INVALID_ARGUMENT",
                },
            )
            return value or 0.0

        before = count()
        with _raw(server.direct_port) as sock:
            sock.sendall(
                _hello(RUN_GRAPH, server._transport.direct.token)
                + struct.pack("<Q", 2)
                + b"\xff\xff"
            )
            sock.shutdown(socket.SHUT_WR)
            answer = _read_all(sock)
        assert _status(answer[12:])[0] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert count() == before + 1
    finally:
        server.stop()


def test_relayed_feeds_are_checked_by_the_master(
    cluster: tuple[tf.train.Server, tf.train.Server],
) -> None:
    """Feeds of a step that runs on another task are relayed undecoded; the master still
    checks their descriptions against the placeholder (for clients that bypass tf.Session),
    and relays the good ones."""
    s0, _ = cluster
    n = 1 << 20  # 4 MiB of float32: streamed in several messages, so relayed
    g = tf.Graph()
    with g.as_default(), tf.device("/job:worker/task:1"):
        x = tf.placeholder(tf.float32, [n], name="x")
        total = tf.reduce_sum(x)
    with _remote_session(s0, g) as sess:
        assert sess.run(total, {x: np.ones(n, np.float32)}) == float(n)
        client, handle = sess._master, sess._handle
        for bad, reason in (
            (np.ones(n + 1, np.float32), "shape"),
            (np.ones(n, np.float64), "dtype float64, expected float32"),
        ):
            with pytest.raises(tf.errors.InvalidArgumentError, match=reason):
                client.run_step(handle, {"x:0": bad}, [total.name], [], None)
        assert sess.run(total, {x: np.full(n, 2.0, np.float32)}) == 2.0 * n


_FORK = """
import os, sys, time
import tfcluster as tf
from tfcluster.rpc.direct import client as direct
server = tf.train.Server({"local": ["localhost:0"]})
config = tf.ConfigProto(operation_timeout_in_ms=20_000)
config.rpc_options.use_rpc_for_inprocess_master = True
x = tf.placeholder(tf.float32, [None])
y = tf.reduce_sum(x * 2.0)
sess = tf.Session(server.target, config=config)
end = time.monotonic() + 15
while not direct.link(f"localhost:{server.port}").ready:
    assert time.monotonic() < end
    sess.run(y, {x: [1.0]})
assert sess.run(y, {x: [1.0, 2.0]}) == 6.0  # on a direct connection now
pid = os.fork()
if pid == 0:
    # The child's steps go over a connection of its own, never the parent's.
    ok = all(sess.run(y, {x: [float(i)]}) == 2.0 * i for i in range(50))
    os._exit(0 if ok else 3)
for i in range(200):
    assert sess.run(y, {x: [float(i), 1.0]}) == 2.0 * (i + 1)
_, status = os.waitpid(pid, 0)
for i in range(50):  # the parent's connection survived the child's exit
    assert sess.run(y, {x: [float(i)]}) == 2.0 * i
print("FORK-OK", os.waitstatus_to_exitcode(status), flush=True)
os._exit(0)
"""


def test_a_forked_child_never_shares_the_parents_connection() -> None:
    out = subprocess.run([sys.executable, "-c", _FORK], capture_output=True, text=True, timeout=120)
    assert "FORK-OK 0" in out.stdout, out.stdout + out.stderr


_MANY_FDS = """
import os, resource, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
held = [open(os.devnull) for _ in range(1200)]  # later descriptors are past select's 1024
import tfcluster as tf
from tfcluster.rpc.direct import client as direct
server = tf.train.Server({"local": ["localhost:0"]})
config = tf.ConfigProto(operation_timeout_in_ms=20_000)
config.rpc_options.use_rpc_for_inprocess_master = True
y = tf.constant(2.0) * 3.0
sess = tf.Session(server.target, config=config)
end = time.monotonic() + 15
while not direct.link(f"localhost:{server.port}").ready:
    assert time.monotonic() < end
    sess.run(y)
sess.run(y)
before = server._transport.direct.calls_served
for _ in range(100):
    assert sess.run(y) == 6.0
print("NEW-CONNECTIONS", server._transport.direct.calls_served - before, flush=True)
os._exit(0)
"""


def test_a_process_with_many_descriptors_keeps_its_connections() -> None:
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 2048:
        pytest.skip("the hard limit on open files is below 2048")
    out = subprocess.run(
        [sys.executable, "-c", _MANY_FDS], capture_output=True, text=True, timeout=120
    )
    assert "NEW-CONNECTIONS 0" in out.stdout, out.stdout + out.stderr
