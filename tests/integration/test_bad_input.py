"""Bad input to a task server gets a clear gRPC status (TF's error class) and the server keeps
serving, its state intact. Hand-written cases first, then hypothesis-fuzzed requests."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import grpc
import numpy as np
import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.cluster_processes import TaskProcess, free_ports, health_status
from tfcluster.framework import op_def_registry
from tfcluster.protos import (
    attr_value_pb2,
    graph_pb2,
    master_pb2,
    named_tensor_pb2,
    node_def_pb2,
    types_pb2,
    worker_pb2,
)
from tfcluster.rpc import tensor_coding as coding

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

MASTER = "/tfcluster.MasterService/"
WORKER = "/tfcluster.WorkerService/"
UNARY = [
    MASTER + m
    for m in ("CreateSession", "ExtendSession", "RunStep", "CloseSession", "ListDevices", "Reset")
] + [
    WORKER + m
    for m in (
        "GetStatus",
        "CreateWorkerSession",
        "DeleteWorkerSession",
        "RegisterGraph",
        "DeregisterGraph",
        "RunGraph",
        "CleanupGraph",
        "CleanupAll",
        "RecvTensor",
    )
]
STREAMS = [MASTER + "RunStepStream", WORKER + "RunGraphStream"]
# Status codes a request can earn; UNKNOWN would mean an error escaped our mapping.
EXPECTED = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.UNIMPLEMENTED,
    grpc.StatusCode.PERMISSION_DENIED,  # an Abort op, which may not end a task server
}


class Raw:
    """Calls any method of a task server with raw bytes."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"localhost:{port}")

    def call(self, method: str, data: bytes, timeout: float = 10.0) -> bytes:
        fn = self.channel.unary_unary(method)
        return fn(data, timeout=timeout)  # type: ignore[no-any-return]

    def code(self, method: str, data: bytes, timeout: float = 10.0) -> grpc.StatusCode:
        try:
            self.call(method, data, timeout)
        except grpc.RpcError as e:
            return e.code()
        return grpc.StatusCode.OK

    def stream(self, method: str, messages: list[bytes], timeout: float = 10.0) -> list[bytes]:
        fn = self.channel.stream_stream(method)
        return list(fn(iter(messages), timeout=timeout))


@pytest.fixture(scope="module")
def server() -> Iterator[dict[str, Any]]:
    """One task server for the module, with a variable whose value must survive everything."""
    (port,) = free_ports(1)
    task = TaskProcess(f"local|localhost:{port}", "local", 0, port).wait_serving()
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(7.0, name="survivor")
    sess = tf.Session(f"grpc://localhost:{port}", graph=g)
    sess.run(v.initializer)
    try:
        yield {"port": port, "raw": Raw(port), "check": lambda: sess.run(v) == 7.0}
    finally:
        assert task.terminate() == 0


def _still_serving(server: dict[str, Any]) -> None:
    assert health_status(server["port"]) == health_pb2.HealthCheckResponse.SERVING
    assert server["check"]()


def _graph(*nodes: node_def_pb2.NodeDef) -> graph_pb2.GraphDef:
    return graph_pb2.GraphDef(node=list(nodes))


def _const(name: str, value: float) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op="Const")
    nd.attr["dtype"].type = 1
    nd.attr["value"].CopyFrom(attr_value_pb2.AttrValue(tensor=tf.make_tensor_proto(value)))
    return nd


def _session(raw: Raw, *nodes: node_def_pb2.NodeDef) -> str:
    req = master_pb2.CreateSessionRequest(graph_def=_graph(*nodes))
    resp = master_pb2.CreateSessionResponse.FromString(
        raw.call(MASTER + "CreateSession", req.SerializeToString())
    )
    return resp.session_handle


def _error(raw: Raw, method: str, data: bytes) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        raw.call(method, data)
    return info.value


# ---- hand-written cases ----------------------------------------------------------------------
@pytest.mark.parametrize("method", UNARY)
def test_malformed_bytes_are_invalid_argument(server: dict[str, Any], method: str) -> None:
    err = _error(server["raw"], method, b"\x0a\xff\xff\xff\xff\x0f garbage")
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "Malformed" in err.details()
    _still_serving(server)


def test_unknown_op_in_a_graph(server: dict[str, Any]) -> None:
    req = master_pb2.CreateSessionRequest(
        graph_def=_graph(node_def_pb2.NodeDef(name="x", op="NoSuchOp"))
    )
    err = _error(server["raw"], MASTER + "CreateSession", req.SerializeToString())
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert "Op type not registered 'NoSuchOp'" in err.details()
    bad_input = master_pb2.CreateSessionRequest(
        graph_def=_graph(node_def_pb2.NodeDef(name="y", op="Identity", input=["missing"]))
    )
    err = _error(server["raw"], MASTER + "CreateSession", bad_input.SerializeToString())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "missing" in err.details()
    _still_serving(server)


def test_a_graph_reading_an_output_its_source_lacks_is_invalid_argument(
    server: dict[str, Any],
) -> None:
    """ControlTrigger has no outputs: a node reading its output 0 is the client's error (the
    graph fuzzer found it answered INTERNAL)."""
    trigger = node_def_pb2.NodeDef(name="trigger", op="ControlTrigger")
    reader = node_def_pb2.NodeDef(name="reader", op="Abort", input=["trigger"])
    create = master_pb2.CreateSessionRequest(graph_def=_graph(trigger, reader))
    resp = server["raw"].call(MASTER + "CreateSession", create.SerializeToString())
    handle = master_pb2.CreateSessionResponse.FromString(resp).session_handle
    step = master_pb2.RunStepRequest(session_handle=handle, target=["reader"])
    err = _error(server["raw"], MASTER + "RunStep", step.SerializeToString())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "invalid output 0 of source node trigger" in err.details()
    _still_serving(server)


def test_unknown_session_handle(server: dict[str, Any]) -> None:
    req = master_pb2.RunStepRequest(session_handle="no-such-session", fetch=["x:0"])
    err = _error(server["raw"], MASTER + "RunStep", req.SerializeToString())
    assert err.code() == grpc.StatusCode.ABORTED and "no-such-session" in err.details()
    run_graph = worker_pb2.RunGraphRequest(session_handle="s", graph_handle="nope", step_id=1)
    err = _error(server["raw"], WORKER + "RunGraph", run_graph.SerializeToString())
    assert err.code() == grpc.StatusCode.ABORTED and "Graph handle is not found" in err.details()
    # In a stream, the error is in-band and the call stays usable.
    replies = server["raw"].stream(MASTER + "RunStepStream", [req.SerializeToString()] * 2)
    for reply in replies:
        resp = master_pb2.RunStepResponse.FromString(reply)
        assert resp.status_code == tf.errors.ABORTED
    _still_serving(server)


def test_recv_tensor_for_a_key_that_never_comes(server: dict[str, Any]) -> None:
    key = "/job:local/replica:0/task:0/device:CPU:0;/job:x/replica:0/task:0/device:CPU:0;t:0"
    req = worker_pb2.RecvTensorRequest(step_id=123456789, rendezvous_key=key).SerializeToString()
    t0 = time.monotonic()
    assert server["raw"].code(WORKER + "RecvTensor", req, timeout=1.0) == (
        grpc.StatusCode.DEADLINE_EXCEEDED
    )
    assert time.monotonic() - t0 < 3.0
    # A cancelled wait frees the server's thread as well.
    fut = server["raw"].channel.unary_unary(WORKER + "RecvTensor").future(req)
    time.sleep(0.3)
    fut.cancel()
    bad_key = worker_pb2.RecvTensorRequest(step_id=1, rendezvous_key="no semicolons")
    err = _error(server["raw"], WORKER + "RecvTensor", bad_key.SerializeToString())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    _still_serving(server)


def test_recv_tensor_for_a_step_that_never_runs_gives_up() -> None:
    """Without a deadline, a wait for a step that never runs on the task ends after the
    worker's orphan timeout (60 s by default; short here)."""
    server = tf.train.Server.create_local_server()
    try:
        server.worker.orphan_recv_timeout = 0.5
        raw = Raw(server.port)
        key = "/job:localhost/replica:0/task:0/device:CPU:0;/job:a/replica:0/task:0/device:CPU:0;t"
        req = worker_pb2.RecvTensorRequest(step_id=42, rendezvous_key=key).SerializeToString()
        t0 = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            raw.call(WORKER + "RecvTensor", req, timeout=30.0)
        assert info.value.code() == grpc.StatusCode.ABORTED
        assert "has not run" in info.value.details()
        assert time.monotonic() - t0 < 5.0
        assert server.worker.wait_idle(2.0)  # nothing left behind
    finally:
        server.stop()


def test_recv_tensors_stream_answers_orphans_in_band_and_rejects_garbage() -> None:
    server = tf.train.Server.create_local_server()
    try:
        server.worker.orphan_recv_timeout = 0.5
        raw = Raw(server.port)
        key = "/job:localhost/replica:0/task:0/device:CPU:0;/job:a/replica:0/task:0/device:CPU:0;"
        requests = [
            worker_pb2.RecvTensorRequest(
                step_id=7, rendezvous_key=key + name, request_id=rid
            ).SerializeToString()
            for rid, name in ((1, "t"), (2, "u"))
        ]
        call = raw.channel.stream_stream(WORKER + "RecvTensors")(iter(requests), timeout=10)
        answers = {}
        for _ in range(2):
            resp = worker_pb2.RecvTensorResponse.FromString(next(call))
            answers[resp.request_id] = (resp.status_code, resp.status_message)
        call.cancel()
        assert set(answers) == {1, 2}
        assert all(code == tf.errors.ABORTED for code, _ in answers.values()), answers
        assert any("has not run" in m for _, m in answers.values()), answers
        garbage = raw.channel.stream_stream(WORKER + "RecvTensors")(iter([b"\xff\xff"]), timeout=10)
        with pytest.raises(grpc.RpcError) as info:
            list(garbage)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        server.stop()


def test_huge_allocation_requests(server: dict[str, Any]) -> None:
    raw = server["raw"]
    handle = _session(raw, _const("c", 1.0))
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=["c:0"])
    req.feed.add(name="c:0").tensor.CopyFrom(
        named_tensor_pb2.TensorMeta(dtype=1, dim=[1 << 40], content_length=4 << 40)
    )
    err = _error(raw, MASTER + "RunStep", req.SerializeToString())
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # Declared first in a stream, before any byte arrives: refused without allocating.
    replies = raw.channel.stream_stream(MASTER + "RunStepStream")(iter([req.SerializeToString()]))
    with pytest.raises(grpc.RpcError) as info:
        list(replies)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # A graph that asks the task to allocate terabytes.
    g = tf.Graph()
    with g.as_default():
        z = tf.zeros([1 << 20, 1 << 20])
    with (
        tf.Session(f"grpc://localhost:{server['port']}", graph=g) as sess,
        pytest.raises(tf.errors.ResourceExhaustedError, match="OOM"),
    ):
        sess.run(z)
    _still_serving(server)


def test_feed_of_the_wrong_size_or_type(server: dict[str, Any]) -> None:
    raw = server["raw"]
    handle = _session(raw, _const("c", 1.0))
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=["c:0"])
    buffers = coding.fill_named(req.feed, ["c:0"], [np.ones(4, np.float32)])
    req.feed[0].tensor.content_length = 8  # lies about its size
    err = _error(raw, MASTER + "RunStep", coding.frame(req.SerializeToString(), buffers))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    unknown = master_pb2.RunStepRequest(session_handle=handle, fetch=["nope:0"])
    err = _error(raw, MASTER + "RunStep", unknown.SerializeToString())
    assert err.code() == grpc.StatusCode.NOT_FOUND
    _still_serving(server)


# ---- fuzzed requests --------------------------------------------------------------------------
# TFCLUSTER_FUZZ_EXAMPLES=5000 for a longer hunt than CI's.
FUZZ = settings(
    max_examples=int(os.environ.get("TFCLUSTER_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
names = st.text(alphabet="abcxyz_/:^0123", min_size=0, max_size=8)
metas = st.builds(
    named_tensor_pb2.TensorMeta,
    dtype=st.integers(-1, 130),
    dim=st.lists(st.integers(-2, 1 << 20), max_size=4),
    content_length=st.integers(-1, 1 << 22),
    string_length=st.lists(st.integers(-1, 10), max_size=3),
    shm_name=st.sampled_from(["", "", "tfcluster-1-abc", "../../etc/passwd", "tfcluster-x-1"]),
)


# Reset and CleanupAll clear every container when they parse (an empty message does): valid
# requests, not bad input, so they are left out where state must survive.
NOT_DESTRUCTIVE = [m for m in UNARY if not m.endswith(("/Reset", "/CleanupAll"))]


@FUZZ
@given(method=st.sampled_from(NOT_DESTRUCTIVE), data=st.binary(max_size=200))
def test_fuzzed_bytes(server: dict[str, Any], method: str, data: bytes) -> None:
    code = server["raw"].code(method, data, timeout=5.0)
    assert code in EXPECTED | {grpc.StatusCode.OK}, code
    assert health_status(server["port"]) == health_pb2.HealthCheckResponse.SERVING


@FUZZ
@given(
    handle=st.sampled_from(["", "bogus"]) | st.just("LIVE"),
    feeds=st.lists(st.tuples(names, metas), max_size=3),
    payload=st.binary(max_size=64),
    fetches=st.lists(names, max_size=3),
    targets=st.lists(names, max_size=2),
    timeout_ms=st.integers(0, 200),
)
def test_fuzzed_run_steps(
    server: dict[str, Any],
    handle: str,
    feeds: list[tuple[str, named_tensor_pb2.TensorMeta]],
    payload: bytes,
    fetches: list[str],
    targets: list[str],
    timeout_ms: int,
) -> None:
    raw = server["raw"]
    if handle == "LIVE":
        handle = _session(raw, _const("c", 2.0), node_def_pb2.NodeDef(name="n", op="NoOp"))
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=fetches, target=targets)
    req.options.timeout_in_ms = timeout_ms
    for name, meta in feeds:
        req.feed.add(name=name).tensor.CopyFrom(meta)
    data = coding.frame(req.SerializeToString(), [payload] if payload else [])
    code = raw.code(MASTER + "RunStep", data, timeout=10.0)
    assert code in EXPECTED | {grpc.StatusCode.OK}, code


def _random_node(draw: Any, i: int) -> node_def_pb2.NodeDef:
    op = draw(st.sampled_from(op_def_registry.registered_ops()))
    nd = node_def_pb2.NodeDef(name=f"n{i}", op=op)
    for _ in range(draw(st.integers(0, 2))):
        nd.input.append(draw(st.sampled_from([f"n{j}" for j in range(i)] or ["n0"])))
    for key in draw(st.lists(st.sampled_from(["T", "dtype", "value", "shape", "N", "axis"]))):
        kind = draw(st.sampled_from(["type", "i", "f", "s", "shape"]))
        attr = nd.attr[key]
        if kind == "type":
            attr.type = draw(st.integers(0, 25))
        elif kind == "i":
            attr.i = draw(st.integers(-5, 5))
        elif kind == "f":
            attr.f = draw(st.floats(allow_nan=True))
        elif kind == "s":
            attr.s = draw(st.binary(max_size=4))
        else:
            attr.shape.dim.add(size=draw(st.integers(-2, 4)))
    return nd


@st.composite
def graphs(draw: Any) -> list[node_def_pb2.NodeDef]:
    return [_random_node(draw, i) for i in range(draw(st.integers(1, 4)))]


def _kernelless_op_with_undecodable_attr() -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name="n0", op="QuantizedConv2DAndRelu")
    nd.attr["T"].s = b"\x80"
    return nd


def _concat_with_infinite_n() -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name="n0", op="ConcatV2")
    nd.attr["T"].type = types_pb2.DT_FLOAT
    nd.attr["N"].f = float("inf")
    return nd


@FUZZ
@given(nodes=graphs(), fetch_last=st.booleans())
@example(nodes=[_concat_with_infinite_n()], fetch_last=False)  # int(inf) while binding a kernel
# An op TF defines without any kernel, an attr that is not UTF-8: the placer's error names it.
@example(nodes=[_kernelless_op_with_undecodable_attr()], fetch_last=False)
# A fetched resource (an iterator) has no bytes to send: InvalidArgument, not INTERNAL.
@example(nodes=[node_def_pb2.NodeDef(name="n0", op="IteratorV2")], fetch_last=True)
# Abort may not end a task server's process: PermissionDenied, and the server serves on.
@example(nodes=[node_def_pb2.NodeDef(name="n0", op="Abort")], fetch_last=False)
def test_fuzzed_graphs(
    server: dict[str, Any], nodes: list[node_def_pb2.NodeDef], fetch_last: bool
) -> None:
    """Random graphs of real op types with random attrs: registered, planned, run."""
    raw = server["raw"]
    reg = worker_pb2.RegisterGraphRequest(session_handle="fuzz", graph_def=_graph(*nodes))
    if fetch_last:
        reg.fetch.append(f"{nodes[-1].name}:0")
    else:
        reg.target.append(nodes[-1].name)
    code = raw.code(WORKER + "RegisterGraph", reg.SerializeToString())
    assert code in EXPECTED | {grpc.StatusCode.OK}, code
    create = master_pb2.CreateSessionRequest(graph_def=_graph(*nodes))
    try:
        resp = raw.call(MASTER + "CreateSession", create.SerializeToString())
    except grpc.RpcError as e:
        assert e.code() in EXPECTED, e
        return
    handle = master_pb2.CreateSessionResponse.FromString(resp).session_handle
    step = master_pb2.RunStepRequest(session_handle=handle)
    step.options.timeout_in_ms = 2000
    if fetch_last:
        step.fetch.append(f"{nodes[-1].name}:0")
    else:
        step.target.append(nodes[-1].name)
    code = raw.code(MASTER + "RunStep", step.SerializeToString(), timeout=10.0)
    assert code in EXPECTED | {grpc.StatusCode.OK}, code
    raw.call(
        MASTER + "CloseSession",
        master_pb2.CloseSessionRequest(session_handle=handle).SerializeToString(),
    )


@FUZZ
@given(
    method=st.sampled_from(STREAMS),
    messages=st.lists(st.binary(max_size=40), min_size=0, max_size=4),
)
def test_fuzzed_streams(server: dict[str, Any], method: str, messages: list[bytes]) -> None:
    try:
        replies = server["raw"].stream(method, messages, timeout=5.0)
    except grpc.RpcError as e:
        assert e.code() in EXPECTED, e
        return
    for reply in replies:
        cls = master_pb2.RunStepResponse if "RunStep" in method else worker_pb2.RunGraphResponse
        resp = cls.FromString(reply)
        assert resp.status_code != tf.errors.UNKNOWN


def test_after_the_fuzzing_the_server_still_serves_and_kept_its_state(
    server: dict[str, Any],
) -> None:
    _still_serving(server)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        y = x * 2.0
    with tf.Session(f"grpc://localhost:{server['port']}", graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.5]}), [2.0, 5.0])
