"""Embeddings sharded over ps tasks, on a real local cluster (`tfcluster-server` processes: 2 ps
and 1 worker, metrics scraped over HTTP). A PartitionedVariable made by tf.get_variable with a
partitioner under replica_device_setter puts one shard on each ps; tf.nn.embedding_lookup
routes each id to its shard ('mod' or 'div') and gathers on that ps, so each ps sends the
worker only the rows of its own shard that were asked for, and the gradient (IndexedSlices per
shard) goes back to each ps with only those rows. The results are those of the same graph in
one process, and an nce_loss over sharded weights trains."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import TaskProcess, cluster_flag, free_ports
from support.metrics_scrape import scrape
from tfcluster.task_server.metrics import families as m

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

ROWS, DIM = 50001, 32  # odd: 'div' gives the first shard one more row
SERVER = ["-m", "tfcluster.cli.server_main"]
JOBS = (("ps", 0), ("ps", 1), ("worker", 0))


class ShardedCluster:
    """Two ps tasks and one worker, each with a metrics port."""

    def __init__(self) -> None:
        ports = free_ports(6)
        self.ports = dict(zip(JOBS, ports[:3]))
        self.metrics = dict(zip(JOBS, ports[3:]))
        spec = {"ps": [ports[0], ports[1]], "worker": [ports[2]]}
        self.spec = {job: [f"localhost:{p}" for p in ps] for job, ps in spec.items()}
        flag = cluster_flag(spec)
        self.tasks = [
            TaskProcess(
                flag,
                job,
                index,
                self.ports[(job, index)],
                command=[sys.executable, *SERVER, f"--metrics_port={self.metrics[(job, index)]}"],
            )
            for job, index in JOBS
        ]
        for t in self.tasks:
            t.wait_serving()

    @property
    def target(self) -> str:
        return f"grpc://localhost:{self.ports[('worker', 0)]}"

    def sent(self) -> dict[tuple[str, int], float]:
        """Bytes of tensors each task has handed to other tasks so far."""
        return {
            task: scrape(port).value(m.RECV_TENSOR_BYTES + "_total")
            for task, port in self.metrics.items()
        }


@pytest.fixture(scope="module")
def cluster() -> Iterator[ShardedCluster]:
    c = ShardedCluster()
    try:
        yield c
    finally:
        assert [t.terminate() for t in c.tasks] == [0, 0, 0]


def _table() -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, (ROWS, DIM)).astype(np.float32)


def _build(strategy: str, spec: dict[str, list[str]] | None, n_ids: int) -> dict:
    """The lookup and a training step of a [ROWS, DIM] embedding in 2 shards."""
    setter = tf.train.replica_device_setter(
        ps_tasks=2, worker_device="/job:worker/task:0", cluster=spec
    )
    with tf.device(setter if spec else None):
        emb = tf.get_variable(
            "emb",
            initializer=tf.constant(_table()),
            partitioner=tf.fixed_size_partitioner(2),
        )
        ids = tf.placeholder(tf.int64, [n_ids], name="ids")
        rows = tf.nn.embedding_lookup(emb, ids, partition_strategy=strategy)
        loss = tf.reduce_sum(rows * rows)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return {"emb": emb, "ids": ids, "rows": rows, "train": train}


def _run(target: str, strategy: str, spec: dict | None, feed_ids: np.ndarray, steps: int):
    graph = tf.Graph()
    with graph.as_default():
        g = _build(strategy, spec, feed_ids.size)
        shard_devices = [v.device for v in g["emb"]]
        gather_devices = [
            op.device
            for op in graph.get_operations()
            if op.type == "GatherV2" and op.name.startswith("embedding_lookup/")
        ]
        with tf.Session(target, graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {g["ids"]: feed_ids}
            first = sess.run(g["rows"], feed)
            for _ in range(steps):
                sess.run(g["train"], feed)
            after = sess.run(g["rows"], feed)
            shards = sess.run(list(g["emb"]))
    return first, after, shards, shard_devices, gather_devices


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_a_sharded_lookup_trains_on_the_ps_tasks_as_in_one_process(
    cluster: ShardedCluster, strategy: str
) -> None:
    ids = np.random.default_rng(1).integers(0, ROWS, 300)
    ids[:3] = [0, ROWS - 1, ROWS // 2]  # both ends of both shards
    remote = _run(cluster.target, strategy, cluster.spec, ids, 3)
    local = _run("", strategy, None, ids, 3)
    tf.Session.reset(cluster.target)
    first, after, shards, shard_devices, gather_devices = remote
    assert shard_devices == ["/job:ps/task:0", "/job:ps/task:1"]
    # Each shard's gather is placed with its shard (colocation: its ps).
    assert sorted(gather_devices) == ["/job:ps/task:0", "/job:ps/task:1"]
    # The partitioner cuts the table into contiguous shards; 'mod' reads row id // 2 of shard
    # id % 2 of them (as in TF), 'div' the table's own row id.
    if strategy == "div":
        np.testing.assert_array_equal(first, _table()[ids])
    else:
        halves = np.split(_table(), [(ROWS + 1) // 2])
        np.testing.assert_array_equal(first, np.stack([halves[i % 2][i // 2] for i in ids]))
    np.testing.assert_allclose(after, local[1], rtol=1e-6)
    for got, want in zip(shards, local[2]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not np.allclose(first, after)


def _bytes_per_step(cluster: ShardedCluster, ids: np.ndarray, strategy: str) -> dict:
    graph = tf.Graph()
    with graph.as_default():
        g = _build(strategy, cluster.spec, ids.size)
        with tf.Session(cluster.target, graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {g["ids"]: ids}
            sess.run(g["train"], feed)  # registers the step's graphs
            before = cluster.sent()
            steps = 4
            for _ in range(steps):
                sess.run(g["train"], feed)
            after = cluster.sent()
    tf.Session.reset(cluster.target)
    return {task: (after[task] - before[task]) / steps for task in after}


def _shard_of(ids: np.ndarray, strategy: str) -> np.ndarray:
    if strategy == "mod":
        return ids % 2
    first = (ROWS + 1) // 2
    return (ids >= first).astype(np.int64)


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_each_ps_sends_and_receives_only_the_rows_of_its_shard(
    cluster: ShardedCluster, strategy: str
) -> None:
    ids = np.random.default_rng(2).integers(0, ROWS, 512)
    per_step = _bytes_per_step(cluster, ids, strategy)
    row_bytes = DIM * 4
    worker_in = 0
    for p in (0, 1):
        n = int((_shard_of(ids, strategy) == p).sum())
        sent = per_step[("ps", p)]
        # ps -> worker: its rows (and its shard's shape for the gradient, 8 bytes).
        assert n * row_bytes <= sent <= n * row_bytes + 64, (p, n, per_step)
        worker_in += n
    # worker -> both ps: per shard its ids (int64) for the gather, the gradient's rows and
    # their row numbers (int64): nothing in proportion to the 6.4 MB of the variable.
    expected = worker_in * (8 + row_bytes + 8)
    assert expected <= per_step[("worker", 0)] <= expected + 256, per_step


def test_nce_loss_over_sharded_weights_trains(cluster: ShardedCluster) -> None:
    vocab, dim, batch = 5000, 16, 64
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        setter = tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker/task:0", cluster=cluster.spec
        )
        with tf.device(setter):
            part = tf.fixed_size_partitioner(2)
            emb = tf.get_variable(
                "emb",
                [vocab, dim],
                initializer=tf.random_uniform_initializer(-1, 1),
                partitioner=part,
            )
            w = tf.get_variable(
                "nce_w",
                [vocab, dim],
                initializer=tf.truncated_normal_initializer(stddev=0.1),
                partitioner=part,
            )
            b = tf.get_variable("nce_b", [vocab], initializer=tf.zeros_initializer())
            x = tf.placeholder(tf.int32, [batch])
            y = tf.placeholder(tf.int64, [batch, 1])
            loss = tf.reduce_mean(
                tf.nn.nce_loss(w, b, y, tf.nn.embedding_lookup(emb, x), 16, vocab)
            )
            train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        rng = np.random.default_rng(4)
        centers = rng.integers(0, 200, batch)
        feed = {x: centers, y: ((centers * 7) % 200).reshape(-1, 1)}  # a fixed relation
        with tf.Session(cluster.target, graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            start = np.mean([sess.run(loss, feed) for _ in range(5)])
            for _ in range(150):
                sess.run(train, feed)
            end = np.mean([sess.run(loss, feed) for _ in range(5)])
    tf.Session.reset(cluster.target)
    assert end < 0.6 * start, (start, end)
