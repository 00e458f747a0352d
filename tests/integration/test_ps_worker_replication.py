"""Clusters of task servers and the ways to train on them: cluster definitions, a server in each
task, ps/worker placement, in-graph replication (synchronous averaged gradients, asynchronous
client threads), between-graph replication, and variables shared between graphs through a
container."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support import replication_tasks as prog
from support.cluster_processes import Cluster, free_ports, wait_serving

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

CTX = multiprocessing.get_context("spawn")


@contextlib.contextmanager
def task_processes(jobs: dict[str, Any]) -> Iterator[list[Any]]:
    """A spawned process with a tf.train.Server for every task of `jobs` (dense or sparse)."""
    procs: list[Any] = []
    try:
        for job, tasks in jobs.items():
            items = tasks.items() if isinstance(tasks, dict) else enumerate(tasks)
            for index, address in items:
                p = CTX.Process(target=prog.serve_task, args=(jobs, job, index), daemon=True)
                p.start()
                procs.append(p)
                wait_serving(int(address.rsplit(":", 1)[1]))
        yield procs
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(10)


@pytest.mark.parametrize(
    "jobs",
    [
        {"local": 1},
        {"local": 2},
        {"worker": 3, "ps": 2},
    ],
    ids=["local-1", "local-2", "worker3-ps2"],
)
def test_every_task_of_the_cluster_flag_is_a_device(cluster: Cluster, jobs: dict[str, int]) -> None:
    """The --cluster_spec table: every task of the flag is a device of the cluster."""
    ports = iter(free_ports(sum(jobs.values())))
    layout = {job: [next(ports) for _ in range(n)] for job, n in jobs.items()}
    cluster.start(layout)
    first = next(iter(layout.values()))[0]
    with tf.Session(f"grpc://localhost:{first}") as sess:
        devices = sorted(d.name for d in sess.list_devices())
    assert devices == sorted(
        f"/job:{job}/replica:0/task:{i}/device:{kind}:0"
        for job, n in jobs.items()
        for i in range(n)
        for kind in ("CPU", "XLA_CPU")
    )


def test_a_server_in_each_task_runs_one_graph_across_them() -> None:
    p0, p1 = free_ports(2)
    jobs = {"local": [f"localhost:{p0}", f"localhost:{p1}"]}
    with task_processes(jobs):
        with tf.device("/job:local/task:1"):
            v = tf.Variable(5.0, name="v")
        with tf.device("/job:local/task:0"):
            w = v * 3.0
        with tf.Session(f"grpc://localhost:{p0}") as sess:
            sess.run(v.initializer)
            assert sess.run(w) == 15.0


def _mlp(device: Callable[[str], Any], init: dict[str, np.ndarray]) -> dict[str, Any]:
    """A two-layer MLP: weights on two ps tasks, the compute on /job:worker/task:7."""
    with device("/job:ps/task:0"):
        weights_1 = tf.Variable(init["w1"], name="weights_1")
        biases_1 = tf.Variable(init["b1"], name="biases_1")
    with device("/job:ps/task:1"):
        weights_2 = tf.Variable(init["w2"], name="weights_2")
        biases_2 = tf.Variable(init["b2"], name="biases_2")
    with device("/job:worker/task:7"):
        inputs = tf.placeholder(tf.float32, [None, 4], name="input")
        labels = tf.placeholder(tf.float32, [None, 2], name="labels")
        layer_1 = tf.nn.relu(tf.matmul(inputs, weights_1) + biases_1)
        logits = tf.nn.relu(tf.matmul(layer_1, weights_2) + biases_2)
        loss = tf.reduce_mean(tf.square(logits - labels))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    return {
        "input": inputs,
        "labels": labels,
        "loss": loss,
        "train_op": train_op,
        "vars": [weights_1, biases_1, weights_2, biases_2],
    }


def test_ps_worker_placement_trains_as_a_local_session_does() -> None:
    """Variables on ps tasks, compute on worker 7 (a sparse job); training over the cluster
    gives exactly what the same graph gives in a local session."""
    ports = free_ports(3)
    jobs: dict[str, Any] = {
        "ps": [f"localhost:{ports[0]}", f"localhost:{ports[1]}"],
        "worker": {7: f"localhost:{ports[2]}"},
    }
    rng = np.random.default_rng(0)
    init = {
        "w1": rng.normal(scale=0.5, size=(4, 8)).astype(np.float32),
        "b1": np.full(8, 0.1, np.float32),
        "w2": rng.normal(scale=0.5, size=(8, 2)).astype(np.float32),
        "b2": np.full(2, 0.1, np.float32),
    }
    x = rng.normal(size=(16, 4)).astype(np.float32)
    y = np.abs(rng.normal(size=(16, 2))).astype(np.float32)

    local_graph = tf.Graph()
    with local_graph.as_default():
        local = _mlp(lambda _: contextlib.nullcontext(), init)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(20):
                sess.run(local["train_op"], {local["input"]: x, local["labels"]: y})
            want = sess.run(local["vars"])

    with task_processes(jobs):
        remote = _mlp(tf.device, init)
        with tf.Session(f"grpc://localhost:{ports[2]}") as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(remote["loss"], {remote["input"]: x, remote["labels"]: y})
            for _ in range(20):
                sess.run(remote["train_op"], {remote["input"]: x, remote["labels"]: y})
            got = sess.run(remote["vars"])
            after = sess.run(remote["loss"], {remote["input"]: x, remote["labels"]: y})
            options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            metadata = tf.RunMetadata()
            sess.run(
                remote["train_op"],
                {remote["input"]: x, remote["labels"]: y},
                options=options,
                run_metadata=metadata,
            )
    assert after < before
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    nodes = {d.device: [n.node_name for n in d.node_stats] for d in metadata.step_stats.dev_stats}
    worker = "/job:worker/replica:0/task:7/device:CPU:0"
    ps0 = "/job:ps/replica:0/task:0/device:CPU:0"
    ps1 = "/job:ps/replica:0/task:1/device:CPU:0"
    assert next(iter(nodes)) == worker  # the session's own task first
    assert any("MatMul" in n for n in nodes[worker])
    assert any(n.endswith("update_weights_1/ApplyGradientDescent") for n in nodes[ps0])
    assert any(n.endswith("update_weights_2/ApplyGradientDescent") for n in nodes[ps1])
    # The runtime moved tensors between jobs both ways: forward (ps -> worker), back (worker -> ps).
    assert any(n.startswith("_recv/weights_1") for n in nodes[worker])
    assert any(n.startswith("_recv/") for n in nodes[ps0])


def _towers(num: int, lr: float) -> dict[str, Any]:
    """In-graph replication: one set of parameters on ps, a model copy on each worker task."""
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
    xs, ys, losses, grads = [], [], [], []
    opt = tf.train.GradientDescentOptimizer(lr)
    for i in range(num):
        with tf.device(f"/job:worker/task:{i}"):
            x = tf.placeholder(tf.float32, [None, 2], name=f"x{i}")
            y = tf.placeholder(tf.float32, [None, 1], name=f"y{i}")
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            xs.append(x)
            ys.append(y)
            losses.append(loss)
            grads.append(opt.compute_gradients(loss, [w, b]))
    return {"w": w, "b": b, "x": xs, "y": ys, "loss": losses, "grads": grads, "opt": opt}


def test_in_graph_replication_synchronous_averaged_gradients() -> None:
    ports = free_ports(3)
    jobs = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{p}" for p in ports[1:]]}
    t = _towers(2, 0.1)
    with tf.device("/job:ps/task:0"):
        averaged = [
            (tf.add_n([t["grads"][0][k][0], t["grads"][1][k][0]]) / 2.0, t["grads"][0][k][1])
            for k in range(2)
        ]
        train_op = t["opt"].apply_gradients(averaged)
    x, y = prog.regression_data(seed=1, n=32)
    halves = [(x[:16], y[:16]), (x[16:], y[16:])]
    feed = {t["x"][i]: halves[i][0] for i in range(2)} | {t["y"][i]: halves[i][1] for i in range(2)}
    # numpy: full-batch gradient descent (the mean of equal halves' mean gradients).
    w_np, b_np = np.zeros((2, 1), np.float32), np.zeros(1, np.float32)
    for _ in range(30):
        err = x @ w_np + b_np - y
        w_np = w_np - 0.1 * (2.0 / len(x)) * (x.T @ err)
        b_np = b_np - 0.1 * (2.0 / len(x)) * err.sum(axis=0)
    with task_processes(jobs), tf.Session(f"grpc://localhost:{ports[1]}") as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(30):
            sess.run(train_op, feed)
        w, b = sess.run([t["w"], t["b"]])
    np.testing.assert_allclose(w, w_np, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b, b_np, rtol=1e-4, atol=1e-5)


def test_in_graph_replication_asynchronous_client_threads() -> None:
    """One session (on worker 0), a train_op per tower, a client thread per train_op."""
    ports = free_ports(3)
    jobs = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{p}" for p in ports[1:]]}
    t = _towers(2, 0.05)
    train_ops = [t["opt"].apply_gradients(g) for g in t["grads"]]
    data = [prog.regression_data(seed=i) for i in range(2)]
    steps = 60
    errors: list[BaseException] = []
    with task_processes(jobs):
        sess = tf.Session(f"grpc://localhost:{ports[1]}")
        sess.run(tf.global_variables_initializer())

        def train(i: int) -> None:
            try:
                feed = {t["x"][i]: data[i][0], t["y"][i]: data[i][1]}
                for _ in range(steps):
                    sess.run(train_ops[i], feed)
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=train, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        w, b = sess.run([t["w"], t["b"]])
        sess.close()
    assert not errors, errors
    np.testing.assert_allclose(w.ravel(), [2.0, -3.0], atol=0.05)
    np.testing.assert_allclose(b, [0.5], atol=0.05)


def test_between_graph_replication_trains_the_variables_on_ps() -> None:
    """A graph per worker process; replica_device_setter puts the parameters on ps; sharing by
    name makes every worker train the same variables."""
    ports = free_ports(3)
    jobs = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{p}" for p in ports[1:]]}
    out = CTX.Queue()
    steps = 40
    procs: list[Any] = []
    try:
        p = CTX.Process(target=prog.serve_task, args=(jobs, "ps", 0), daemon=True)
        p.start()
        procs.append(p)
        for i in range(2):
            p = CTX.Process(
                target=prog.between_graph_worker, args=(jobs, i, steps, out), daemon=True
            )
            p.start()
            procs.append(p)
        results = [out.get(timeout=120) for _ in range(2)]
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            global_step = tf.Variable(0, name="global_step", trainable=False)
            w = tf.Variable(tf.zeros([2, 1]), name="w")
        with tf.Session(f"grpc://localhost:{ports[0]}", graph=g) as sess:
            count, w_value = sess.run([global_step, w])
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(10)
    assert count == 2 * steps  # both workers' increments, on the one shared variable
    np.testing.assert_allclose(w_value.ravel(), [2.0, -3.0], atol=0.05)
    for _, _, placement, loss in results:
        assert placement == {
            "global_step": "/job:ps/task:0",
            "w": "/job:ps/task:0",
            "b": "/job:ps/task:0",
        }
        assert loss < 1e-3


def test_containers_share_variables_between_graphs(cluster: Cluster) -> None:
    """The "distributed trainer": graphs built separately share variables created in the same
    container; Session.reset clears that container on every task."""
    p0, p1 = free_ports(2)
    cluster.start({"ps": [p0], "worker": [p1]})

    def build() -> tuple[tf.Graph, Any]:
        g = tf.Graph()
        with g.as_default(), tf.container("shared"), tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        return g, v

    g1, v1 = build()
    g2, v2 = build()
    s1 = tf.Session(f"grpc://localhost:{p1}", graph=g1)
    s2 = tf.Session(f"grpc://localhost:{p0}", graph=g2)
    s1.run(v1.initializer)
    with g2.as_default():
        s2.run(v2.assign_add(41.0))
    assert s1.run(v1) == 42.0
    assert v1.op.get_attr("container") == b"shared"
    tf.Session.reset(f"grpc://localhost:{p1}", ["shared"])
    with pytest.raises(tf.errors.AbortedError):
        s1.run(v1)  # sessions of the reset master are closed
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
        s2.run(v2)  # the container is gone on the ps task
