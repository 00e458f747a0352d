"""Cluster lifecycle: waiting for tasks, tasks dying and restarting, masters restarting, the
health service while stopping."""

from __future__ import annotations

import threading
import time

import pytest
import tfcluster as tf
from grpc_health.v1 import health_pb2
from support.cluster_processes import Cluster, TaskProcess, cluster_flag, free_ports, health_status

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _restart(cluster: Cluster, task: TaskProcess) -> TaskProcess:
    flag = task.proc.args[3].split("=", 1)[1]  # --cluster_spec=...
    again = TaskProcess(flag, task.job, task.index, task.port)
    cluster.add(again)
    return again.wait_serving()


def test_first_run_waits_at_most_the_operation_timeout() -> None:
    p0, p1 = free_ports(2)
    jobs = {"local": [f"localhost:{p0}", f"localhost:{p1}"]}
    server = tf.train.Server(jobs, job_name="local", task_index=0)  # task 1 never starts
    try:
        config = tf.ConfigProto(operation_timeout_in_ms=1500)
        with tf.device("/job:local/task:0"):
            c = tf.constant(1.0)
        sess = tf.Session(server.target, config=config)
        t0 = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match=r"task:1 .* to answer"):
            sess.run(c)
        assert 1.4 < time.monotonic() - t0 < 4.0
        # RunOptions.timeout_in_ms bounds it too, for a session without a config.
        sess2 = tf.Session(server.target)
        t0 = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess2.run(c, options=tf.RunOptions(timeout_in_ms=500))
        assert time.monotonic() - t0 < 3.0
    finally:
        server.stop()


def test_dead_task_live_task_and_restart_with_multi_partition_steps(cluster: Cluster) -> None:
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]})
    with tf.device("/job:local/task:1"):
        v = tf.Variable(2.0, name="v")
        on_1 = v * 10.0
    with tf.device("/job:local/task:0"):
        on_0 = tf.constant(3.0) + 1.0
        across = on_1 + on_0  # a step with partitions on both tasks
    config = tf.ConfigProto(operation_timeout_in_ms=1500)
    sess = tf.Session(f"grpc://localhost:{p0}", config=config)
    # The short timeout is for the dead task; steps that set up sessions on live tasks may
    # take longer than that on a loaded machine.
    setup = tf.RunOptions(timeout_in_ms=60000)
    sess.run(v.initializer, options=setup)
    assert sess.run(across, options=setup) == 24.0

    cluster.task("local", 1).kill()
    t0 = time.monotonic()
    with pytest.raises((tf.errors.UnavailableError, tf.errors.DeadlineExceededError)):
        sess.run(across)
    assert time.monotonic() - t0 < 1.5 + 1.5
    assert sess.run(on_0) == 4.0  # the live task still works, in this session...
    fresh = tf.Session(f"grpc://localhost:{p0}", config=config)
    assert fresh.run(on_0) == 4.0  # ...and in a new one, which does not wait for the dead task

    _restart(cluster, cluster.task("local", 1))
    # The restarted task lost its graphs and its variable. A step with several partitions may
    # have run partly, so it fails once (AbortedError) and registers its graphs again.
    with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found"):
        sess.run(across, options=setup)
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
        sess.run(across, options=setup)
    sess.run(v.initializer, options=setup)
    assert sess.run(across, options=setup) == 24.0
    # A one-partition step is simply registered again and run.
    assert sess.run(on_1, options=setup) == 20.0


def test_one_partition_step_survives_a_restart_transparently(cluster: Cluster) -> None:
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]})
    with tf.device("/job:local/task:1"):
        c = tf.constant([1, 2, 3]) * 2
    sess = tf.Session(f"grpc://localhost:{p0}")
    assert sess.run(c).tolist() == [2, 4, 6]
    cluster.task("local", 1).kill()
    _restart(cluster, cluster.task("local", 1))
    assert sess.run(c).tolist() == [2, 4, 6]


def test_steps_that_need_what_a_restarted_task_lost_abort_once(cluster: Cluster) -> None:
    """A restarted ps lost its variables: the first step that finds them gone fails with
    AbortedError (MonitoredSession's cue for a new session that waits for the chief), not
    FailedPreconditionError, whether its graphs were registered before the restart (a
    one-partition step, run again) or first after it (a new step); later steps see the
    plain error."""
    p0, p1 = free_ports(2)
    cluster.start({"local": [p0, p1]})
    with tf.device("/job:local/task:1"):
        v = tf.Variable(2.0, name="v")
        read = v * 10.0
        other_read = v + 1.0
    with tf.device("/job:local/task:0"):
        across = v * 3.0  # a step with partitions on both tasks, first run after the restart
    setup = tf.RunOptions(timeout_in_ms=60000)
    sess = tf.Session(f"grpc://localhost:{p0}")
    sess.run(v.initializer, options=setup)
    assert sess.run(read, options=setup) == 20.0

    cluster.task("local", 1).kill()
    _restart(cluster, cluster.task("local", 1))
    # Registered before: found missing, registered again, run once more: the variable is gone.
    with pytest.raises(tf.errors.AbortedError, match="restarted since this session") as e:
        sess.run(read, options=setup)
    assert "uninitialized value v" in str(e.value)
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
        sess.run(read, options=setup)

    cluster.task("local", 1).kill()
    _restart(cluster, cluster.task("local", 1))
    # First registered after the restart: the new incarnation is noticed when registering.
    with pytest.raises(tf.errors.AbortedError, match="restarted since this session"):
        sess.run(across, options=setup)
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
        sess.run(other_read, options=setup)
    sess.run(v.initializer, options=setup)
    assert sess.run([read, other_read, across], options=setup) == [20.0, 3.0, 6.0]


def test_a_restarted_master_aborts_old_sessions(cluster: Cluster) -> None:
    (p0,) = free_ports(1)
    cluster.start({"local": [p0]})
    c = tf.constant(5)
    sess = tf.Session(f"grpc://localhost:{p0}")
    assert sess.run(c) == 5
    cluster.task("local", 0).kill()
    with pytest.raises(tf.errors.UnavailableError):
        sess.run(c)
    _restart(cluster, cluster.task("local", 0))
    with pytest.raises(tf.errors.AbortedError, match="not found"):
        sess.run(c)
    assert tf.Session(f"grpc://localhost:{p0}").run(c) == 5


def test_health_is_not_serving_while_stopping_and_stop_is_clean() -> None:
    (port,) = free_ports(1)
    server = tf.train.Server({"local": [f"localhost:{port}"]})
    assert health_status(port) == health_pb2.HealthCheckResponse.SERVING
    with tf.Session(server.target, config=_rpc_config()) as sess:
        assert sess.run(tf.constant(1)) == 1  # a long-lived call is open now
    stopper = threading.Thread(target=server.stop, kwargs={"grace": 1.0, "drain": 1.0})
    t0 = time.monotonic()
    stopper.start()
    seen = set()
    while stopper.is_alive():
        seen.add(health_status(port, timeout=0.3))
        time.sleep(0.05)
    stopper.join()
    assert health_pb2.HealthCheckResponse.NOT_SERVING in seen
    assert time.monotonic() - t0 < 1.0 + 1.0 + 2.0
    assert health_status(port) is None  # gone
    assert server.join(timeout=0)  # join returns once stopped
    server.stop()  # idempotent
    # The port is free again: a new server can take it.
    again = tf.train.Server({"local": [f"localhost:{port}"]})
    again.stop()


def test_several_servers_in_one_process_and_the_cli_flag_syntax() -> None:
    p = free_ports(3)
    jobs = {"worker": [f"localhost:{p[0]}", f"localhost:{p[1]}"], "ps": [f"localhost:{p[2]}"]}
    assert cluster_flag({"worker": p[:2], "ps": p[2:]}) == (
        f"worker|localhost:{p[0]};localhost:{p[1]},ps|localhost:{p[2]}"
    )
    servers = [
        tf.train.Server(jobs, job_name=job, task_index=i)
        for job, n in (("worker", 2), ("ps", 1))
        for i in range(n)
    ]
    try:
        assert [s.target for s in servers] == [f"grpc://localhost:{x}" for x in p]
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:1"):
            w = v + 1.0
        sessions = [tf.Session(s.target) for s in servers]
        sessions[0].run(v.initializer)
        assert [s.run(w) for s in sessions] == [2.0, 2.0, 2.0]
    finally:
        for s in servers:
            s.stop()


def test_create_local_server() -> None:
    server = tf.train.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://localhost:")
        assert server.server_def.job_name == "local"  # as TF 1.15 names it
        with tf.Session(server.target, config=_rpc_config()) as sess:
            assert sess.run(tf.constant("x")) == b"x"
    finally:
        server.stop()


def _rpc_config() -> tf.ConfigProto:
    """Go through gRPC even though the server is in this process."""
    config = tf.ConfigProto()
    config.rpc_options.use_rpc_for_inprocess_master = True
    return config


def test_a_step_waiting_on_a_stopping_task_fails_as_unavailable() -> None:
    """A ps stopped gracefully (SIGTERM, a pod deleted) while a worker's step waits on it: the
    step fails with UnavailableError, as when a task dies, which MonitoredSession recovers from
    (never CancelledError, which it would not: the client would stop)."""
    ps_port, worker_port = free_ports(2)
    jobs = {"ps": [f"localhost:{ps_port}"], "worker": [f"localhost:{worker_port}"]}
    ps = tf.train.Server(jobs, job_name="ps", task_index=0)
    worker = tf.train.Server(jobs, job_name="worker", task_index=0)
    try:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                queue = tf.FIFOQueue(1, tf.float32, shapes=[[]])
                waits = queue.dequeue()
            with tf.device("/job:worker/task:0"):
                out = waits * 2.0
        errors: list[BaseException] = []

        def run() -> None:
            with tf.Session(worker.target, graph=g) as sess:
                try:
                    sess.run(out)
                except tf.errors.OpError as err:
                    errors.append(err)

        runner = threading.Thread(target=run)
        runner.start()
        time.sleep(1.0)  # the dequeue waits on the ps
        ps.stop(grace=0.5)
        runner.join(30)
        assert not runner.is_alive()
        assert len(errors) == 1 and isinstance(errors[0], tf.errors.UnavailableError), errors
    finally:
        worker.stop()
        ps.stop()
