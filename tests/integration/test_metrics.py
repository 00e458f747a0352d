"""Task server metrics on a real local cluster: `tfcluster-server` processes (1 ps, 2 workers)
with metrics ports, driven through tf.Session("grpc://..."), scraped over HTTP and read with
prometheus-client's own text parser. Counters and histograms must move by exactly what the
steps did: steps per master and per worker, bytes fed and fetched, tensors each task sent."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import numpy as np
import pytest
import tfcluster as tf
from support.cluster_command import start_cluster_command
from support.cluster_processes import TaskProcess, cluster_flag, free_ports
from support.metrics_scrape import Scrape, delta, scrape
from tfcluster.settings.contract import METRICS_PORT_ENV
from tfcluster.task_server.metrics import families as m

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

T = TypeVar("T")
SERVER = [sys.executable, "-m", "tfcluster.cli.server_main"]
TASKS = (("ps", 0), ("worker", 0), ("worker", 1))


class MetricsCluster:
    def __init__(self) -> None:
        grpc_ports = free_ports(6)
        self.ports = dict(zip(TASKS, grpc_ports[:3]))
        self.metrics_ports = dict(zip(TASKS, grpc_ports[3:]))
        flag = cluster_flag({"ps": [self.ports[("ps", 0)]], "worker": grpc_ports[1:3]})
        self.tasks = [
            TaskProcess(
                flag,
                job,
                index,
                self.ports[(job, index)],
                command=[*SERVER, f"--metrics_port={self.metrics_ports[(job, index)]}"],
            )
            for job, index in TASKS
        ]
        for t in self.tasks:
            t.wait_serving()

    @property
    def target(self) -> str:
        return f"grpc://localhost:{self.ports[('worker', 0)]}"

    def scrape_all(self) -> dict[tuple[str, int], Scrape]:
        return {task: scrape(port) for task, port in self.metrics_ports.items()}

    def close(self) -> list[int]:
        return [t.terminate() for t in self.tasks]


@pytest.fixture(scope="module")
def cluster() -> Iterator[MetricsCluster]:
    c = MetricsCluster()
    try:
        yield c
    finally:
        assert c.close() == [0, 0, 0]


def _ident(task: tuple[str, int]) -> dict[str, str]:
    return {"tf_job": task[0], "tf_task": str(task[1])}


PS, W0, W1 = TASKS


def test_each_task_names_itself(cluster: MetricsCluster) -> None:
    for task, got in cluster.scrape_all().items():
        assert got.value(m.MASTER_SESSIONS, **_ident(task)) == 0
        assert got.matching(m.MASTER_SESSIONS) == [(_ident(task), 0.0)]
        assert got.value("process_cpu_seconds_total") > 0  # the process collector


def test_training_steps_move_every_counter_by_exactly_what_they_did(
    cluster: MetricsCluster,
) -> None:
    rng = np.random.RandomState(0)
    true_w = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    with tf.container("train"), tf.device("/job:ps/task:0"):
        w = tf.Variable(tf.zeros([4, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
    with tf.device("/job:worker/task:1"):
        x = tf.placeholder(tf.float32, [8, 4], name="x")
        h = tf.matmul(x, w)
    with tf.device("/job:worker/task:0"):
        y = tf.placeholder(tf.float32, [8, 1], name="y")
        loss = tf.reduce_mean(tf.square(h + b - y))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    init = tf.variables_initializer([w, b])
    sess = tf.Session(cluster.target)
    sess.run(init)
    before = cluster.scrape_all()
    steps, losses, fed = 6, [], 0
    for _ in range(steps):
        xs = rng.randn(8, 4).astype(np.float32)
        ys = xs @ true_w
        _, value = sess.run([train, loss], {x: xs, y: ys})
        losses.append(value)
        fed += xs.nbytes + ys.nbytes
    assert losses[-1] < losses[0]  # it trains
    after = cluster.scrape_all()

    def moved(task: tuple[str, int], name: str) -> float:
        return delta(after[task], before[task], name, **_ident(task))

    # The session's master is worker 0: every step is a RunStep there, and nowhere else.
    assert moved(W0, m.MASTER_STEP_SECONDS + "_count") == steps
    assert moved(PS, m.MASTER_STEP_SECONDS + "_count") == 0
    assert moved(W1, m.MASTER_STEP_SECONDS + "_count") == 0
    # Every task took part in every step: one RunGraph each per step.
    for task in TASKS:
        assert moved(task, m.WORKER_STEP_SECONDS + "_count") == steps, task
        assert moved(task, m.WORKER_STEP_SECONDS + "_bucket") > 0  # buckets are cumulative
    assert moved(W0, m.MASTER_FED_BYTES + "_total") == fed == steps * (128 + 32)
    assert moved(W0, m.MASTER_FETCHED_BYTES + "_total") == steps * 4  # the float32 loss
    # Variables live on the ps, in the container they were made in.
    assert after[PS].by_label(m.WORKER_VARIABLES, "container") == {"train": 2}
    assert after[PS].by_label(m.WORKER_VARIABLE_BYTES, "container") == {"train": 20}
    for task in (W0, W1):
        assert after[task].by_label(m.WORKER_VARIABLES, "container") == {}
    # One open session, on worker 0; graphs registered: the initializer (ps only) and the
    # training step (a partition on each task).
    assert after[W0].value(m.MASTER_SESSIONS) == 1
    graphs = {task: after[task].value(m.WORKER_GRAPHS) for task in TASKS}
    assert graphs == {PS: 2, W0: 1, W1: 1}
    for task in TASKS:
        assert moved(task, m.ERRORS + "_total") == 0
    sess.close()
    # Closing deletes the session's graphs on every task (without waiting for the answers).
    closed = _eventually(
        cluster.scrape_all, lambda s: all(s[t].value(m.WORKER_GRAPHS) == 0 for t in TASKS)
    )
    for task in TASKS:
        assert closed[task].value(m.MASTER_SESSIONS) == 0
    tf.Session.reset(cluster.target, ["train"])
    assert scrape(cluster.metrics_ports[PS]).by_label(m.WORKER_VARIABLES, "container") == {}


def test_recv_tensor_counts_the_tensors_each_task_sent(cluster: MetricsCluster) -> None:
    with tf.container("recv"), tf.device("/job:ps/task:0"):
        v = tf.Variable(np.arange(256, dtype=np.float32), name="v")  # 1 KiB
    with tf.device("/job:worker/task:1"):
        doubled = v * 2.0  # worker 1 pulls v from the ps
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [256], name="x")
        total = tf.reduce_sum(doubled + x)  # worker 0 pulls `doubled` from worker 1
    with tf.Session(cluster.target) as sess:
        sess.run(v.initializer)
        before = cluster.scrape_all()
        steps = 5
        for i in range(steps):
            feed = np.full([256], float(i), np.float32)
            assert sess.run(total, {x: feed}) == pytest.approx(2 * 255 * 128 + 256 * i)
        after = cluster.scrape_all()
    sent = {
        task: delta(after[task], before[task], m.RECV_TENSOR_BYTES + "_total") for task in TASKS
    }
    assert sent == {PS: steps * 1024, W1: steps * 1024, W0: 0}
    answered = {
        task: delta(after[task], before[task], m.RECV_TENSOR_SECONDS + "_count") for task in TASKS
    }
    assert answered == {PS: steps, W1: steps, W0: 0}
    assert delta(after[PS], before[PS], m.RECV_TENSOR_SECONDS + "_sum") > 0
    tf.Session.reset(cluster.target, ["recv"])


def test_errors_count_by_code_on_the_tasks_that_answered_them(cluster: MetricsCluster) -> None:
    with tf.container("errors"), tf.device("/job:ps/task:0"):
        never = tf.Variable(1.0, name="never_initialized")
    with tf.device("/job:worker/task:0"):
        tripled = never * 3.0
    errors = m.ERRORS + "_total"
    before = cluster.scrape_all()
    with (
        tf.Session(cluster.target) as sess,
        pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"),
    ):
        sess.run(tripled)
    # A malformed request straight to the ps.
    with grpc.insecure_channel(f"localhost:{cluster.ports[PS]}") as ch:
        register = ch.unary_unary("/tfcluster.WorkerService/RegisterGraph")
        with pytest.raises(grpc.RpcError) as info:
            register(b"\xff\xff\xff", timeout=10)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    after = cluster.scrape_all()
    code = "FAILED_PRECONDITION"
    assert delta(after[PS], before[PS], errors, method="RunGraph", code=code) == 1
    assert delta(after[W0], before[W0], errors, method="RunStep", code=code) == 1
    assert (
        delta(after[PS], before[PS], errors, method="RegisterGraph", code="INVALID_ARGUMENT") == 1
    )
    # Worker 0 may have asked the ps for the value before the step was aborted everywhere:
    # then that RecvTensor got the step's error too.
    recv_failed = delta(after[PS], before[PS], errors, method="RecvTensor", code=code)
    assert recv_failed in (0, 1)
    assert delta(after[PS], before[PS], errors) == 2 + recv_failed
    assert delta(after[W1], before[W1], errors) == 0  # not in the step, not asked
    # Worker 0's own partition was aborted with the step, under some code, counted once.
    assert delta(after[W0], before[W0], errors, method="RunGraph") == 1


def test_the_port_comes_from_the_environment_and_a_taken_one_fails_the_start() -> None:
    port, metrics_port = free_ports(2)
    task = TaskProcess(
        f"local|localhost:{port}",
        "local",
        0,
        port,
        env={METRICS_PORT_ENV: str(metrics_port)},
        command=SERVER,
    ).wait_serving()
    try:
        assert scrape(metrics_port).matching(m.MASTER_SESSIONS) == [
            ({"tf_job": "local", "tf_task": "0"}, 0.0)
        ]
        # Taken now: the same port, asked for by flag, fails a second server's start.
        (other,) = free_ports(1)
        done = subprocess.run(
            [
                *SERVER,
                f"--cluster_spec=local|localhost:{other}",
                f"--metrics_port={metrics_port}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1
        lines = [ln for ln in done.stderr.splitlines() if ln.startswith("tfcluster-server:")]
        assert len(lines) == 1 and f"metrics port {metrics_port}" in lines[0], done.stderr
        assert "in use" in lines[0]
    finally:
        assert task.terminate() == 0
    assert f"metrics http://localhost:{metrics_port}/metrics" in task.stderr()


def test_the_tfcluster_command_prints_where_each_tasks_metrics_are(tmp_path: Path) -> None:
    proc, lines = start_cluster_command(tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    urls: dict[str, str] = {}
    try:
        for line in lines:
            found = re.match(r"\[tfcluster\] metrics of (\S+): (http://\S+/metrics)$", line.strip())
            if found:
                urls[found.group(1)] = found.group(2)
        assert set(urls) == {"ps-0", "worker-0"}
        for name, url in urls.items():
            job, index = name.split("-")
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            got = _scrape_when_up(port)
            assert got.matching(m.MASTER_SESSIONS) == [({"tf_job": job, "tf_task": index}, 0.0)]
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def _scrape_when_up(port: int, timeout: float = 30.0) -> Scrape:
    end = time.monotonic() + timeout
    while True:
        try:
            return scrape(port, timeout=2)
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def _eventually(get: Callable[[], T], ok: Callable[[T], bool], timeout: float = 10.0) -> T:
    end = time.monotonic() + timeout
    while True:
        value = get()
        if ok(value) or time.monotonic() > end:
            assert ok(value), value
            return value
        time.sleep(0.05)


TASK_PROGRAM = """
import json, os, sys
import tfcluster as tf

config = json.loads(os.environ["TF_CONFIG"])
job, index = config["task"]["type"], config["task"]["index"]
server = tf.train.Server(tf.train.ClusterSpec(config["cluster"]), job_name=job, task_index=index)
print("RESULT " + json.dumps({"metrics_port": server.metrics_port}), flush=True)
if job == "ps":
    server.join()
"""


def test_tfcluster_run_gives_each_tasks_server_the_port_it_prints(tmp_path: Path) -> None:
    script = tmp_path / "task.py"
    script.write_text(TASK_PROGRAM)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "run",
            str(script),
            "--ps=1",
            "--workers=1",
            "--no_task_flags",
            f"--logdir={tmp_path / 'run'}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = dict(
        re.findall(r"\[tfcluster\] metrics of (\S+): http://localhost:(\d+)/metrics", done.stdout)
    )
    assert set(printed) == {"ps-0", "worker-0"}
    (result,) = re.findall(r"^RESULT (.*)$", done.stdout, re.M)  # the chief's own line
    assert json.loads(result)["metrics_port"] == int(printed["worker-0"])
    ps_log = (tmp_path / "run" / "tasks" / "ps-0.log").read_text()
    (ps_result,) = re.findall(r"^RESULT (.*)$", ps_log, re.M)
    assert json.loads(ps_result)["metrics_port"] == int(printed["ps-0"])
    assert printed["ps-0"] != printed["worker-0"]


_RACE = """
import os, signal, socket, sys, threading
from tfcluster.cli import server_main
from tfcluster.settings import contract
from tfcluster.task_server import ports
# Another server took 9090 between this one's check and its bind.
ports.port_available = lambda port: True
holder = socket.socket()
try:
    holder.bind(("0.0.0.0", contract.DEFAULT_METRICS_PORT))
    holder.listen()
except OSError:
    pass  # something else has it already: the same situation
threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
sys.exit(server_main.main(sys.argv[1:]))
"""


def test_the_default_metrics_port_taken_at_the_last_moment_is_only_a_warning() -> None:
    port = free_ports(1)[0]
    env = {k: v for k, v in os.environ.items() if k != METRICS_PORT_ENV}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _RACE,
            f"--cluster_spec=local|localhost:{port}",
            "--job_name=local",
            "--task_index=0",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "tfcluster-server ready" in out.stderr
    assert "serving no metrics" in out.stderr
