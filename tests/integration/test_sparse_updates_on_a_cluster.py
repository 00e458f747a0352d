"""Big embeddings train on a ps: on a real local cluster (`tfcluster-server` processes, 1 ps and
1 worker, metrics scraped over HTTP), a step that looks up rows of a [100000, 64] variable on
the ps and trains it from the worker moves bytes in proportion to the rows looked up, both
ways: the lookup sends the rows to the worker, the gradient (an IndexedSlices) sends them back
with their row numbers, and the ps applies them to those rows only. A dense gradient would
send the whole 25.6 MB variable every step."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import TaskProcess, cluster_flag, free_ports
from support.metrics_scrape import scrape
from tfcluster.task_server.metrics import families as m

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

ROWS, DIM = 100000, 64
SERVER = ["-m", "tfcluster.cli.server_main"]


class PsCluster:
    """One ps and one worker, each with a metrics port."""

    def __init__(self) -> None:
        import sys

        ports = free_ports(4)
        self.ports = {"ps": ports[0], "worker": ports[1]}
        self.metrics = {"ps": ports[2], "worker": ports[3]}
        flag = cluster_flag({"ps": [ports[0]], "worker": [ports[1]]})
        self.tasks = [
            TaskProcess(
                flag,
                job,
                0,
                self.ports[job],
                command=[sys.executable, *SERVER, f"--metrics_port={self.metrics[job]}"],
            )
            for job in ("ps", "worker")
        ]
        for t in self.tasks:
            t.wait_serving()

    @property
    def target(self) -> str:
        return f"grpc://localhost:{self.ports['worker']}"

    def sent(self) -> dict[str, float]:
        """Bytes of tensors each task has handed to the other so far."""
        return {
            job: scrape(port).value(m.RECV_TENSOR_BYTES + "_total")
            for job, port in self.metrics.items()
        }


@pytest.fixture(scope="module")
def cluster() -> Iterator[PsCluster]:
    c = PsCluster()
    try:
        yield c
    finally:
        assert [t.terminate() for t in c.tasks] == [0, 0]


def _bytes_per_step(cluster: PsCluster, optimizer: tf.train.Optimizer, looked_up: int) -> dict:
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            emb = tf.Variable(tf.random_uniform([ROWS, DIM], seed=1), name="emb")
        with tf.device("/job:worker/task:0"):
            ids = tf.placeholder(tf.int32, [looked_up], name="ids")
            rows = tf.nn.embedding_lookup(emb, ids)
            loss = tf.reduce_sum(rows * rows)
            train = optimizer.minimize(loss)
        with tf.Session(cluster.target, graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {ids: np.random.default_rng(looked_up).integers(0, ROWS, looked_up)}
            first = sess.run(rows, feed)
            sess.run(train, feed)  # registers the step's graphs
            before = cluster.sent()
            steps = 4
            for _ in range(steps):
                sess.run(train, feed)
            after = cluster.sent()
            moved = sess.run(rows, feed)
        tf.Session.reset(cluster.target)
    assert not np.allclose(first, moved), "the looked-up rows trained"
    return {job: (after[job] - before[job]) / steps for job in after}


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.train.GradientDescentOptimizer(0.01),
        lambda: tf.train.AdagradOptimizer(0.01),
        lambda: tf.train.FtrlOptimizer(0.01),
    ],
    ids=["gradient_descent", "adagrad", "ftrl"],
)
def test_a_step_moves_bytes_in_proportion_to_the_rows_it_looks_up(cluster: PsCluster, make) -> None:
    row_bytes = DIM * 4
    for looked_up in (128, 1024):
        per_step = _bytes_per_step(cluster, make(), looked_up)
        # ps -> worker: the looked-up rows (and the variable's shape, 8 bytes).
        assert looked_up * row_bytes <= per_step["ps"] <= looked_up * row_bytes + 64
        # worker -> ps: the gradient's rows and their row numbers (int32), nothing else.
        rows_and_numbers = looked_up * (row_bytes + 4)
        assert rows_and_numbers <= per_step["worker"] <= rows_and_numbers + 64, per_step
        assert per_step["worker"] < ROWS * row_bytes / 20  # vs 25.6 MB a step, dense
