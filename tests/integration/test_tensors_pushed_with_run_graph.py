"""A master pushes the tensors its own partition makes from its feeds alone to the tasks that
receive them, in their RunGraph requests (held back until those tensors are made): a
parameter server gets the ids it gathers with its RunGraph instead of asking the worker for
them, while what depends on its answer (the gradient) is asked for as before. Values, errors
and later steps are those of the pulled exchange."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.direct_links import wait_for_direct_links
from tfcluster.distributed.worker import Worker
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

WORKER = "/job:worker/replica:0/task:0"
ROWS, DIM = 10, 3


def _asked(server: tf.train.Server, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tensor names `server` asks the worker task for from now on."""
    peer = server._core.worker_cache.worker(WORKER)
    asked: list[str] = []
    recv = peer.recv_tensor

    def counting(step_id: int, key: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(key.rsplit(";", 1)[1])
        return recv(step_id, key, *args, **kwargs)

    monkeypatch.setattr(peer, "recv_tensor", counting)
    return asked


def _model() -> dict[str, Any]:
    """ids from a fed tensor gather rows on each ps (one table per ps), the worker adds them up
    and sends a gradient back to each table."""
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [4], name="x")
        ids = tf.cast(tf.check_numerics(x, "ids must be finite"), tf.int32, name="ids")
    tables = []
    for i in range(2):
        with tf.device(f"/job:ps/task:{i}"):
            init = np.arange(ROWS * DIM, dtype=np.float32).reshape(ROWS, DIM) * (i + 1)
            tables.append(tf.Variable(init, name=f"table{i}"))
    with tf.device("/job:worker/task:0"):
        rows = [tf.nn.embedding_lookup(t, ids) for t in tables]  # gathers on the table's ps
        loss = tf.reduce_sum(rows[0] * rows[1])
        train = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
    return {"x": x, "loss": loss, "train": train, "tables": tables}


def _expected_loss(x: np.ndarray, tables: list[np.ndarray]) -> float:
    ids = x.astype(np.int32)
    return float(np.sum(tables[0][ids] * tables[1][ids]))


def test_a_ps_gets_the_ids_it_gathers_with_its_run_graph(
    worker_and_two_ps: dict[str, tf.train.Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    g = tf.Graph()
    with g.as_default():
        m = _model()
        init = tf.global_variables_initializer()
    sess = tf.Session(worker_and_two_ps["worker"].target, graph=g)
    sess.run(init)
    x = np.array([1, 3, 3, 7], np.float32)
    wait_for_direct_links(worker_and_two_ps, lambda: sess.run(m["train"], {m["x"]: x}))
    asked = {name: _asked(worker_and_two_ps[name], monkeypatch) for name in ("ps0", "ps1")}
    for _ in range(3):
        tables = sess.run(m["tables"])
        loss, _ = sess.run([m["loss"], m["train"]], {m["x"]: x})
        assert loss == pytest.approx(_expected_loss(x, tables), rel=1e-6)
    for name, keys in asked.items():
        # Each ps asked for the gradient of its table (values and indices) every step, never
        # for the ids.
        assert keys and not any(k.startswith("ids") for k in keys), (name, keys)
        assert any("gradients" in k for k in keys), (name, keys)
    sess.close()


def test_a_step_that_fails_before_making_what_it_pushes_fails_and_the_next_runs(
    worker_and_two_ps: dict[str, tf.train.Server],
) -> None:
    g = tf.Graph()
    with g.as_default():
        m = _model()
        init = tf.global_variables_initializer()
    sess = tf.Session(worker_and_two_ps["worker"].target, graph=g)
    sess.run(init)
    good = np.array([0, 2, 4, 9], np.float32)
    wait_for_direct_links(worker_and_two_ps, lambda: sess.run(m["loss"], {m["x"]: good}))
    for _ in range(3):
        with pytest.raises(tf.errors.InvalidArgumentError, match="ids must be finite"):
            sess.run(m["train"], {m["x"]: np.array([0, np.nan, 1, 2], np.float32)})
        tables = sess.run(m["tables"])
        assert sess.run(m["loss"], {m["x"]: good}) == pytest.approx(
            _expected_loss(good, tables), rel=1e-6
        )
    sess.close()


def test_a_run_graph_cannot_push_what_its_graph_does_not_receive() -> None:
    ps = "/job:ps/replica:0/task:0"
    worker = Worker(ps)
    recv = Node(
        "_recv/ids_0/w",
        "_Recv",
        [],
        [],
        f"{ps}/device:CPU:0",
        {
            "tensor_name": "ids:0",
            "send_device": f"{WORKER}/device:CPU:0",
            "recv_device": f"{ps}/device:CPU:0",
            "client_terminated": False,
            "tensor_type": tf.int32,
        },
    )
    out = Node("out", "Identity", [(recv.name, 0)], [], f"{ps}/device:CPU:0", {"T": tf.int32})
    handle = worker.register_graph("s", Partition(ps, [recv, out], fetches=["out:0"]))
    wrong = f"{WORKER}/device:CPU:0;{ps}/device:CPU:0;other:0"
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not receive"):
        worker.run_graph("s", handle, 1, [], pushed=[(wrong, np.int32(1))])
    key = f"{WORKER}/device:CPU:0;{ps}/device:CPU:0;ids:0"
    ids = np.array([4, 2], np.int32)
    (got,) = worker.run_graph("s", handle, 2, [], pushed=[(key, ids)]).fetches
    np.testing.assert_array_equal(got, ids)
    worker.close()
