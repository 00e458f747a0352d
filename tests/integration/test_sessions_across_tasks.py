"""Sessions on the task servers of one cluster, step by step as a newcomer to distributed TF1
meets them: a variable shared by name between two sessions, default placement on the first
task, a graph per client; then, a process per task, a first run that waits for every task of
the cluster, tasks that leave or come back, a task that waits for another to initialise the
variables, and a parameter server with two workers.

The in-process programs run here, with two servers in this process; the multi-process ones
run their functions (support/multi_task_programs.py) in spawned processes.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import queue
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import tfcluster as tf
from support import multi_task_programs as prog
from support.cluster_processes import free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

CTX = multiprocessing.get_context("spawn")


@contextlib.contextmanager
def servers(*cluster_args: Any) -> Iterator[list[Any]]:
    started: list[Any] = []
    try:
        yield started
    finally:
        for s in started:
            s.stop(grace=0.5)


def run_with_location_trace(sess: Any, op: Any) -> None:
    # From https://stackoverflow.com/a/41525764/7832197
    run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    run_metadata = tf.RunMetadata()
    sess.run(op, options=run_options, run_metadata=run_metadata)
    for device in run_metadata.step_stats.dev_stats:
        print(device.device)
        for node in device.node_stats:
            print("  ", node.node_name)


def printed(fn: Callable[[], Any]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


def test_sharing_placement_and_graphs_in_process() -> None:
    p = free_ports(4)
    with servers() as started:
        # ---- Distributed TensorFlow: two servers, one variable shared by name ----
        tasks = [f"localhost:{p[0]}", f"localhost:{p[1]}"]
        jobs = {"local": tasks}
        cluster = tf.train.ClusterSpec(jobs)
        server1 = tf.train.Server(cluster, job_name="local", task_index=0)
        server2 = tf.train.Server(cluster, job_name="local", task_index=1)
        started += [server1, server2]

        tf.reset_default_graph()
        var = tf.Variable(initial_value=0.0, name="var")
        sess1 = tf.Session(server1.target)
        sess2 = tf.Session(server2.target)

        def sharing() -> None:
            sess1.run(tf.global_variables_initializer())
            sess2.run(tf.global_variables_initializer())
            print("Initial value of var in session 1:", sess1.run(var))
            print("Initial value of var in session 2:", sess2.run(var))
            sess1.run(var.assign_add(1.0))
            print("Incremented var in session 1")
            print("Value of var in session 1:", sess1.run(var))
            print("Value of var in session 2:", sess2.run(var))

        assert printed(sharing) == (
            "Initial value of var in session 1: 0.0\n"
            "Initial value of var in session 2: 0.0\n"
            "Incremented var in session 1\n"
            "Value of var in session 1: 1.0\n"
            "Value of var in session 2: 1.0\n"
        )

        # ---- Placement ----
        t0 = "/job:local/replica:0/task:0/device:CPU:0"
        t1 = "/job:local/replica:0/task:1/device:CPU:0"
        assert printed(lambda: run_with_location_trace(sess1, var)) == (
            f"{t0}\n   _SOURCE\n   var\n"
        )
        assert printed(lambda: run_with_location_trace(sess1, var.assign_add(1.0))) == (
            f"{t0}\n   _SOURCE\n   AssignAdd_1/value\n   var\n   AssignAdd_1\n"
        )
        assert printed(lambda: run_with_location_trace(sess2, var)) == (
            f"{t1}\n   _SOURCE\n{t0}\n   _SOURCE\n   var\n"
        )
        with tf.device("/job:local/task:0"):
            var1 = tf.Variable(0.0, name="var1")
        with tf.device("/job:local/task:1"):
            var2 = tf.Variable(0.0, name="var2")
        # (This will initialize both variables)
        sess1.run(tf.global_variables_initializer())
        assert printed(lambda: run_with_location_trace(sess1, var1)) == (
            f"{t0}\n   _SOURCE\n   var1\n"
        )
        assert printed(lambda: run_with_location_trace(sess1, var2)) == (
            f"{t0}\n   _SOURCE\n{t1}\n   _SOURCE\n   var2\n"
        )
        assert printed(lambda: run_with_location_trace(sess2, var2)) == (
            f"{t1}\n   _SOURCE\n   var2\n"
        )
        assert printed(lambda: run_with_location_trace(sess2, var1)) == (
            f"{t1}\n   _SOURCE\n{t0}\n   _SOURCE\n   var1\n"
        )

        # ---- Graphs: who builds the graph? ----
        cluster = tf.train.ClusterSpec({"local": [f"localhost:{p[2]}", f"localhost:{p[3]}"]})
        server1 = tf.train.Server(cluster, job_name="local", task_index=0)
        server2 = tf.train.Server(cluster, job_name="local", task_index=1)
        started += [server1, server2]
        graph1 = tf.Graph()
        with graph1.as_default():
            var1 = tf.Variable(0.0, name="var")
        sess1 = tf.Session(target=server1.target, graph=graph1)
        assert str(graph1.get_operations()) == (
            "[<tf.Operation 'var/initial_value' type=Const>, <tf.Operation 'var' type=VariableV2>,"
            " <tf.Operation 'var/Assign' type=Assign>, <tf.Operation 'var/read' type=Identity>]"
        )
        graph2 = tf.Graph()
        sess2 = tf.Session(target=server2.target, graph=graph2)
        assert graph2.get_operations() == []
        with graph2.as_default():
            var2 = tf.Variable(0.0, name="var")
        sess1.run(var1.assign(1.0))
        assert sess2.run(var2) == 1.0


def _collect(out: Any, until: Callable[[list[str]], bool], timeout: float) -> list[str]:
    lines: list[str] = []
    end = time.monotonic() + timeout
    while not until(lines):
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; lines so far: {lines}")
        try:
            lines.append(out.get(timeout=left))
        except queue.Empty:
            continue
    return lines


@contextlib.contextmanager
def processes() -> Iterator[list[Any]]:
    procs: list[Any] = []
    try:
        yield procs
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join(5)


def _jobs(*ports: int) -> dict[str, list[str]]:
    return {"local": [f"localhost:{p}" for p in ports]}


def test_first_run_waits_for_a_late_server() -> None:
    jobs = _jobs(*free_ports(2))
    out = CTX.Queue()
    with processes() as procs:
        procs += prog.run_in_processes((prog.late_s1, (jobs, out)), (prog.late_s2, (jobs, out)))
        lines = _collect(out, lambda ls: "s1|server 1: no-op run!" in ls, 60)
    assert lines.index("s1|server 1: running no-op...") < lines.index("s2|server 2: connected!")
    assert lines.index("s2|server 2: connected!") < lines.index("s1|server 1: no-op run!")
    assert "s2|server 2: 1 seconds left before connecting..." in lines


def test_ops_on_a_live_task_keep_working_when_another_task_leaves() -> None:
    jobs = _jobs(*free_ports(2))
    out = CTX.Queue()
    with processes() as procs:
        procs += prog.run_in_processes(
            (prog.leaving_s2, (jobs, out, 2.0)), (prog.leaving_s1_own_task, (jobs, out))
        )
        lines = _collect(out, lambda ls: "s1|done" in ls, 60)
    successes = [ln for ln in lines if ln == "s1|Server 1: about to run no-op...success!"]
    assert len(successes) == 6
    died = lines.index("s2|Server 2 dieing...")
    assert any(ln.startswith("s1|Server 1") for ln in lines[died + 1 :])


def test_an_op_on_a_dead_task_fails_within_the_timeout() -> None:
    jobs = _jobs(*free_ports(2))
    out = CTX.Queue()
    first_run_done = CTX.Event()
    with processes() as procs:
        procs += prog.run_in_processes(
            (prog.leaving_s2, (jobs, out, 1.0, first_run_done)),
            (prog.leaving_s1_other_task, (jobs, out, 2000, 4, first_run_done)),
        )
        lines = _collect(out, lambda ls: "s1|done" in ls, 60)
    s1 = [ln[3:] for ln in lines if ln.startswith("s1|")]
    assert s1[0] == "Server 1: about to run no-op...success!"
    errors = [ln for ln in s1 if ln.startswith("error")]
    assert errors, s1
    for e in errors:
        kind, seconds = e.split()[1], float(e.split()[3][:-1])
        assert kind in ("DeadlineExceededError", "UnavailableError")
        assert seconds < 2.0 + 1.0


def test_a_task_that_comes_back_serves_the_same_session_again() -> None:
    """A task restarted under a running session: TensorFlow fails the next run with "Graph
    handle is not found"; here the blocked run goes through once the task is back (its graphs
    are registered again)."""
    jobs = _jobs(*free_ports(2))
    out = CTX.Queue()
    with processes() as procs:
        procs += prog.run_in_processes(
            (prog.leaving_s1_other_task, (jobs, out, 0, 5)), (prog.leaving_s2, (jobs, out, 2.0))
        )
        lines = _collect(out, lambda ls: "s2|Server 2 dieing..." in ls, 60)
        procs[1].join(10)
        assert not procs[1].is_alive()  # the process left, and its server with it
        time.sleep(1.0)  # server 1 is blocked now: its task is gone
        # Restarting server 2... (it stays up this time, so the test does not race its death)
        procs += prog.run_in_processes((prog.leaving_s2, (jobs, out, 60.0)))
        lines += _collect(out, lambda ls: "s1|done" in ls, 60)
    s1 = [ln[3:] for ln in lines if ln.startswith("s1|")]
    assert not [ln for ln in s1 if ln.startswith("error")], s1
    assert s1.count("Server 1: about to run no-op...success!") == 5


def test_waiting_for_another_task_to_initialise() -> None:
    jobs = _jobs(*free_ports(2))
    out = CTX.Queue()
    with processes() as procs:
        procs += prog.run_in_processes((prog.init_s1, (jobs, out)), (prog.init_s2, (jobs, out)))
        lines = _collect(
            out,
            lambda ls: (
                "s1|Server 1: variables initialized!" in ls and "s2|Server 2: initialized" in ls
            ),
            60,
        )
    assert "s1|Server 1: waiting for initialization..." in lines
    # Server 1 sees the variables only once server 2 initialises them. (Server 2 says so
    # right after its run returns; server 1 may see them first, so compare with the line
    # server 2 says before its last second of waiting.)
    assert lines.index("s2|Server 2: waiting 1 seconds before initializing...") < lines.index(
        "s1|Server 1: variables initialized!"
    )


def test_a_parameter_server_and_two_workers_share_one_variable() -> None:
    ports = free_ports(3)
    jobs = {
        "worker": [f"localhost:{ports[0]}", f"localhost:{ports[1]}"],
        "ps": [f"localhost:{ports[2]}"],
    }
    out = CTX.Queue()
    with processes() as procs:
        procs += prog.run_in_processes((prog.parameter_server, (jobs, out)))
        procs += prog.run_in_processes((prog.worker, (jobs, out, 0)))
        procs += prog.run_in_processes((prog.worker, (jobs, out, 1)))
        lines = _collect(
            out,
            lambda ls: "w0|Worker 0: blocking..." in ls and "w1|Worker 1: blocking..." in ls,
            90,
        )
        # Read the shared variable from a client of the cluster, as any process could.
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            var = tf.Variable(0.0, name="var")
        with tf.Session(f"grpc://localhost:{ports[2]}", graph=g) as sess:
            assert sess.run(var) == 10.0
    assert "ps|Parameter server: cluster ready!" in lines
    for n in (0, 1):
        assert lines.count(f"w{n}|Worker {n}: incrementing var") == 5
        assert lines.index(f"w{n}|Worker {n}: cluster ready!") < lines.index(
            f"w{n}|Worker {n}: variables initialized"
        )
