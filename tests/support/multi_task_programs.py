"""One task's program each, for tests/integration/test_sessions_across_tasks.py to run in
spawned processes, written as a TF1 user writes them (they print what they are doing).

Differences from such a program, all mechanical: the cluster (free ports) and an output queue
are parameters, `print` goes through `say` (so the test sees every process's lines in the
order they happened), a few sleeps are parameters so tests stay short, and `while array:` is
`while len(array) > 0:` (numpy 2 has no truth value for an empty array).
"""

# Written as TF1 user programs are, %-formatting included.
# ruff: noqa: UP031

from __future__ import annotations

from multiprocessing.queues import Queue
from time import sleep
from typing import Any

import tfcluster as tf


def say(out: Queue[str], who: str, line: str) -> None:
    print(line, flush=True)
    out.put(f"{who}|{line}")


# ---- what happens if we run before all servers have connected? -----------------------------
def late_s1(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    server1 = tf.train.Server(cluster, job_name="local", task_index=0)
    sess1 = tf.Session(server1.target)
    say(out, "s1", "server 1: running no-op...")
    sess1.run(tf.no_op())
    say(out, "s1", "server 1: no-op run!")
    server1.join()  # Block


def late_s2(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    for i in range(3):
        say(out, "s2", "server 2: %d seconds left before connecting..." % (3 - i))
        sleep(1.0)
    server2 = tf.train.Server(cluster, job_name="local", task_index=1)
    say(out, "s2", "server 2: connected!")
    server2.join()  # Block


# ---- what happens if a server leaves the cluster? -------------------------------------------
def leaving_s1_own_task(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    server1 = tf.train.Server(cluster, job_name="local", task_index=0)

    with tf.device("/job:local/task:0"):
        no_op = tf.no_op()

    sess1 = tf.Session(server1.target)
    for _ in range(6):
        sess1.run(no_op)
        say(out, "s1", "Server 1: about to run no-op...success!")
        sleep(1.0)
    say(out, "s1", "done")


def leaving_s2(
    jobs: dict[str, list[str]], out: Queue[str], life: float = 2.0, after: Any = None
) -> None:
    """Serves for `life` seconds (counted from the `after` event when one is given: a loaded
    machine may take longer than `life` to start the other task's program)."""
    cluster = tf.train.ClusterSpec(jobs)
    tf.train.Server(cluster, job_name="local", task_index=1)
    say(out, "s2", "up")
    if after is not None:
        after.wait(60)
    sleep(life)
    say(out, "s2", "Server 2 dieing...")


def leaving_s1_other_task(
    jobs: dict[str, list[str]],
    out: Queue[str],
    timeout_ms: int = 0,
    runs: int = 5,
    first_run_done: Any = None,
) -> None:
    """The no-op is on server 2, which leaves; with a timeout the run fails within it.
    `first_run_done` (an event) is set after the first successful run."""
    cluster = tf.train.ClusterSpec(jobs)
    server1 = tf.train.Server(cluster, job_name="local", task_index=0)

    # This time, we place the no-op on server 2,
    # which is going to leave
    with tf.device("/job:local/task:1"):
        no_op = tf.no_op()

    config = tf.ConfigProto(operation_timeout_in_ms=timeout_ms) if timeout_ms else None
    sess1 = tf.Session(server1.target, config=config)
    import time

    for _ in range(runs):
        t0 = time.monotonic()
        try:
            sess1.run(no_op)
        except tf.errors.OpError as e:
            say(out, "s1", f"error {type(e).__name__} after {time.monotonic() - t0:.1f}s")
            sleep(1.0)
            continue
        say(out, "s1", "Server 1: about to run no-op...success!")
        if first_run_done is not None:
            first_run_done.set()
        sleep(1.0)
    say(out, "s1", "done")


# ---- who is responsible for initializing shared variables? ----------------------------------
def init_s1(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    server1 = tf.train.Server(cluster, job_name="local", task_index=0)
    var = tf.Variable(0.0, name="var")  # noqa: F841 - what report_uninitialized_variables reads
    sess1 = tf.Session(server1.target)

    say(out, "s1", "Server 1: waiting for connection...")
    sess1.run(tf.report_uninitialized_variables())
    while len(sess1.run(tf.report_uninitialized_variables())) > 0:
        say(out, "s1", "Server 1: waiting for initialization...")
        sleep(1.0)
    say(out, "s1", "Server 1: variables initialized!")
    server1.join()


def init_s2(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    server2 = tf.train.Server(cluster, job_name="local", task_index=1)
    var = tf.Variable(0.0, name="var")  # noqa: F841
    sess2 = tf.Session(server2.target)

    for i in range(3):
        say(out, "s2", "Server 2: waiting %d seconds before initializing..." % (3 - i))
        sleep(1.0)
    sess2.run(tf.global_variables_initializer())
    say(out, "s2", "Server 2: initialized")
    server2.join()


# ---- the final example: one parameter server, two workers -----------------------------------
def parameter_server(jobs: dict[str, list[str]], out: Queue[str]) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    with tf.device("/job:ps/task:0"):
        var = tf.Variable(0.0, name="var")

    server = tf.train.Server(cluster, job_name="ps", task_index=0)
    sess = tf.Session(target=server.target)

    say(out, "ps", "Parameter server: waiting for cluster connection...")
    sess.run(tf.report_uninitialized_variables())
    say(out, "ps", "Parameter server: cluster ready!")

    say(out, "ps", "Parameter server: initializing variables...")
    sess.run(tf.global_variables_initializer())
    say(out, "ps", "Parameter server: variables initialized")

    for _ in range(5):
        val = sess.run(var)
        say(out, "ps", "Parameter server: var has value %.1f" % val)
        sleep(1.0)

    say(out, "ps", "Parameter server: blocking...")
    server.join()


def worker(jobs: dict[str, list[str]], out: Queue[str], worker_n: int) -> None:
    cluster = tf.train.ClusterSpec(jobs)
    who = f"w{worker_n}"
    with tf.device("/job:ps/task:0"):
        var = tf.Variable(0.0, name="var")

    server = tf.train.Server(cluster, job_name="worker", task_index=worker_n)
    sess = tf.Session(target=server.target)

    say(out, who, "Worker %d: waiting for cluster connection..." % worker_n)
    sess.run(tf.report_uninitialized_variables())
    say(out, who, "Worker %d: cluster ready!" % worker_n)

    # A user would write `while sess.run(...)`: the truth value of an empty array, which numpy 2
    # (TensorFlow's numpy today, and ours) refuses; the len() form does the same.
    while len(sess.run(tf.report_uninitialized_variables())) > 0:
        say(out, who, "Worker %d: waiting for variable initialization..." % worker_n)
        sleep(1.0)
    say(out, who, "Worker %d: variables initialized" % worker_n)

    for _ in range(5):
        say(out, who, "Worker %d: incrementing var" % worker_n)
        sess.run(var.assign_add(1.0))
        sleep(1.0)

    say(out, who, "Worker %d: blocking..." % worker_n)
    server.join()


def run_in_processes(*targets: tuple[Any, tuple[Any, ...]]) -> list[Any]:
    """Starts each (function, args) in a spawned daemon process; returns the processes."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=fn, args=args, daemon=True) for fn, args in targets]
    for p in procs:
        p.start()
    return procs
