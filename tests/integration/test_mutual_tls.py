"""Mutual TLS between tasks and clients, with real servers on loopback and certificates made
in the test: peers with a certificate of the cluster's CA run steps (on direct streams, the
fast path); a peer with no certificate, one of another CA, or an expired one is refused on
gRPC and on direct streams, with an error that says why on both sides; certificate files
that are replaced are served from the next connection on, while steps keep running."""

from __future__ import annotations

import json
import logging
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import numpy as np
import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support import tls_identities
from support.cluster_processes import free_ports
from tfcluster.cli.local_ca import write_identity
from tfcluster.rpc import shm, tls, tls_diagnosis
from tfcluster.rpc.direct import client as direct
from tfcluster.rpc.direct import wire as direct_wire
from tfcluster.task_server.options import ServerOptions

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

RPC_CONFIG = dict(operation_timeout_in_ms=30_000)
RUN_GRAPH = "/tfcluster.WorkerService/RunGraphStream"


@pytest.fixture
def ids(tmp_path: Path) -> tls_identities.Identities:
    return tls_identities.make(tmp_path)


@pytest.fixture
def secured(
    ids: tls_identities.Identities,
) -> Iterator[tuple[tf.train.Server, tf.train.Server]]:
    """A ps and a worker serving over mutual TLS (this process's connections show the task
    certificate, as a program that starts its own server does)."""
    ports = free_ports(2)
    cluster = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"]}
    given = tls_identities.files(ids.task)
    ps = tf.train.Server(cluster, job_name="ps", task_index=0, tls=given)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0, tls=given)
    yield ps, worker
    worker.stop(grace=0.0)
    ps.stop(grace=0.0)
    tls.use_for_clients(None)


def _remote_session(server: tf.train.Server, graph: tf.Graph) -> tf.Session:
    """A session that reaches the master over the network, though it is in this process."""
    config = tf.ConfigProto(**RPC_CONFIG)
    config.rpc_options.use_rpc_for_inprocess_master = True
    return tf.Session(server.target, graph=graph, config=config)


def _ps_graph() -> tuple[tf.Graph, tf.Variable, tf.Tensor, tf.Tensor]:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.zeros(4, np.float32), name="v")
        with tf.device("/job:worker/task:0"):
            step = v.assign_add(tf.ones(4))
            doubled = v * 2.0
    return g, v, step, doubled


def _wait_direct(address: str, step: object, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not direct.link(address).ready:
        assert time.monotonic() < end, f"no direct endpoint found for {address}"
        step()  # type: ignore[operator]
        time.sleep(0.01)


def test_a_cluster_over_mutual_tls_runs_steps_on_direct_streams(
    secured: tuple[tf.train.Server, tf.train.Server],
) -> None:
    ps, worker = secured
    g, v, step, doubled = _ps_graph()
    with _remote_session(worker, g) as sess:
        sess.run(v.initializer)
        _wait_direct(f"localhost:{worker.port}", lambda: sess.run(step))
        _wait_direct(f"localhost:{ps.port}", lambda: sess.run(step))
        before = sess.run(v)
        for _ in range(20):
            sess.run(step)
        np.testing.assert_array_equal(sess.run(v), before + 20)
        np.testing.assert_array_equal(sess.run(doubled), (before + 20) * 2)
    # The session's steps reached the worker's master, and its RunGraph the ps, directly.
    assert worker._transport.direct.calls_served > 0
    assert ps._transport.direct.calls_served > 0


def test_heartbeats_over_tls_keep_idle_streams_and_steps_whole(
    ids: tls_identities.Identities,
) -> None:
    """Heartbeat frames between steps travel as TLS records of their own: streams idle for
    many of them still carry the next steps, whole."""
    ports = free_ports(2)
    cluster = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"]}
    given = tls_identities.files(ids.task)
    quick = ServerOptions(heartbeat_seconds=0.1)
    ps = tf.train.Server(cluster, job_name="ps", task_index=0, tls=given, options=quick)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0, tls=given, options=quick)
    try:
        g, v, step, _ = _ps_graph()
        with _remote_session(worker, g) as sess:
            sess.run(v.initializer)
            _wait_direct(f"localhost:{worker.port}", lambda: sess.run(step))
            _wait_direct(f"localhost:{ps.port}", lambda: sess.run(step))
            for _ in range(5):  # every stream a step uses is open
                sess.run(step)
            before = sess.run(v)
            for _ in range(3):
                time.sleep(1.0)  # ten heartbeats on every open stream
                sess.run(step)
            np.testing.assert_array_equal(sess.run(v), before + 3)
        assert worker._transport.direct.calls_served > 0 and ps._transport.direct.calls_served > 0
    finally:
        worker.stop(grace=0.0)
        ps.stop(grace=0.0)
        tls.use_for_clients(None)


@pytest.mark.parametrize("shm_setting", ["0", "1"])
def test_big_tensors_over_tls_arrive_whole_through_shm_or_the_encrypted_stream(
    secured: tuple[tf.train.Server, tf.train.Server],
    monkeypatch: pytest.MonkeyPatch,
    shm_setting: str,
) -> None:
    """12 MiB each way: on one host through /dev/shm (cheaper than encrypting it), without
    /dev/shm (as across hosts) in the TLS stream itself, in pieces of many TLS records."""
    monkeypatch.setenv("TFCLUSTER_SHM", shm_setting)
    ps, worker = secured
    n = 3 << 20
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(n, dtype=np.float32), name="big")
            fed = tf.placeholder(tf.float32, [n], name="fed")
            total = tf.reduce_sum(fed)
        with tf.device("/job:worker/task:0"):
            doubled = v * 2.0
    exports: list[int] = []
    export = shm.export
    monkeypatch.setattr(shm, "export", lambda a: exports.append(a.nbytes) or export(a))
    with _remote_session(worker, g) as sess:
        sess.run(v.initializer)
        _wait_direct(f"localhost:{worker.port}", lambda: sess.run(total, {fed: np.ones(n)}))
        _wait_direct(f"localhost:{ps.port}", lambda: sess.run(total, {fed: np.ones(n)}))
        for _ in range(2):
            out = sess.run(doubled)
            np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32) * 2.0)
            assert sess.run(total, {fed: np.full(n, 0.5, np.float32)}) == n / 2
    assert worker._transport.direct.calls_served > 0 and ps._transport.direct.calls_served > 0
    if shm_setting == "1":
        assert exports and min(exports) >= shm.THRESHOLD
    else:
        assert exports == []


@pytest.mark.parametrize("secure", [True, False])
def test_a_megabyte_tensor_between_tasks_of_one_host_skips_encryption_through_shm(
    ids: tls_identities.Identities, monkeypatch: pytest.MonkeyPatch, secure: bool
) -> None:
    """A 1 MiB tensor (an MLP's weight matrix and its gradient: below shm.THRESHOLD) between
    a ps and a worker of one host: over TLS direct streams it goes through a /dev/shm file
    (each way: fetched from the ps, fed to it), as encrypting it costs more; over plain
    direct streams it stays in the stream (a socket costs less than a file)."""
    monkeypatch.setenv("TFCLUSTER_SHM", "1")
    ports = free_ports(2)
    cluster = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"]}
    given = tls_identities.files(ids.task) if secure else None
    ps = tf.train.Server(cluster, job_name="ps", task_index=0, tls=given)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0, tls=given)
    n = 1 << 18  # float32: 1 MiB
    assert shm.ENCRYPTED_THRESHOLD <= 4 * n < shm.THRESHOLD
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(n, dtype=np.float32), name="w")
        with tf.device("/job:worker/task:0"):
            grad = v * 2.0  # read from the ps on the worker ...
        with tf.device("/job:ps/task:0"):
            step = v.assign_sub(grad)  # ... and sent back to it
    exports: list[int] = []
    export = shm.export
    monkeypatch.setattr(shm, "export", lambda a: exports.append(a.nbytes) or export(a))
    try:
        with _remote_session(worker, g) as sess:
            sess.run(v.initializer)
            _wait_direct(f"localhost:{ps.port}", lambda: sess.run(step))
            sess.run(v.initializer)
            exports.clear()
            sess.run(step)
            np.testing.assert_array_equal(sess.run(v), -np.arange(n, dtype=np.float32))
        assert ps._transport.direct.calls_served > 0
        if secure:
            assert exports.count(4 * n) >= 2  # the read and the gradient
        else:
            assert exports == []
    finally:
        worker.stop(grace=0.0)
        ps.stop(grace=0.0)
        tls.use_for_clients(None)


def _health(port: int, credentials: grpc.ChannelCredentials | None) -> int:
    address = f"localhost:{port}"
    channel = (
        grpc.insecure_channel(address)
        if credentials is None
        else grpc.secure_channel(address, credentials)
    )
    with channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=5
        )
    return int(reply.status)


def _refused_identities(ids: tls_identities.Identities) -> dict[str, tls.TLSMaterial | None]:
    return {
        "no certificate": None,
        "another CA's certificate": tls_identities.material(ids.other_ca_trusting_ours),
        "an expired certificate": tls_identities.material(ids.expired_client),
    }


@pytest.mark.parametrize(
    "who", ["no certificate", "another CA's certificate", "an expired certificate"]
)
def test_grpc_refuses_a_peer_without_a_valid_certificate_of_the_cluster_ca(
    secured: tuple[tf.train.Server, tf.train.Server], ids: tls_identities.Identities, who: str
) -> None:
    ps, _ = secured
    good = tls_identities.material(ids.client)
    assert _health(ps.port, good.channel_credentials()) == health_pb2.HealthCheckResponse.SERVING
    bad = _refused_identities(ids)[who]
    with pytest.raises(grpc.RpcError) as info:
        _health(ps.port, None if bad is None else bad.channel_credentials())
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    # What a session in that process is told (gRPC itself only retries: see tls_diagnosis).
    why = tls_diagnosis.diagnose(f"localhost:{ps.port}", bad)
    if bad is None:
        assert "requires mutual TLS and this process has no certificate" in why
    else:
        assert "refused this process's certificate" in why
    # The server goes on serving the good ones.
    assert _health(ps.port, good.channel_credentials()) == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize(
    "who", ["no certificate", "another CA's certificate", "an expired certificate"]
)
def test_direct_streams_refuse_a_peer_without_a_valid_certificate_of_the_cluster_ca(
    secured: tuple[tf.train.Server, tf.train.Server],
    ids: tls_identities.Identities,
    who: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ps, _ = secured
    token = ps._transport.direct.token
    good = tls_identities.material(ids.client)
    direct.connect("localhost", ps.direct_port, direct_wire.PROBE, token, 5, material=good).close()
    bad = _refused_identities(ids)[who]
    with (
        caplog.at_level(logging.WARNING, logger="tfcluster.server"),
        pytest.raises(grpc.RpcError) as info,
    ):
        direct.connect("localhost", ps.direct_port, RUN_GRAPH, token, 5, material=bad).close()
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    if bad is None:
        assert "a task that requires TLS hangs up too" in info.value.details()
    else:
        assert "refused this process's certificate" in info.value.details()
    # The task's side: a warning that names the peer and the reason.
    end = time.monotonic() + 5
    while "refused a direct connection" not in caplog.text and time.monotonic() < end:
        time.sleep(0.05)
    assert "refused a direct connection from" in caplog.text
    assert "certificate from this cluster's CA" in caplog.text
    # And it goes on serving the good ones.
    direct.connect("localhost", ps.direct_port, direct_wire.PROBE, token, 5, material=good).close()


def test_a_client_refuses_a_task_whose_certificate_is_not_from_its_ca(
    ids: tls_identities.Identities,
) -> None:
    port = free_ports(1)[0]
    stranger = tf.train.Server(
        {"worker": [f"localhost:{port}"]},
        job_name="worker",
        task_index=0,
        tls=tls_identities.files(ids.other_ca_task),
    )
    try:
        ours = tls_identities.material(ids.client)
        why = tls_diagnosis.diagnose(f"localhost:{port}", ours)
        assert f"the task at localhost:{port} is not trusted" in why
        with pytest.raises(grpc.RpcError) as info:
            direct.connect(
                "localhost",
                stranger.direct_port,
                RUN_GRAPH,
                stranger._transport.direct.token,
                5,
                material=ours,
            )
        assert "is not trusted" in info.value.details()
    finally:
        stranger.stop(grace=0.0)
        tls.use_for_clients(None)


CLIENT = """
import sys
import tfcluster as tf
c = tf.constant(41) + 1
config = tf.ConfigProto(operation_timeout_in_ms=20000)
try:
    with tf.Session(sys.argv[1], config=config) as sess:
        print("ANSWER", sess.run(c))
except tf.errors.OpError as e:
    print("ERROR", type(e).__name__, e.message)
"""


def _client(target: str, env: dict[str, str]) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("TFCLUSTER_TLS_")}
    full.update(env, GRPC_VERBOSITY="ERROR")
    proc = subprocess.run(
        [sys.executable, "-c", CLIENT, target],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_a_program_is_configured_for_tls_by_its_environment_alone(
    secured: tuple[tf.train.Server, tf.train.Server], ids: tls_identities.Identities
) -> None:
    """The same TF1 program: with the client-tls files in its environment it runs; without,
    or with another CA's certificate, it fails at once saying why (not after its timeout)."""
    _, worker = secured
    target = worker.target
    assert "ANSWER 42" in _client(target, tls_identities.env(ids.client))
    started = time.monotonic()
    plain = _client(target, {})
    assert "ERROR UnauthenticatedError" in plain
    assert "requires mutual TLS and this process has no certificate" in plain
    assert "TFCLUSTER_TLS_CERT" in plain
    stranger = _client(target, tls_identities.env(ids.other_ca_client))
    assert "ERROR UnauthenticatedError" in stranger and "is not trusted" in stranger
    assert time.monotonic() - started < 60  # each far below the 20 s operation timeout


def _served_certificate(port: int, ids: tls_identities.Identities) -> bytes:
    """The certificate a task shows a new connection on `port` (DER)."""
    ctx = tls_identities.material(ids.client).client_context
    with (
        socket.create_connection(("localhost", port), timeout=5) as raw,
        ctx.wrap_socket(raw, server_hostname="localhost") as sock,
    ):
        return bytes(sock.getpeercert(binary_form=True) or b"")


def _der(pem_path: str) -> bytes:
    return ssl.PEM_cert_to_DER_cert(Path(pem_path).read_text())


def test_renewed_certificate_files_are_served_without_a_restart_or_a_failed_step(
    tmp_path: Path, ids: tls_identities.Identities
) -> None:
    """As a Kubernetes Secret volume renews them: new files swapped in by a rename."""
    folder = tmp_path / "mounted"
    first = write_identity(
        folder,
        "tls",
        ids.ca.issue("task", tls_identities.LOCAL_NAMES, tls_identities.LOCAL_ADDRESSES),
        ids.ca.cert_pem,
    )
    ports = free_ports(2)
    cluster = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"]}
    given = tls_identities.files(first)
    ps = tf.train.Server(cluster, job_name="ps", task_index=0, tls=given)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0, tls=given)
    failures: list[BaseException] = []
    steps = [0]
    stop = threading.Event()
    try:
        g, v, step, _ = _ps_graph()
        with _remote_session(worker, g) as sess:
            sess.run(v.initializer)

            def train() -> None:
                while not stop.is_set():
                    try:
                        sess.run(step)
                        steps[0] += 1
                    except BaseException as e:
                        failures.append(e)
                        return

            runner = threading.Thread(target=train)
            runner.start()
            try:
                old_der = _der(first.cert)
                assert _served_certificate(ps.port, ids) == old_der
                assert _served_certificate(ps.direct_port, ids) == old_der
                renewed = ids.ca.issue(
                    "task", tls_identities.LOCAL_NAMES, tls_identities.LOCAL_ADDRESSES
                )
                staging = write_identity(tmp_path / "staging", "tls", renewed, ids.ca.cert_pem)
                os.replace(staging.key, first.key)
                os.replace(staging.cert, first.cert)
                new_der = _der(first.cert)
                assert new_der != old_der
                end = time.monotonic() + 30
                while _served_certificate(ps.port, ids) != new_der:
                    assert time.monotonic() < end, "the gRPC port still shows the old certificate"
                    time.sleep(0.2)
                end = time.monotonic() + 30
                while _served_certificate(ps.direct_port, ids) != new_der:
                    assert time.monotonic() < end, "direct streams still show the old certificate"
                    time.sleep(0.2)
                # This process's own connections show the renewed certificate from now on.
                material = tls.client_material()
                assert material is not None and _der_of(material.cert_chain) == new_der
                before = steps[0]
                deadline = time.monotonic() + 30
                while steps[0] < before + 20 and time.monotonic() < deadline:
                    time.sleep(0.05)
            finally:
                stop.set()
                runner.join(30)
            assert failures == [], f"a step failed after {steps[0]} steps: {failures!r}"
            assert steps[0] >= 20
            # A new session (new connections, with the renewed certificates) works too.
            with _remote_session(worker, g) as fresh:
                assert float(fresh.run(v)[0]) >= steps[0]
    finally:
        worker.stop(grace=0.0)
        ps.stop(grace=0.0)
        tls.use_for_clients(None)


def _der_of(pem: bytes) -> bytes:
    return ssl.PEM_cert_to_DER_cert(pem.decode())


@pytest.mark.slow
def test_tfcluster_train_with_tls_trains_between_graph_over_mutual_tls(tmp_path: Path) -> None:
    """The main job with a CA made for the run: every task's server and session use it."""
    pytest.importorskip("sklearn")
    logdir = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFCLUSTER_TLS_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "train",
            "--tls",
            "--last_step=300",
            f"--logdir={logdir}",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"mutual TLS with a CA made for this run: {logdir / 'tls'}" in proc.stdout
    chief = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")][-1]
    assert json.loads(chief[len("RESULT ") :])["held_out_accuracy"] > 0.85
    worker_1 = (logdir / "tasks" / "worker-1.log").read_text()
    assert "RESULT " in worker_1
    assert (logdir / "tls" / "ca.crt").exists()
    assert os.stat(logdir / "tls" / "task.key").st_mode & 0o077 == 0
