"""Task server metrics on in-process servers: what each step, transfer and error adds, the
scrape-time state, ports and their sources, the health service, and the local session's
freedom from all of it. Every value is read back over HTTP with prometheus-client's parser."""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
import urllib.error
from collections.abc import Iterator

import grpc
import numpy as np
import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.metrics_scrape import Scrape, delta, scrape
from support.ports import free_ports
from tfcluster.cli import server_main
from tfcluster.cli import tfcluster_main as cli
from tfcluster.distributed.local import new_local_master
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.protos import worker_pb2
from tfcluster.rpc.master_client import master_client_for
from tfcluster.runtime.rendezvous import make_key
from tfcluster.settings.contract import DEFAULT_METRICS_PORT, METRICS_PORT_ENV
from tfcluster.task_server import ports
from tfcluster.task_server.metrics import families as m
from tfcluster.task_server.metrics.measured import MeasuredMaster, MeasuredWorker, tensor_nbytes

MASTER = "/tfcluster.MasterService/"
WORKER = "/tfcluster.WorkerService/"


@pytest.fixture
def server() -> Iterator[tf.train.Server]:
    s = tf.train.Server({"local": ["localhost:0"]}, metrics_port=0)
    try:
        yield s
    finally:
        s.stop()


def _port(server: tf.train.Server) -> int:
    assert server.metrics_port is not None
    return server.metrics_port


def _rpc_config() -> tf.ConfigProto:
    """Sessions that use gRPC even though the master lives in this process."""
    config = tf.ConfigProto()
    config.rpc_options.use_rpc_for_inprocess_master = True
    return config


def _health(port: int, service: str) -> int | None:
    with grpc.insecure_channel(f"localhost:{port}") as ch:
        try:
            resp = health_pb2_grpc.HealthStub(ch).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=0.5
            )
        except grpc.RpcError:
            return None
        return int(resp.status)


# ---- steps, bytes, state ---------------------------------------------------------------------


@pytest.mark.parametrize("via_grpc", [False, True], ids=["in-process", "grpc"])
def test_steps_bytes_and_state_move_by_exact_amounts(
    server: tf.train.Server, via_grpc: bool
) -> None:
    port = _port(server)
    ident = {"tf_job": "local", "tf_task": "0"}
    with tf.container("steps"):
        v = tf.Variable(np.zeros([3, 4], np.float32), name="v")
        w = tf.Variable(np.zeros([5], np.float64), name="w")
    x = tf.placeholder(tf.float32, [3, 4])
    step = v.assign_add(x)
    total = tf.reduce_sum(step)
    config = _rpc_config() if via_grpc else None
    sess = tf.Session(server.target, config=config)
    sess.run([v.initializer, w.initializer])
    before = scrape(port)
    assert before.value(m.MASTER_SESSIONS, **ident) == 1
    feed = np.ones([3, 4], np.float32)
    steps = 7
    for i in range(steps):
        out = sess.run([step, total], {x: feed})
        assert out[1] == pytest.approx(12.0 * (i + 1))
    after = scrape(port)
    assert delta(after, before, m.MASTER_STEP_SECONDS + "_count", **ident) == steps
    assert delta(after, before, m.WORKER_STEP_SECONDS + "_count", **ident) == steps
    # The +Inf bucket holds every step; the sum is the time they took.
    assert delta(after, before, m.MASTER_STEP_SECONDS + "_bucket", le="+Inf") == steps
    assert 0 < delta(after, before, m.MASTER_STEP_SECONDS + "_sum") < 30
    assert delta(after, before, m.MASTER_FED_BYTES + "_total", **ident) == steps * feed.nbytes
    # Fetched: the updated variable (48 bytes) and the float32 sum (4 bytes), every step.
    assert delta(after, before, m.MASTER_FETCHED_BYTES + "_total", **ident) == steps * (48 + 4)
    # One container, two variables of 48 and 40 bytes.
    assert after.by_label(m.WORKER_VARIABLES, "container", **ident) == {"steps": 2}
    assert after.by_label(m.WORKER_VARIABLE_BYTES, "container", **ident) == {"steps": 88}
    # Two run signatures (initializers, the step), each registered once with the worker.
    assert after.value(m.WORKER_GRAPHS, **ident) == 2
    assert after.value(m.ERRORS + "_total") == 0
    sess.close()
    closed = scrape(port)
    assert closed.value(m.MASTER_SESSIONS, **ident) == 0
    assert closed.value(m.WORKER_GRAPHS, **ident) == 0
    tf.Session.reset(server.target, ["steps"])
    assert scrape(port).by_label(m.WORKER_VARIABLES, "container") == {}


def test_bytes_of_string_tensors_are_their_bytes(server: tf.train.Server) -> None:
    port = _port(server)
    s = tf.placeholder(tf.string, [2])
    joined = tf.identity(s)
    with tf.Session(server.target) as sess:
        before = scrape(port)
        out = sess.run(joined, {s: np.array([b"abc", b"de"], dtype=object)})
        assert list(out) == [b"abc", b"de"]
        after = scrape(port)
    assert delta(after, before, m.MASTER_FED_BYTES + "_total") == 5
    assert delta(after, before, m.MASTER_FETCHED_BYTES + "_total") == 5


def test_tensor_nbytes() -> None:
    assert tensor_nbytes(np.zeros([2, 3], np.float64)) == 48
    assert tensor_nbytes(np.float32(1.0)) == 4
    assert tensor_nbytes(np.array([b"ab", "cde"], dtype=object)) == 5
    assert tensor_nbytes(b"abcd") == 4
    assert tensor_nbytes(None) == 0


# ---- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("via_grpc", [False, True], ids=["in-process", "grpc"])
def test_a_failed_step_counts_once_on_the_master_and_once_on_the_worker(
    server: tf.train.Server, via_grpc: bool
) -> None:
    port = _port(server)
    v = tf.Variable(1.0, name="never_initialized")
    with tf.Session(server.target, config=_rpc_config() if via_grpc else None) as sess:
        before = scrape(port)
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
            sess.run(v.value())
        after = scrape(port)
    code = "FAILED_PRECONDITION"
    assert delta(after, before, m.ERRORS + "_total", method="RunStep", code=code) == 1
    assert delta(after, before, m.ERRORS + "_total", method="RunGraph", code=code) == 1
    assert delta(after, before, m.ERRORS + "_total") == 2  # nothing else, nothing twice
    # A failed step is no completed step.
    assert delta(after, before, m.MASTER_STEP_SECONDS + "_count") == 0


def test_bad_requests_count_under_their_method_and_code(server: tf.train.Server) -> None:
    port = _port(server)
    before = scrape(port)
    with grpc.insecure_channel(f"localhost:{server.port}") as ch:

        def code(method: str, data: bytes) -> grpc.StatusCode:
            try:
                ch.unary_unary(method)(data, timeout=10)
            except grpc.RpcError as e:
                return e.code()  # type: ignore[no-any-return]
            return grpc.StatusCode.OK

        garbage = b"\xff\xff\xff\xff"
        assert code(MASTER + "RunStep", garbage) == grpc.StatusCode.INVALID_ARGUMENT
        assert code(MASTER + "CreateSession", garbage) == grpc.StatusCode.INVALID_ARGUMENT
        assert code(WORKER + "RegisterGraph", garbage) == grpc.StatusCode.INVALID_ARGUMENT
        # Reaches the worker, which fails it (counted there, not again by the gRPC layer).
        unknown = worker_pb2.RunGraphRequest(session_handle="s", graph_handle="nope", step_id=1)
        assert code(WORKER + "RunGraph", unknown.SerializeToString()) == grpc.StatusCode.ABORTED
        # A peer asks for a tensor of a step that was aborted here: the worker answers with
        # the step's error (counted by the worker, once).
        abort = worker_pb2.CleanupGraphRequest(step_id=777, abort_code=10, abort_message="gone")
        assert code(WORKER + "CleanupGraph", abort.SerializeToString()) == grpc.StatusCode.OK
        key = make_key("/job:local/replica:0/task:0/device:CPU:0", "/job:x/device:CPU:0", "t:0")
        recv = worker_pb2.RecvTensorRequest(step_id=777, rendezvous_key=key)
        assert code(WORKER + "RecvTensor", recv.SerializeToString()) == grpc.StatusCode.ABORTED
        # Unknown methods are gRPC's UNIMPLEMENTED, and no label of ours.
        assert code(MASTER + "NoSuchMethod", b"") == grpc.StatusCode.UNIMPLEMENTED
    after = scrape(port)
    errors = m.ERRORS + "_total"
    assert delta(after, before, errors, method="RunStep", code="INVALID_ARGUMENT") == 1
    assert delta(after, before, errors, method="CreateSession", code="INVALID_ARGUMENT") == 1
    assert delta(after, before, errors, method="RegisterGraph", code="INVALID_ARGUMENT") == 1
    assert delta(after, before, errors, method="RunGraph", code="ABORTED") == 1
    assert delta(after, before, errors, method="RecvTensor", code="ABORTED") == 1
    assert delta(after, before, errors) == 5
    assert delta(after, before, m.RECV_TENSOR_SECONDS + "_count") == 0  # none was sent
    assert all(lab["tf_task"] == "0" for lab, _ in after.matching(errors))


def test_code_names_follow_the_status_a_client_gets() -> None:
    assert m.code_name(tf.errors.NotFoundError(None, None, "x")) == "NOT_FOUND"
    assert m.code_name(MemoryError()) == "RESOURCE_EXHAUSTED"
    assert m.code_name(ValueError()) == "INTERNAL"
    assert set(m.CODE_NAMES.values()) == {c.name for c in grpc.StatusCode} - {"OK"}


# ---- several servers, ports and their sources ------------------------------------------------


def test_servers_in_one_process_keep_their_own_registries() -> None:
    a = tf.train.Server({"local": ["localhost:0"]}, metrics_port=0)
    b = tf.train.Server({"local": ["localhost:0"]}, metrics_port=0)
    try:
        assert a.metrics is not None and b.metrics is not None
        assert a.metrics.registry is not b.metrics.registry
        assert a.metrics_port != b.metrics_port
        with tf.Session(a.target) as sess:
            for _ in range(3):
                sess.run(tf.constant(1.0) + 1.0)
        sa, sb = scrape(_port(a)), scrape(_port(b))
        assert sa.value(m.MASTER_STEP_SECONDS + "_count") == 3
        assert sb.value(m.MASTER_STEP_SECONDS + "_count") == 0
        # The process collector is in each registry.
        assert sa.value("process_resident_memory_bytes") > 0
        assert sb.value("process_resident_memory_bytes") > 0
    finally:
        a.stop()
        b.stop()


def test_metrics_are_off_unless_asked_and_local_sessions_are_never_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(METRICS_PORT_ENV, raising=False)
    plain = tf.train.Server({"local": ["localhost:0"]})
    try:
        assert plain.metrics_port is None and plain.metrics is None
        # Sessions and peers reach the plain Master and Worker: nothing in between.
        assert _served_master(plain) is plain.master
        assert plain._core.worker_cache.worker(plain.task) is plain.worker
    finally:
        plain.stop()
    local = new_local_master()
    assert type(local) is Master and type(local.worker_cache.worker("")) is Worker
    with tf.train.Server({"local": ["localhost:0"]}, metrics_port=0) as measured:
        assert isinstance(_served_master(measured), MeasuredMaster)
        assert isinstance(measured._core.worker_cache.worker(measured.task), MeasuredWorker)
        # The core objects stay what they are: only what is served is wrapped.
        assert type(measured.master) is Master and type(measured.worker) is Worker


def _served_master(server: tf.train.Server) -> object:
    """The master an in-process session of `server` calls."""
    return master_client_for(server.target)._master


def test_the_environment_variable_turns_metrics_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(METRICS_PORT_ENV, "0")
    with tf.train.Server({"local": ["localhost:0"]}) as s:
        assert s.metrics_port is not None
        assert m.MASTER_SESSIONS in scrape(s.metrics_port).names
    # An explicit 'off' (or negative) wins over the environment.
    for off in (-1, "off"):
        with tf.train.Server({"local": ["localhost:0"]}, metrics_port=off) as s:
            assert s.metrics_port is None
    monkeypatch.setenv(METRICS_PORT_ENV, "off")
    with tf.train.Server({"local": ["localhost:0"]}) as s:
        assert s.metrics_port is None


def _listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("0.0.0.0", 0))
    sock.listen()
    return sock


def test_a_port_in_use(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    sock = _listening_socket()
    taken = sock.getsockname()[1]
    try:
        # Asked for explicitly: the server does not start.
        with pytest.raises(tf.errors.UnknownError, match=f"metrics port {taken} .*in use"):
            tf.train.Server({"local": ["localhost:0"]}, metrics_port=taken)
        # From the environment: a warning, and a working server without metrics.
        monkeypatch.setenv(METRICS_PORT_ENV, str(taken))
        with caplog.at_level(logging.WARNING, logger="tfcluster.metrics"):
            s = tf.train.Server({"local": ["localhost:0"]})
        try:
            assert s.metrics_port is None
            assert f"metrics port {taken}" in caplog.text and METRICS_PORT_ENV in caplog.text
            with tf.Session(s.target) as sess:
                assert sess.run(tf.constant(2)) == 2
        finally:
            s.stop()
    finally:
        sock.close()


def test_a_grpc_port_in_use_releases_the_metrics_port() -> None:
    sock = _listening_socket()
    grpc_port = sock.getsockname()[1]
    (metrics_port,) = free_ports(1)
    try:
        with pytest.raises(tf.errors.UnknownError, match="gRPC"):
            tf.train.Server({"local": [f"localhost:{grpc_port}"]}, metrics_port=metrics_port)
    finally:
        sock.close()
    with tf.train.Server({"local": ["localhost:0"]}, metrics_port=metrics_port) as s:
        assert s.metrics_port == metrics_port


def test_stop_closes_the_endpoint() -> None:
    s = tf.train.Server({"local": ["localhost:0"]}, metrics_port=0)
    port = _port(s)
    assert scrape(port).names
    t0 = time.monotonic()
    s.stop()
    assert time.monotonic() - t0 < 3.0
    with pytest.raises(urllib.error.URLError):
        scrape(port, timeout=2)


def test_parse_and_resolve_port() -> None:
    assert ports.parse_port("9090", "x") == 9090
    assert ports.parse_port(" 0 ", "x") == 0
    assert ports.parse_port("off", "x") is None and ports.parse_port("-1", "x") is None
    with pytest.raises(ValueError, match="--metrics_port must be a port number"):
        ports.parse_port("http", "--metrics_port")
    with pytest.raises(ValueError, match="at most 65535"):
        ports.parse_port("70000", "x")
    resolve = ports.resolve_metrics_port
    assert resolve(None, "") == ports.PortChoice(None, False, "default")
    assert resolve(None, "123") == ports.PortChoice(123, False, METRICS_PORT_ENV)
    assert resolve(0) == ports.PortChoice(0, True, "metrics_port")
    assert resolve("off").port is None
    # A bad variable is ignored (with a warning) by programs that create servers.
    assert resolve(None, "nope").port is None


def test_server_command_port_resolution() -> None:
    def resolve(argv: list[str], env: dict[str, str]) -> tuple[int | None, bool, str]:
        args = server_main.build_parser().parse_args(argv)
        choice, warning = server_main.resolve_metrics_port(args, env)
        assert warning == ""
        return choice.port, choice.required, choice.source

    # The flag wins; a port asked for must be had.
    assert resolve(["--metrics_port=1234"], {METRICS_PORT_ENV: "999"}) == (
        1234,
        True,
        "--metrics_port",
    )
    assert resolve([], {METRICS_PORT_ENV: "999"}) == (999, True, METRICS_PORT_ENV)
    assert resolve(["--metrics_port=off"], {METRICS_PORT_ENV: "999"})[0] is None
    assert resolve(["--metrics_port=-1"], {})[0] is None
    assert resolve(["--metrics_port=0"], {})[0] == 0
    with pytest.raises(server_main.UsageError, match="TFCLUSTER_METRICS_PORT must be a port"):
        resolve([], {METRICS_PORT_ENV: "x"})
    with pytest.raises(server_main.UsageError, match="--metrics_port must be a port"):
        resolve(["--metrics_port=x"], {})


def test_server_command_default_metrics_port_is_a_wish() -> None:
    """9090 unless something has it: then no metrics, and a warning; even when free, a
    server that loses it to another at the last moment runs without metrics."""
    args = server_main.build_parser().parse_args([])
    holder = None
    if ports.port_available(DEFAULT_METRICS_PORT):
        choice, warning = server_main.resolve_metrics_port(args, {})
        assert choice == ports.PortChoice(DEFAULT_METRICS_PORT, False, "the default port")
        assert warning == ""
        holder = socket.socket()
        holder.bind(("0.0.0.0", DEFAULT_METRICS_PORT))
        holder.listen()
    try:
        choice, warning = server_main.resolve_metrics_port(args, {})
        assert choice.port is None and "9090 is in use" in warning
    finally:
        if holder is not None:
            holder.close()


# ---- what the module promises --------------------------------------------------------------


def test_every_family_is_exposed_and_named_in_the_module(server: tf.train.Server) -> None:
    """FAMILIES (which the Grafana dashboard's test reads) is exactly what a server exposes."""
    port = _port(server)
    v = tf.Variable(1.0)
    with tf.Session(server.target) as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(tf.Variable(2.0).value())
        got = scrape(port)
    exposed = {n for n in got.names if n.startswith("tfcluster_")}
    assert exposed <= m.sample_names()
    gpu = {m.GPU_MEMORY_USED_BYTES, m.GPU_MEMORY_POOL_BYTES}
    # (The text format writes a counter's or histogram's creation time as a gauge of its own.)
    families = {f for f in got.types if f.startswith("tfcluster_") and not f.endswith("_created")}
    assert families == set(m.FAMILIES) - gpu
    for family, kind in m.FAMILIES.items():
        if family not in gpu:
            assert got.types[family] == kind, family
    # Identity labels on every tfcluster series, bounded label sets only.
    allowed = {"tf_job", "tf_task", "method", "code", "container", "device", "le"}
    for name, labels, _ in got.samples:
        if name.startswith("tfcluster_"):
            assert labels["tf_job"] == "local" and labels["tf_task"] == "0", name
            assert set(labels) <= allowed, (name, labels)


def test_no_gpu_memory_without_a_usable_gpu() -> None:
    assert m.gpu_memory([]) == {}  # a worker without GPUs
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            usable = cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:  # cupy without a driver
            usable = False
        if usable:
            pytest.skip("a GPU is usable here (see test_gpu_memory_of_cupy_arrays)")
    # Without cupy loaded, or cupy without a driver: nothing, and the scrape does not fail.
    assert m.gpu_memory([0]) == {}


@pytest.mark.gpu
def test_gpu_memory_of_cupy_arrays() -> None:
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU")
    except Exception as e:  # no driver
        pytest.skip(f"no usable GPU: {e}")
    before = m.gpu_memory([0])["GPU:0"]
    a = cupy.zeros(1 << 20, dtype=cupy.float32)
    after = m.gpu_memory([0])["GPU:0"]
    assert after[0] - before[0] >= a.nbytes
    assert after[1] >= after[0]


# ---- health ----------------------------------------------------------------------------------


def test_health_is_serving_once_started_and_not_serving_while_stopping() -> None:
    services = ("", "tfcluster.MasterService", "tfcluster.WorkerService")
    s = tf.train.Server({"local": ["localhost:0"]}, start=False, metrics_port=0)
    port = s.port
    assert {_health(port, svc) for svc in services} == {None}  # not started: no answer
    s.start()
    serving = health_pb2.HealthCheckResponse.SERVING
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    assert [_health(port, svc) for svc in services] == [serving] * 3
    stopper = threading.Thread(target=s.stop, kwargs={"grace": 0.5, "drain": 1.0})
    stopper.start()
    seen: dict[str, set[int | None]] = {svc: set() for svc in services}
    while stopper.is_alive():
        for svc in services:
            seen[svc].add(_health(port, svc))
        time.sleep(0.02)
    stopper.join()
    for svc in services:
        assert not_serving in seen[svc], (svc, seen[svc])
        assert serving not in seen[svc], (svc, seen[svc])
    assert _health(port, "") is None  # gone


def test_scrape_helper_parses_the_text_format() -> None:
    text = '# HELP a_total x\n# TYPE a_total counter\na_total{k="1"} 2.0\na_total{k="2"} 3.0\n'
    got = Scrape(text)
    assert got.value("a_total") == 5 and got.value("a_total", k="2") == 3
    assert got.by_label("a_total", "k") == {"1": 2.0, "2": 3.0}


def test_local_clusters_get_a_metrics_port_per_task() -> None:
    cluster = cli.local_cluster(1, 2)
    chosen = cli.metrics_ports(cluster)
    assert list(chosen) == ["ps-0", "worker-0", "worker-1"]
    grpc_ports = {int(a.rsplit(":", 1)[1]) for tasks in cluster.values() for a in tasks}
    assert len(set(chosen.values())) == 3 and not grpc_ports & set(chosen.values())
