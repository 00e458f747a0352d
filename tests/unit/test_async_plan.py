"""Partitions with receives run, after their first step, through compiled groups of nodes
(runtime/async_plan.py): the same values, the same errors naming the same nodes, and the same
waits as the dataflow loop, whichever order the receives finish in."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.traced_memory import traced_peak
from tfcluster.runtime import async_plan, executor, outbox
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.graph_ir import Node, node_from_operation
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext

DEV = "/job:worker/replica:0/task:0/device:CPU:0"
PEER = "/job:ps/replica:0/task:0/device:CPU:0"


def _recv(name: str, tensor: str, sender: str = DEV) -> Node:
    attrs = {
        "tensor_name": tensor,
        "send_device": sender,
        "recv_device": DEV,
        "client_terminated": False,
        "tensor_type": tf.float32,
    }
    return Node(name, "_Recv", [], [], DEV, attrs)


def _send(name: str, src: str, tensor: str) -> Node:
    attrs = {"tensor_name": tensor, "send_device": DEV, "recv_device": DEV}
    attrs["client_terminated"] = False
    return Node(name, "_Send", [(src, 0)], [], DEV, attrs)


def _key(tensor: str, sender: str = DEV) -> str:
    return rdv.make_key(sender, DEV, tensor)


def _partition() -> tuple[list[Node], list[str]]:
    """x -> a = 2x, sent to this task itself and received back as r1; r2 comes from a peer.
    b = r1 + 1, c = r1 * r2, d = b - a, e = reshape(c, shape): a and r1 are read by nodes
    that wait for different receives."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        shape = tf.placeholder(tf.int32, [None], name="shape")
        a = tf.multiply(x, 2.0, name="a")
        r1 = tf.placeholder(tf.float32, [3], name="r1")  # stands for a _Recv below
        r2 = tf.placeholder(tf.float32, [3], name="r2")
        b = tf.add(r1, 1.0, name="b")
        c = tf.multiply(r1, r2, name="c")
        tf.subtract(b, a, name="d")
        tf.reshape(c, shape, name="e")
        tf.constant([4.0, 5.0], name="k")
    nodes = [node_from_operation(op) for op in g.get_operations()]
    nodes = [n for n in nodes if n.name not in ("r1", "r2")]
    nodes += [_recv("r1", "a:0"), _recv("r2", "w:0", PEER), _send("send_a", "a", "a:0")]
    return nodes, ["d:0", "c:0", "e:0", "r2:0", "k:0"]


def _executor(planned: bool) -> executor.Executor:
    nodes, fetches = _partition()
    ex = executor.Executor(nodes, ["x:0", "shape:0"], fetches, ["send_a"])
    if not planned:
        ex._plannable = False  # the dataflow loop every step
    return ex


def _step(
    ex: executor.Executor,
    x: Any,
    w: Any,
    shape: Any = (3,),
    delay: float = 0.0,
    deadline: float | None = None,
) -> list[Any]:
    """One step; the peer sends w after `delay` seconds (never, if w is None)."""
    table = rdv.Rendezvous()
    ctx = StepContext(7, ResourceMgr(), table, deadline=deadline)
    if w is not None:
        if delay:
            threading.Timer(delay, table.send, (_key("w:0", PEER), w)).start()
        else:
            table.send(_key("w:0", PEER), w)
    return ex.run(ctx, [np.asarray(x, np.float32), np.asarray(shape, np.int32)])


def test_signatures_are_the_receives_each_node_waits_for() -> None:
    # 0: recv, 1: recv, 2 <- 0, 3 <- 1 and 2, 4 <- nothing, 5 <- 4 and 3
    is_async = [True, True, False, False, False, False]
    waits = [[], [], [0], [1, 2], [], [4, 3]]
    assert async_plan.signatures(is_async, waits) == [0, 0, 0b01, 0b11, 0, 0b11]


def test_planned_steps_give_the_loops_values_whenever_the_receives_come() -> None:
    loop, plan = _executor(planned=False), _executor(planned=True)
    w = np.array([1.0, -2.0, 0.5], np.float32)
    for k, delay in enumerate((0.0, 0.0, 0.02, 0.0, 0.05)):
        x = np.array([1.0, 2.0, 3.0], np.float32) + k
        want = _step(loop, x, w)
        got = _step(plan, x, w, delay=delay)
        for a, b in zip(want, got):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got[0], 2 * x + 1 - 2 * x)
        np.testing.assert_array_equal(got[1], 2 * x * w)
        np.testing.assert_array_equal(got[4], [4.0, 5.0])  # a fetched constant
    assert plan._plan is not None and loop._plan is None


def test_a_failing_node_after_a_receive_is_named_as_the_loop_names_it() -> None:
    loop, plan = _executor(planned=False), _executor(planned=True)
    w = np.ones(3, np.float32)
    for _ in range(2):
        _step(plan, [1, 2, 3], w)
    assert plan._plan is not None
    raised = []
    for ex in (loop, plan):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"node e\b") as info:
            _step(ex, [1, 2, 3], w, shape=(2, 2), delay=0.01)
        raised.append(info.value.message)
    assert raised[0] == raised[1]
    # The executor goes on with the next step.
    np.testing.assert_array_equal(_step(plan, [1, 2, 3], w, shape=(1, 3))[2], [[2, 4, 6]])


def test_a_receive_that_fails_fails_the_step_as_in_the_loop() -> None:
    loop, plan = _executor(planned=False), _executor(planned=True)
    for _ in range(2):
        _step(plan, [1, 2, 3], np.ones(3, np.float32))
    raised = []
    for ex in (loop, plan):
        table = rdv.Rendezvous()
        ctx = StepContext(8, ResourceMgr(), table)
        threading.Timer(
            0.01, table.abort, (tf.errors.AbortedError(None, None, "peer went away"),)
        ).start()
        with pytest.raises(tf.errors.AbortedError, match="peer went away") as info:
            ex.run(ctx, [np.ones(3, np.float32), np.array([3], np.int32)])
        assert (ex._plan is not None) == (ex is plan)
        assert ctx.cancelled.is_set()
        raised.append(info.value.message)
    assert raised[0] == raised[1]
    assert "node r2" in raised[1]


def test_a_receive_that_never_comes_times_out_at_the_deadline() -> None:
    plan = _executor(planned=True)
    for _ in range(2):
        _step(plan, [1, 2, 3], np.ones(3, np.float32))
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for tensors"):
        _step(plan, [1, 2, 3], None, deadline=time.monotonic() + 0.1)
    assert time.monotonic() - start < 5.0


def test_planned_ps_steps_update_a_big_embedding_in_place() -> None:
    """Planned partitions on both tasks (the ps gathers rows for the worker, then applies
    the gradients it receives): the update writes its rows in place, no copy of the table,
    and the embedding ends as plain SGD would leave it."""
    rows, dim = 100000, 64
    workers, ps = tf.test.create_local_cluster(1, 1)
    graph = tf.Graph()
    with (
        graph.as_default(),
        tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")),
    ):
        emb = tf.get_variable("emb", [rows, dim], initializer=tf.ones_initializer())
        ids = tf.placeholder(tf.int32, [128])
        looked_up = tf.nn.embedding_lookup(emb, ids)  # on the ps; the loss on the worker
        loss = tf.reduce_sum(looked_up * looked_up)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    feed = {ids: np.random.default_rng(0).integers(0, rows, 128)}
    with tf.Session(workers[0].target, graph=graph) as sess:
        sess.run(init)
        for _ in range(3):  # the plans are made from the second step on
            sess.run(train, feed)
        planned = [
            reg.executor
            for server in (workers[0], ps[0])
            for reg in list(server.worker._graphs.values())
            if isinstance(reg.executor, executor.Executor)
            and reg.executor.has_async
            and reg.executor._plan is not None
        ]
        assert len(planned) >= 2  # the worker's partition and the ps's
        with traced_peak() as peak:
            for _ in range(3):
                sess.run(train, feed)
        got = sess.run(emb)
    assert peak.bytes < rows * dim * 4 // 10, f"a step allocated {peak.bytes} bytes at its peak"
    want = np.ones(rows, np.float64)
    counts = np.bincount(feed[ids], minlength=rows)
    for _ in range(6):  # each step: every occurrence of a row adds 2 * its value read
        want -= 0.1 * 2.0 * counts * want
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)
    np.testing.assert_array_equal(got[:, 1], got[:, 0])


def test_sends_go_out_before_the_rest_of_their_group_runs() -> None:
    """A peer waits for what this step sends: the answers the send hands the outbox (as a
    direct RecvTensors call does) are written before the nodes nothing sent needs run."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        tf.multiply(x, 2.0, name="a")
        tf.add(x, 1.0, name="late")
        r = tf.placeholder(tf.float32, [3], name="r")  # stands for a _Recv below
        tf.identity(r, name="got")
    nodes = [node_from_operation(op) for op in g.get_operations() if op.name != "r"]
    nodes += [_recv("r", "w:0", PEER), _send("send_a", "a", "a:0")]
    ex = executor.Executor(nodes, ["x:0"], ["late:0", "got:0"], ["send_a"])
    events: list[str] = []
    late = next(s for s in ex.steps if s.name == "late")
    compute = late.fn

    def timed(ctx: Any, ins: list[Any]) -> Any:
        events.append("late")
        return compute(ctx, ins)

    late.fn = timed

    def write(messages: list[Any]) -> None:
        events.append("sent")

    for _ in range(3):
        table = rdv.Rendezvous()
        table.send(_key("w:0", PEER), np.ones(3, np.float32))
        table.recv_async(_key("a:0"), lambda v, e: outbox.current().add(write, v))  # type: ignore[union-attr]
        events.clear()
        got = ex.run(StepContext(5, ResourceMgr(), table), [np.arange(3, dtype=np.float32)])
        np.testing.assert_array_equal(got[0], [1, 2, 3])
    assert ex._plan is not None
    assert events == ["sent", "late"]
