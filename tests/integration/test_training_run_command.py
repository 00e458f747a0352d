"""`tfcluster run`: a user's between-graph script on a local cluster, and a client script
against a cluster that is already running (task servers started by the test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BETWEEN_GRAPH = textwrap.dedent(
    """
    import argparse, json
    import numpy as np
    import tfcluster as tf

    p = argparse.ArgumentParser()
    p.add_argument("--ps_hosts"); p.add_argument("--worker_hosts")
    p.add_argument("--job_name"); p.add_argument("--task_index", type=int)
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    cluster = tf.train.ClusterSpec(
        {"ps": a.ps_hosts.split(","), "worker": a.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=a.job_name, task_index=a.task_index)
    if a.job_name == "ps":
        server.join()
    with tf.device(tf.train.replica_device_setter(
            worker_device="job:worker/task:%d" % a.task_index, cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None])
        w = tf.Variable(0.0, name="w")
        loss = tf.reduce_mean(tf.square(w * x - 2.0 * x))
        train = tf.train.GradientDescentOptimizer(0.2).minimize(loss, global_step=gs)
    n = 0
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=a.task_index == 0,
            hooks=[tf.train.StopAtStepHook(last_step=a.steps)]) as sess:
        while not sess.should_stop():
            sess.run(train, {x: np.linspace(-1, 1, 16)})
            n += 1
    out = {"task": a.task_index, "steps": n, "w_device": w.device}
    if a.task_index == 0:
        with tf.Session(server.target) as s:
            out["w"] = float(s.run(w))
    print("RESULT " + json.dumps(out), flush=True)
    """
)

CLIENT = textwrap.dedent(
    """
    import json, os
    import tfcluster as tf

    config = json.loads(os.environ["TF_CONFIG"])
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(20.0, name="from_client")
    with tf.device("/job:worker/task:1"):
        doubled = v * 2.0 + 2.0
    with tf.Session(os.environ["TFCLUSTER_MASTER"]) as sess:
        sess.run(tf.global_variables_initializer())
        print("RESULT " + json.dumps({"value": float(sess.run(doubled)),
                                      "jobs": sorted(config["cluster"])}), flush=True)
    """
)


def _results(text: str) -> list[dict]:
    return [json.loads(ln[7:]) for ln in text.splitlines() if ln.startswith("RESULT ")]


def test_run_between_graph_script_on_a_local_cluster(tmp_path: os.PathLike) -> None:
    script = os.path.join(str(tmp_path), "train.py")
    with open(script, "w") as f:
        f.write(BETWEEN_GRAPH)
    logdir = os.path.join(str(tmp_path), "run")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "run",
            script,
            "--ps=1",
            "--workers=2",
            f"--logdir={logdir}",
            "--",
            "--steps=40",
        ],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    chief = _results(proc.stdout)[-1]
    assert chief["task"] == 0 and chief["w_device"] == "/job:ps/task:0"
    assert abs(chief["w"] - 2.0) < 0.05
    with open(os.path.join(logdir, "tasks", "worker-1.log")) as f:
        other = _results(f.read())[-1]
    assert other["task"] == 1


def test_run_failing_script_reports_its_status(tmp_path: os.PathLike) -> None:
    script = os.path.join(str(tmp_path), "bad.py")
    with open(script, "w") as f:
        f.write("import sys\nsys.exit(3)\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "run",
            script,
            "--ps=0",
            "--workers=1",
            f"--logdir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 3
    proc = subprocess.run(
        [sys.executable, "-m", "tfcluster.cli.tfcluster_main", "run", "/no/such/script.py"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "no such script" in proc.stderr


def test_run_client_script_against_an_existing_cluster(
    cluster: Cluster, tmp_path: os.PathLike
) -> None:
    ps, w0, w1 = free_ports(3)
    cluster.start({"ps": [ps], "worker": [w0, w1]})
    script = os.path.join(str(tmp_path), "client.py")
    with open(script, "w") as f:
        f.write(CLIENT)
    spec = f"ps|localhost:{ps},worker|localhost:{w0};localhost:{w1}"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "run",
            script,
            f"--cluster_spec={spec}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert _results(proc.stdout) == [{"value": 42.0, "jobs": ["ps", "worker"]}]
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "run",
            script,
            "--cluster_spec=nonsense",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "bad job in cluster spec" in bad.stderr
