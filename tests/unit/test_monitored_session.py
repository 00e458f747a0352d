"""MonitoredSession / MonitoredTrainingSession, hooks, SessionManager, recovery (in process)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.client import master_client
from tfcluster.distributed.local import new_local_master
from tfcluster.ops.data_flow_ops import FIFOQueue

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


@pytest.fixture
def shared_target() -> Iterator[str]:
    """A target whose sessions all reach one in-process master (one task, shared variables)."""
    master = new_local_master()
    master_client.register_target_scheme(
        "inproc", lambda target, config: master_client.InProcessMasterClient(master)
    )
    yield "inproc://shared"
    master.close()


def _linear_model() -> tuple[Any, Any, Any, Any]:
    """y = 3x + 1 fitted by SGD; returns (x, y, loss, train_op)."""
    gs = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    w = tf.Variable(0.0, name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return x, y, loss, train


def _batch(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    xs = rng.uniform(-1, 1, 32).astype(np.float32)
    return xs, 3 * xs + 1


class RecordingHook(tf.train.SessionRunHook):
    def __init__(self, fetch: Any = None) -> None:
        self.calls: list[str] = []
        self.results: list[Any] = []
        self.fetch = fetch

    def begin(self) -> None:
        self.calls.append("begin")

    def after_create_session(self, session: Any, coord: Any) -> None:
        self.calls.append("after_create_session")

    def before_run(self, run_context: tf.train.SessionRunContext) -> Any:
        self.calls.append("before_run")
        return tf.train.SessionRunArgs(self.fetch) if self.fetch is not None else None

    def after_run(self, run_context: Any, run_values: tf.train.SessionRunValues) -> None:
        self.calls.append("after_run")
        self.results.append(run_values.results)

    def end(self, session: Any) -> None:
        self.calls.append("end")


def test_training_session_checkpoints_summaries_and_resumes(tmp_path: os.PathLike) -> None:
    ckpt_dir = str(tmp_path)
    rng = np.random.default_rng(0)
    x, y, loss, train = _linear_model()
    hook = RecordingHook(fetch=loss)
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=ckpt_dir,
        hooks=[tf.train.StopAtStepHook(last_step=60), hook],
        save_summaries_steps=10,
        save_checkpoint_steps=25,
        log_step_count_steps=20,
    ) as sess:
        assert tf.get_default_graph().finalized
        steps = 0
        while not sess.should_stop():
            xs, ys = _batch(rng)
            sess.run(train, {x: xs, y: ys})
            steps += 1
    assert steps == 60
    assert not tf.get_default_graph().finalized
    assert hook.calls[:2] == ["begin", "after_create_session"]
    assert hook.calls[-1] == "end" and hook.calls.count("after_run") == 60
    assert hook.results[-1] < 0.05 < hook.results[0]
    latest = tf.train.latest_checkpoint(ckpt_dir)
    assert latest == os.path.join(ckpt_dir, "model.ckpt-60")
    assert tf.train.load_variable(latest, "global_step") == 60
    assert os.path.exists(os.path.join(ckpt_dir, "graph.pbtxt"))
    tf.summary.FileWriterCache.clear()
    acc = event_accumulator.EventAccumulator(ckpt_dir, size_guidance={"scalars": 0})
    acc.Reload()
    loss_steps = [e.step for e in acc.Scalars("loss")]
    assert loss_steps[0] == 1 and 51 in loss_steps and len(loss_steps) == 6
    assert "global_step/sec" in acc.Tags()["scalars"]

    # A new program with the same checkpoint_dir resumes where the first one stopped.
    tf.reset_default_graph()
    x, y, loss, train = _linear_model()
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=ckpt_dir, hooks=[tf.train.StopAtStepHook(num_steps=5)]
    ) as sess:
        # The summary hook asks for the summary op on the first run: it needs the feeds too.
        xs, ys = _batch(rng)
        first = sess.run(tf.train.get_global_step(), {x: xs, y: ys})
        while not sess.should_stop():
            xs, ys = _batch(rng)
            sess.run(train, {x: xs, y: ys})
    assert first == 60
    # The end-of-session checkpoint records where the second program stopped.
    assert tf.train.latest_checkpoint(ckpt_dir) == os.path.join(ckpt_dir, "model.ckpt-65")


def test_recovers_from_aborted_by_restoring_the_checkpoint(tmp_path: os.PathLike) -> None:
    ckpt_dir = str(tmp_path)
    x, y, _loss, train = _linear_model()
    gs = tf.train.get_global_step()
    hook = RecordingHook()
    rng = np.random.default_rng(1)
    sess = tf.train.MonitoredTrainingSession(
        checkpoint_dir=ckpt_dir,
        hooks=[tf.train.StopAtStepHook(last_step=40), hook],
        save_checkpoint_steps=10,
        save_summaries_steps=None,
        save_summaries_secs=None,
    )
    with sess:
        while not sess.should_stop():
            xs, ys = _batch(rng)
            step = sess.run(gs)
            if step == 23 and hook.calls.count("after_create_session") == 1:
                # The master forgets the session (as after a restart): the next step fails
                # with AbortedError and a fresh engine (all variables lost) takes over.
                raw = sess._coordinated_creator.tf_sess
                raw._master.close_session(raw._handle)
            sess.run(train, {x: xs, y: ys})
            if hook.calls.count("after_create_session") == 2:
                break
        # The new session restored the last checkpoint (step 20), not a fresh init (0).
        assert sess.run(gs) == 20 + 1
    assert hook.calls.count("after_create_session") == 2


def test_worker_waits_for_the_chief(shared_target: str, tmp_path: os.PathLike) -> None:
    _x, _y, _loss, _train = _linear_model()
    set7 = tf.train.get_global_step().assign(7)
    made: dict[str, Any] = {}

    def worker() -> None:
        creator = tf.train.WorkerSessionCreator(
            master=shared_target, max_wait_secs=30, recovery_wait_secs=0.1
        )
        made["t0"] = time.monotonic()
        made["sess"] = creator.create_session()
        made["t1"] = time.monotonic()

    t = threading.Thread(target=worker)
    t.start()
    time.sleep(0.5)
    assert t.is_alive(), "the worker must wait while the model is uninitialized"
    chief = tf.train.ChiefSessionCreator(master=shared_target, checkpoint_dir=str(tmp_path))
    chief_sess = chief.create_session()
    t.join(10)
    assert not t.is_alive() and made["t1"] - made["t0"] >= 0.5
    # Both sessions see the same variables on the shared task.
    chief_sess.run(set7)
    assert made["sess"].run(tf.train.get_global_step()) == 7
    made["sess"].close()
    chief_sess.close()
    tf.get_default_graph()._unsafe_unfinalize()


def test_worker_gives_up_after_max_wait_secs(shared_target: str) -> None:
    tf.Variable(1.0, name="never_initialized")
    creator = tf.train.WorkerSessionCreator(
        master=shared_target, max_wait_secs=0.3, recovery_wait_secs=0.1
    )
    with pytest.raises(tf.errors.DeadlineExceededError, match="not ready"):
        creator.create_session()
    tf.get_default_graph()._unsafe_unfinalize()


def test_session_manager_prepare_and_errors(tmp_path: os.PathLike) -> None:
    v = tf.Variable(2.0, name="v")
    ready = tf.report_uninitialized_variables()
    sm = tf.train.SessionManager(ready_op=ready)
    with pytest.raises(RuntimeError, match="no init_op"):
        sm.prepare_session("")
    sess = sm.prepare_session("", init_op=tf.global_variables_initializer())
    assert sess.run(v) == 2.0
    sess.close()
    with pytest.raises(RuntimeError, match="did not make model ready"):
        sm.prepare_session("", init_op=tf.no_op())
    with pytest.raises(ValueError, match="must also pass a local_init_op"):
        tf.train.SessionManager(ready_for_local_init_op=ready)


def test_hooks_fetch_feed_and_stop() -> None:
    a = tf.placeholder(tf.float32, [])
    b = tf.placeholder(tf.float32, [])
    total = a + b

    class FeedB(tf.train.SessionRunHook):
        def before_run(self, run_context: Any) -> Any:
            return tf.train.SessionRunArgs(fetches={"t": total}, feed_dict={b: 10.0})

        def after_run(self, run_context: Any, run_values: Any) -> None:
            if run_values.results["t"] > 12:
                run_context.request_stop()

    with tf.train.MonitoredSession(hooks=[FeedB()]) as sess:
        assert sess.run(total, {a: 1.0}) == 11.0
        assert not sess.should_stop()
        assert sess.run(total, {a: 5.0}) == 15.0
        assert sess.should_stop()
        with pytest.raises(RuntimeError, match="should_stop requested"):
            sess.run(total, {a: 1.0})

    class AlsoFeedsB(tf.train.SessionRunHook):
        def before_run(self, run_context: Any) -> Any:
            return tf.train.SessionRunArgs(None, feed_dict={b: 1.0})

    with (
        tf.train.MonitoredSession(hooks=[AlsoFeedsB()]) as sess,
        pytest.raises(RuntimeError, match="fed by a SessionRunHook and user"),
    ):
        sess.run(total, {a: 1.0, b: 2.0})


def test_nan_hook_logging_hook_and_final_ops(caplog: pytest.LogCaptureFixture) -> None:
    x = tf.placeholder(tf.float32, [])
    loss = tf.sqrt(x)
    logging_hook = tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=2)
    final = tf.train.FinalOpsHook(loss * 2, final_ops_feed_dict={x: 16.0})
    with (
        caplog.at_level(logging.INFO, logger="tensorflow"),
        tf.train.MonitoredSession(hooks=[logging_hook, final]) as sess,
    ):
        for v in (4.0, 9.0, 16.0):
            sess.run(loss, {x: v})
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss =")]
    assert logged[0] == "loss = 2.0"
    assert logged[1].startswith("loss = 4.0 (")
    assert final.final_ops_values == 8.0

    nan_hook = tf.train.NanTensorHook(loss)
    with (
        pytest.raises(tf.train.NanLossDuringTrainingError, match="NaN loss"),
        tf.train.MonitoredSession(hooks=[nan_hook]) as sess,
    ):
        sess.run(loss, {x: -1.0})
    stop_hook = tf.train.NanTensorHook(loss, fail_on_nan_loss=False)
    with tf.train.MonitoredSession(hooks=[stop_hook]) as sess:
        sess.run(loss, {x: -1.0})
        assert sess.should_stop()


def test_hook_argument_errors() -> None:
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of"):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)
    with pytest.raises(ValueError, match="exactly one of every_n_steps"):
        tf.train.StepCounterHook(every_n_steps=None)
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="both saver and scaffold"):
        tf.train.CheckpointSaverHook("/tmp/x", save_steps=1, saver=1, scaffold=tf.train.Scaffold())
    with pytest.raises(RuntimeError, match="Global step should be created"):
        tf.train.StopAtStepHook(last_step=3).begin()


def test_second_or_step_timer() -> None:
    t = tf.train.SecondOrStepTimer(every_steps=10)
    assert t.should_trigger_for_step(0)
    assert t.update_last_triggered_step(0) == (None, None)
    assert not t.should_trigger_for_step(9) and t.should_trigger_for_step(10)
    _, steps = t.update_last_triggered_step(12)
    assert steps == 12 and t.last_triggered_step() == 12
    s = tf.train.SecondOrStepTimer(every_secs=0.05)
    s.update_last_triggered_step(1)
    assert not s.should_trigger_for_step(2)
    time.sleep(0.06)
    assert s.should_trigger_for_step(2)


def test_queue_runner_feeds_until_out_of_range() -> None:
    q = FIFOQueue(4, tf.int32, shapes=[[]])
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    enq = q.enqueue(bump)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enq]))
    total = tf.Variable(0, name="total")
    take = tf.assign_add(total, q.dequeue())
    stop_at = 10
    with tf.train.MonitoredSession(
        session_creator=tf.train.ChiefSessionCreator(), stop_grace_period_secs=5
    ) as sess:
        got = [sess.run(take) for _ in range(stop_at)]
    assert got == [sum(range(1, k + 2)) for k in range(stop_at)]


def test_scaffold_collections_and_init_fn() -> None:
    v = tf.Variable(1.0, name="v")
    called: list[Any] = []
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: called.append(sess.run(v)))
    with tf.train.MonitoredSession(
        session_creator=tf.train.ChiefSessionCreator(scaffold=scaffold)
    ) as sess:
        assert sess.run(v) == 1.0
    assert called == [1.0]
    assert tf.get_collection(tf.GraphKeys.INIT_OP) == [scaffold.init_op]
    assert scaffold.saver is tf.get_collection(tf.GraphKeys.SAVERS)[0]
    tf.add_to_collection(tf.GraphKeys.READY_OP, tf.constant([], tf.string))
    with pytest.raises(RuntimeError, match="More than one item"):
        tf.train.Scaffold().finalize()
    tf.get_default_graph()._unsafe_unfinalize()


def test_out_of_range_ends_the_session_cleanly() -> None:
    q = FIFOQueue(3, tf.int32, shapes=[[]])
    fill = q.enqueue_many([[1, 2]])
    close = q.close()
    deq = q.dequeue()
    seen = []
    with tf.train.MonitoredSession() as sess:
        sess.run([fill])
        sess.run(close)
        while not sess.should_stop():
            seen.append(sess.run(deq))
    assert seen == [1, 2]
