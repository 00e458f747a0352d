"""The transport-free distributed runtime: a Master over several in-process Workers (real
workers, no gRPC), exercising plans across tasks, aborts, self-cleaning rendezvous, restarts."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.distributed.interfaces import WorkerInterface
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.partition import Partition

TASKS = [f"/job:local/replica:0/task:{i}" for i in range(3)]


class InProcessCluster:
    """A WorkerCacheInterface whose tasks are Worker objects of this process."""

    def __init__(self, tasks: list[str]) -> None:
        self.workers = {t: Worker(t, worker_cache=self) for t in tasks}
        self.status_calls = 0

    def tasks(self) -> list[str]:
        return list(self.workers)

    def worker(self, task: str) -> WorkerInterface:
        # Like a gRPC client of the task's address: after a restart it reaches the new worker.
        return _Address(self, task)  # type: ignore[return-value]

    def addresses(self) -> dict[str, str]:
        return {}

    def learn_peers(self, addresses: Mapping[str, str]) -> None:
        """In-process: no task is reached by address."""

    def is_local(self, task: str) -> bool:
        return task == TASKS[0]

    def restart(self, task: str) -> None:
        self.workers[task] = Worker(task, worker_cache=self)


class _Address:
    def __init__(self, cluster: InProcessCluster, task: str) -> None:
        self._cluster = cluster
        self._task = task

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cluster.workers[self._task], name)


class Client:
    """What tf.Session does for a master: send the graph, run steps by tensor name."""

    def __init__(self, master: Master, graph: tf.Graph, config: Any = None) -> None:
        self.master = master
        ops = graph.get_operations()
        nodes = [node_from_operation(op) for op in ops]
        dtypes = {t.name: t.dtype.base_dtype for op in ops for t in op.outputs}
        self.handle = master.create_session(nodes, dtypes, config)

    def run(self, fetches: list[Any], feeds: dict[Any, Any] | None = None, **kw: Any) -> list[Any]:
        names = [f.name for f in fetches if isinstance(f, tf.Tensor)]
        targets = [f.name for f in fetches if isinstance(f, tf.Operation)]
        feed_names = {k.name: np.asarray(v, np.float32) for k, v in (feeds or {}).items()}
        values, _ = self.master.run_step(self.handle, feed_names, names, targets, **kw)
        return values


@pytest.fixture
def cluster() -> InProcessCluster:
    return InProcessCluster(TASKS)


def _no_tables_left(cluster: InProcessCluster) -> None:
    for w in cluster.workers.values():
        assert w.wait_idle(2.0), f"{w.task} kept {len(w.rendezvous)} rendezvous tables"


def test_a_step_across_three_tasks_and_no_rendezvous_left(cluster: InProcessCluster) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        with tf.device("/job:local/task:2"):
            v = tf.Variable(3.0, name="v")
        with tf.device("/job:local/task:1"):
            y = x * v
        with tf.device("/job:local/task:2"):
            z = y + 1.0
        with tf.device("/job:local/task:0"):
            total = tf.reduce_sum(z)
    master = Master(cluster, TASKS[0])
    c = Client(master, g)
    c.run([v.initializer])
    for i in range(5):
        value = np.arange(i + 1, dtype=np.float32)
        zv, tv = c.run([z, total], {x: value})
        np.testing.assert_allclose(zv, value * 3.0 + 1.0)
        assert tv == pytest.approx((value * 3.0 + 1.0).sum())
    _no_tables_left(cluster)


def test_an_error_in_one_partition_aborts_the_others_at_once(cluster: InProcessCluster) -> None:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:local/task:1"):
            never = tf.Variable(1.0, name="never")
        with tf.device("/job:local/task:0"):
            out = never * 2.0  # waits for task 1's value, which never comes
    c = Client(Master(cluster, TASKS[0]), g)
    t0 = time.monotonic()
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value never"):
        c.run([out])
    assert time.monotonic() - t0 < 1.0
    _no_tables_left(cluster)


def test_deadline_of_a_step_waiting_for_a_tensor(cluster: InProcessCluster) -> None:
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(1, [tf.float32], shapes=[[]])
        with tf.device("/job:local/task:1"):
            item = q.dequeue()  # blocks: nothing was enqueued
        with tf.device("/job:local/task:0"):
            doubled = item * 2.0
    c = Client(Master(cluster, TASKS[0]), g)
    t0 = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError):
        c.run([doubled], options=tf.RunOptions(timeout_in_ms=300))
    assert time.monotonic() - t0 < 3.0
    _no_tables_left(cluster)


def test_a_restarted_task_gets_its_graphs_again(cluster: InProcessCluster) -> None:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:local/task:1"):
            # Not a constant expression: folded, the step would run on task 0 alone.
            c1 = tf.placeholder_with_default(4.0, []) * 2.0
        with tf.device("/job:local/task:0"):
            across = c1 + 1.0
    c = Client(Master(cluster, TASKS[0]), g)
    assert c.run([c1]) == [8.0]
    assert c.run([across]) == [9.0]
    cluster.restart(TASKS[1])
    with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found"):
        c.run([across])  # partitions on two tasks: may have run partly, so it says so once
    assert c.run([across]) == [9.0]  # ...and registers every graph of the session again
    cluster.restart(TASKS[1])
    assert c.run([c1]) == [8.0]  # one partition: registered again, run again at once
    _no_tables_left(cluster)


def test_graph_handles_of_a_previous_incarnation_never_match() -> None:
    w1, w2 = Worker(TASKS[0]), Worker(TASKS[0])
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)

    part = Partition(TASKS[0], [node_from_operation(c.op)], [], [c.name], [])
    h1, h2 = w1.register_graph("s", part), w2.register_graph("s", part)
    assert h1 != h2
    with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found"):
        w2.run_graph("s", h1, 1, [])


def test_an_aborted_step_fails_its_late_partitions_at_once(cluster: InProcessCluster) -> None:
    worker = cluster.workers[TASKS[1]]
    worker.abort_step(77, tf.errors.CancelledError(None, None, "the step failed elsewhere"))
    got: list[Any] = []
    worker.recv_tensor(77, "a;b;c", lambda v, e: got.append(e))
    assert isinstance(got[0], tf.errors.CancelledError)
    assert len(worker.rendezvous) == 0


def test_devices_are_discovered_once_per_master(cluster: InProcessCluster) -> None:
    calls = []
    for w in cluster.workers.values():
        original = w.get_status

        def counted(timeout: float | None = None, original: Any = original) -> Any:
            calls.append(1)
            return original(timeout)

        w.get_status = counted  # type: ignore[method-assign]
    master = Master(cluster, TASKS[0])
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    for _ in range(3):
        assert Client(master, g).run([c]) == [1.0]
    assert len(calls) == len(TASKS)
    names = sorted(d.name for d in master.list_devices())
    assert names == [f"{t}/device:{kind}:0" for t in TASKS for kind in ("CPU", "XLA_CPU")]


def test_control_inputs_from_one_task_cross_as_one_message(cluster: InProcessCluster) -> None:
    """A node on task 0 that waits for four updates on task 2 receives one control message
    (a NoOp on task 2 joins them), and still runs only after all four."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:local/task:2"):
            vs = [tf.Variable(0.0, name=f"v{i}") for i in range(4)]
            updates = [v.assign_add(float(i + 1)) for i, v in enumerate(vs)]
            total = tf.add_n([tf.identity(v) for v in vs])
        with tf.device("/job:local/task:0"), tf.control_dependencies(updates):
            after = tf.no_op()
    master = Master(cluster, TASKS[0])
    c = Client(master, g)
    c.run([v.initializer for v in vs])
    for step in range(1, 4):
        c.run([after])
        assert c.run([total])[0] == pytest.approx(step * (1 + 2 + 3 + 4))
    _no_tables_left(cluster)

    session = next(iter(master._sessions.values()))
    plan = next(
        p
        for p in session._plans.values()
        if any(after.name in part.partition.targets for part in p.parts)
    )
    by_task = {part.task: part.partition for part in plan.parts}
    recvs = [n.name for n in by_task[TASKS[0]].nodes if n.op == "_Recv"]
    assert len(recvs) == 1, recvs
    joins = [n for n in by_task[TASKS[2]].nodes if n.name.startswith("_ctrl_join/")]
    assert len(joins) == 1
    assert sorted(joins[0].control_inputs) == sorted(u.op.name for u in updates)


# ---- nothing grows forever ---------------------------------------------------------------
def _across_two_tasks() -> tuple[tf.Graph, list[tf.Tensor]]:
    """Forty values on task 2, each fetched through task 0: a plan per fetched subset."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:local/task:2"):
            # Not constants: those would be folded, and copied to task 0 (no step on task 2).
            consts = [tf.placeholder_with_default(float(i), [], name=f"c{i}") for i in range(40)]
        with tf.device("/job:local/task:0"):
            outs = [c + 1.0 for c in consts]
    return g, outs


def _graphs(cluster: InProcessCluster) -> int:
    return sum(w.num_graphs() for w in cluster.workers.values())


def test_sessions_a_client_abandoned_are_collected(cluster: InProcessCluster) -> None:
    master = Master(cluster, TASKS[0], session_gc_seconds=0.5)
    g, outs = _across_two_tasks()
    abandoned = []
    for i in range(1000):
        abandoned.append(Client(master, g))
        if i < 20:
            assert abandoned[-1].run([outs[0]]) == [1.0]  # graphs on tasks 0 and 2
    assert master.num_sessions() > 1
    kept = Client(master, g)
    deadline = time.monotonic() + 10
    while master.num_sessions() > 1 and time.monotonic() < deadline:
        assert kept.run([outs[1]]) == [2.0]  # a session in use is never collected
        time.sleep(0.05)
    assert master.num_sessions() == 1
    assert _graphs(cluster) == 2  # the collected sessions' graphs are gone from the workers
    with pytest.raises(tf.errors.AbortedError, match="session_gc_seconds"):
        abandoned[0].run([outs[0]])
    master.close()


def test_a_session_keeps_its_plans_and_graphs_at_the_bound(cluster: InProcessCluster) -> None:
    master = Master(cluster, TASKS[0], max_plans_per_session=8)
    g, outs = _across_two_tasks()
    c = Client(master, g)
    for i in range(40):
        for j in range(i + 1, min(i + 6, 40)):
            assert c.run([outs[i], outs[j]]) == [i + 1.0, j + 1.0]
    session = master.session(c.handle)
    assert session.num_plans == 8
    assert _graphs(cluster) == 16  # each plan: one graph on task 0, one on task 2
    # The most recently used plan is kept; an evicted one is made (and registered) again.
    assert c.run([outs[0], outs[1]]) == [1.0, 2.0]
    assert session.num_plans == 8 and _graphs(cluster) == 16


def test_plans_invalidated_by_a_restart_are_deregistered_elsewhere(
    cluster: InProcessCluster,
) -> None:
    g, outs = _across_two_tasks()
    c = Client(Master(cluster, TASKS[0]), g)
    for i in range(5):
        c.run([outs[i]])
    assert cluster.workers[TASKS[0]].num_graphs() == 5
    cluster.restart(TASKS[2])
    with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found"):
        c.run([outs[0]])
    assert cluster.workers[TASKS[0]].num_graphs() == 0  # not left behind on task 0
    assert c.run([outs[0]]) == [1.0]
    assert cluster.workers[TASKS[0]].num_graphs() == 1


def test_recv_tensor_for_made_up_steps_leaves_no_tables() -> None:
    worker = Worker(TASKS[1])
    worker.orphan_recv_timeout = 0.2
    worker.max_unrun_steps = 100
    rng = np.random.default_rng(0)
    errors_seen: list[Any] = []
    key = "/job:local/replica:0/task:1/device:CPU:0;/job:local/replica:0/task:0/device:CPU:0;x:0"
    for i, step in enumerate(rng.integers(1, 1 << 62, size=1000)):
        cancel = worker.recv_tensor(int(step), key, lambda v, e: errors_seen.append(e))
        if i % 2 and cancel is not None:
            cancel()  # a receiver that gave up leaves nothing behind at once
    assert len(worker.rendezvous) <= 100
    refused = [e for e in errors_seen if isinstance(e, tf.errors.ResourceExhaustedError)]
    assert refused and "awaited here already" in refused[0].message
    assert worker.wait_idle(3.0), f"{len(worker.rendezvous)} tables left"
    # Every receiver was answered: cancelled, refused, or given up after the timeout.
    assert len(errors_seen) == 1000
    assert any(isinstance(e, tf.errors.AbortedError) for e in errors_seen)


def test_a_finished_steps_untaken_tensor_is_dropped_after_the_timeout(
    cluster: InProcessCluster,
) -> None:
    g, outs = _across_two_tasks()
    master = Master(cluster, TASKS[0])
    worker = cluster.workers[TASKS[2]]
    worker.orphan_recv_timeout = 0.2
    c = Client(master, g)
    assert c.run([outs[3]]) == [4.0]
    plan = next(iter(master.session(c.handle)._plans.values()))
    sender = next(p for p in plan.parts if p.task == TASKS[2])
    # Only the sending half of a step runs: its receiver never comes for the value.
    worker.run_graph(c.handle, sender.graph_handle, 12345, [])
    assert len(worker.rendezvous) == 1
    assert worker.wait_idle(3.0)
    got: list[Any] = []
    key = next(n.attrs["tensor_name"] for n in sender.partition.nodes if n.op == "_Send")
    worker.recv_tensor(12345, key, lambda v, e: got.append(e))
    assert isinstance(got[0], tf.errors.AbortedError) and "finished" in got[0].message
