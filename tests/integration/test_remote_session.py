"""Remote sessions against task servers in separate processes, and the server command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2
from support.cluster_processes import Cluster, TaskProcess, free_ports, health_status

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _server_command() -> list[str]:
    # The console script installed beside this interpreter (the venv's bin/, which need not be
    # on PATH; another tfcluster-server found on PATH could belong to another install).
    beside = Path(sys.executable).parent / "tfcluster-server"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "tfcluster.cli.server_main"]


def test_a_remote_session_on_a_tfcluster_server_command_task() -> None:
    (port,) = free_ports(1)
    task = TaskProcess(
        f"local|localhost:{port}", "local", 0, port, command=_server_command()
    ).wait_serving()
    try:
        c = tf.constant("Hello, distributed TensorFlow!")
        sess = tf.Session(f"grpc://localhost:{port}")
        assert sess.run(c) == b"Hello, distributed TensorFlow!"
        sess.close()
        for service in ("", "tfcluster.MasterService", "tfcluster.WorkerService"):
            assert health_status(port, service) == health_pb2.HealthCheckResponse.SERVING
    finally:
        code = task.terminate()
    assert code == 0
    err = task.stderr()
    assert "tfcluster-server ready: /job:local/task:0" in err
    assert "stopping" in err


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--cluster_spec=local|localhost:1;", "--job_name=local"], {}, "not host:port"),
        (["--cluster_spec=w|localhost:1", "--job_name=ps"], {}, "job 'ps' is not in the cluster"),
        (["--cluster_spec=w|localhost:1", "--job_name=w", "--task_index=1"], {}, "out of range"),
        (["--cluster_spec=w|localhost:1,ps|localhost:2"], {}, "--job_name is required"),
        ([], {"TF_CONFIG": ""}, "TF_CONFIG is not set"),
        ([], {"TF_CONFIG": '{"cluster": {}}'}, "no 'cluster'"),
    ],
)
def test_server_command_rejects_bad_flags(
    args: list[str], env: dict[str, str], message: str
) -> None:
    full_env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    full_env.update(env)
    result = subprocess.run(
        [*_server_command(), *args], env=full_env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert _reason(result.stderr) == message or message in _reason(result.stderr)


def test_server_command_port_in_use(cluster: Cluster) -> None:
    (port,) = free_ports(1)
    cluster.start({"local": [port]})
    result = subprocess.run(
        [*_server_command(), f"--cluster_spec=local|localhost:{port}", "--job_name=local"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "in use" in _reason(result.stderr)


def _reason(stderr: str) -> str:
    """The one line that says why the command failed (other lines are timestamped logs)."""
    reasons = [ln for ln in stderr.splitlines() if ln.startswith("tfcluster-server: ")]
    assert len(reasons) == 1, stderr
    others = [ln for ln in stderr.splitlines() if ln and ln not in reasons]
    assert all(ln[:4].isdigit() for ln in others), stderr  # log records, not tracebacks
    return reasons[0]


def test_server_command_reads_tf_config(cluster: Cluster) -> None:
    p0, p1 = free_ports(2)
    config = (
        '{"cluster": {"worker": ["localhost:%d"], "ps": ["localhost:%d"]}, '
        '"task": {"type": "%s", "index": 0}}'
    )
    cluster.add(TaskProcess("", "worker", 0, p0, env={"TF_CONFIG": config % (p0, p1, "worker")}))
    cluster.add(TaskProcess("", "ps", 0, p1, env={"TF_CONFIG": config % (p0, p1, "ps")}))
    for t in cluster.tasks:
        t.wait_serving()
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="v")
    with tf.device("/job:worker/task:0"):
        doubled = v * 2.0
    with tf.Session(f"grpc://localhost:{p0}") as sess:
        sess.run(v.initializer)
        assert sess.run(doubled) == 6.0
        devices = sorted(d.name for d in sess.list_devices())
    assert devices == [
        f"/job:{job}/replica:0/task:0/device:{kind}:0"
        for job in ("ps", "worker")
        for kind in ("CPU", "XLA_CPU")
    ]


def test_remote_session_extends_its_graph_and_moves_tensors(cluster: Cluster) -> None:
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]})
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.device("/job:local/task:1"):
        y = tf.reduce_sum(x * 2.0, axis=1)
    sess = tf.Session(f"grpc://localhost:{p0}")
    got = sess.run(y, {x: [[1, 2, 3], [4, 5, 6]]})
    assert got.dtype == np.float32 and got.shape == (2,)
    np.testing.assert_allclose(got, [12.0, 30.0])
    assert got.flags.writeable
    # Extend the graph after the first run: new nodes on both tasks.
    with tf.device("/job:local/task:0"):
        z = y + tf.constant([1.0, 1.0])
    s = tf.constant(["a", "bc"])
    with tf.device("/job:local/task:1"):
        n = tf.size(x, out_type=tf.int64)
    zv, sv, nv = sess.run([z, s, n], {x: np.ones((2, 3), np.float32)})
    np.testing.assert_allclose(zv, [7.0, 7.0])
    assert sv.tolist() == [b"a", b"bc"]
    assert nv == 6 and nv.dtype == np.int64
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(y, {x: np.ones((1, 3))})


@pytest.fixture(params=["shm", "stream"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Large tensors through shared memory (same host, the default) or streamed in chunks."""
    env = {"TFCLUSTER_SHM": "1" if request.param == "shm" else "0"}
    monkeypatch.setenv("TFCLUSTER_SHM", env["TFCLUSTER_SHM"])  # this process: the client
    return env


def _no_shm_files_left() -> None:
    if os.path.isdir("/dev/shm"):
        mine = [n for n in os.listdir("/dev/shm") if n.startswith(f"tfcluster-{os.getpid()}-")]
        assert mine == []


def test_256_mib_crosses_tasks_both_ways(cluster: Cluster, transport: dict[str, str]) -> None:
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]}, env=transport)
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.device("/job:local/task:1"):
        y = x + 1.0
    with tf.device("/job:local/task:0"):
        z = y * 2.0  # task 1 -> task 0 through RecvTensor
    value = np.arange(64 << 20, dtype=np.float32)  # 256 MiB
    with tf.Session(f"grpc://localhost:{p0}") as sess:
        t0 = time.monotonic()
        out_y, out_z = sess.run([y, z], {x: value})
        elapsed = time.monotonic() - t0
    assert out_y.shape == value.shape and out_y.dtype == np.float32
    assert out_y[0] == 1.0 and out_y[-1] == value[-1] + 1.0
    assert out_z[12345] == (12345 + 1.0) * 2.0
    assert elapsed < 60
    _no_shm_files_left()


def test_errors_keep_their_class_across_the_wire(cluster: Cluster) -> None:
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]})
    with tf.device("/job:local/task:1"):
        v = tf.Variable(1.0, name="uninit")
    x = tf.placeholder(tf.float32, [None])
    with tf.Session(f"grpc://localhost:{p0}") as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value uninit"):
            sess.run(v)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.reshape(x, [3]), {x: [1.0, 2.0]})
        # The session still works after errors.
        sess.run(v.initializer)
        assert sess.run(v) == 1.0
        # A node no task can take: as TF 1.15's master places the session's whole graph,
        # every later run fails, whether it needs the node or not.
        with tf.device("/job:local/task:7"):
            bad = tf.constant(1.0)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device"):
            sess.run(v)


def test_session_reset_clears_containers_and_aborts_old_sessions(cluster: Cluster) -> None:
    (port,) = free_ports(1)
    cluster.start({"local": [port]})
    target = f"grpc://localhost:{port}"
    a = tf.Variable(1.0, name="a")
    with tf.container("experiment"):
        b = tf.Variable(2.0, name="b")
    sess = tf.Session(target)
    sess.run(tf.global_variables_initializer())
    tf.Session.reset(target, ["experiment"])
    with pytest.raises(tf.errors.AbortedError):
        sess.run(a)
    sess2 = tf.Session(target)
    assert sess2.run(a) == 1.0  # the default container survived
    assert sess2.run(tf.report_uninitialized_variables()).tolist() == [b"b"]
    tf.Session.reset(target)
    sess3 = tf.Session(target)
    assert sorted(sess3.run(tf.report_uninitialized_variables()).tolist()) == [b"a", b"b"]
    sess3.run(b.initializer)
    assert sess3.run(b) == 2.0


def test_relayed_feeds_and_fetches_of_a_step_on_another_task(
    cluster: Cluster, transport: dict[str, str]
) -> None:
    """A step whose one partition runs on another task: the master relays large feeds and
    fetches (message by message, or their shared-memory names); any fetch order, duplicates,
    strings, errors mid-way."""
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]}, env=transport)
    x = tf.placeholder(tf.float32, [None], name="x")
    s = tf.placeholder(tf.string, [None], name="s")
    with tf.device("/job:local/task:1"):
        big = x * 2.0
        small = tf.reduce_sum(x)
        words = tf.identity(s)
        reshaped = tf.reshape(x, [-1, 4])
    value = np.arange(3 << 20, dtype=np.float32)  # 12 MiB: split into several messages
    strings = np.array([b"a" * 1000, b"", b"xyz"] * 2000, dtype=object)
    with tf.Session(f"grpc://localhost:{p0}") as sess:
        for _ in range(2):  # the first run plans; later ones relay
            got_big, got_small = sess.run([big, small], {x: value})
            np.testing.assert_array_equal(got_big, value * 2.0)
            assert got_small == pytest.approx(value.sum(), rel=1e-6)
            assert got_big.flags.writeable
            # Another order than the partition's, and a duplicate: decoded, then re-encoded.
            got_small, got_big, again = sess.run([small, big, big], {x: value})
            np.testing.assert_array_equal(again, value * 2.0)
            assert got_small == pytest.approx(value.sum(), rel=1e-6)
            assert sess.run(words, {s: strings}).tolist() == strings.tolist()
        # An error in the remote partition after the relayed feed: in-band, the call survives.
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(reshaped, {x: value[:-1]})
        np.testing.assert_array_equal(sess.run(big, {x: value}), value * 2.0)
    _no_shm_files_left()
