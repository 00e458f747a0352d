"""tf.train.Supervisor (TF 1.15): a Coordinator, a Saver and a SessionManager put together for
training programs, with its standard services as threads.

The chief initialises the model (or restores the latest checkpoint in logdir), writes the
graph (graph.pbtxt and the event file) and runs the services: summaries every
save_summaries_secs (SVSummaryThread), global steps per second as '<global_step>/sec'
(SVStepCounterThread) and a checkpoint every save_model_secs (SVTimerCheckpointThread). The
other replicas wait until the chief made the model ready (SessionManager.wait_for_session).
The graph is finalized once the Supervisor is made, as TensorFlow does.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tfcluster.framework import dtypes, meta_graph
from tfcluster.framework.graph import Graph, GraphKeys, get_default_graph
from tfcluster.ops import lookup_ops, summary_ops
from tfcluster.ops.control_flow_ops import group
from tfcluster.ops.variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from tfcluster.training import coordinator, training_util
from tfcluster.training.saver import Saver
from tfcluster.training.session_manager import SessionManager
from tfcluster.training.summary_io import FileWriter, SessionLog, Summary

_log = logging.getLogger("tensorflow")


class Supervisor:
    """A training helper that checkpoints models and computes summaries (deprecated in TF
    1.15 in favour of MonitoredTrainingSession, and still what many programs use)."""

    # TensorFlow's marker for "build the default" (a falsy int, as in TF).
    USE_DEFAULT = 0

    def __init__(
        self,
        graph: Graph | None = None,
        ready_op: Any = USE_DEFAULT,
        ready_for_local_init_op: Any = USE_DEFAULT,
        is_chief: bool = True,
        init_op: Any = USE_DEFAULT,
        init_feed_dict: Any = None,
        local_init_op: Any = USE_DEFAULT,
        logdir: str | None = None,
        summary_op: Any = USE_DEFAULT,
        saver: Any = USE_DEFAULT,
        global_step: Any = USE_DEFAULT,
        save_summaries_secs: float = 120,
        save_model_secs: float = 600,
        recovery_wait_secs: float = 30,
        stop_grace_secs: float = 120,
        checkpoint_basename: str = "model.ckpt",
        session_manager: SessionManager | None = None,
        summary_writer: Any = USE_DEFAULT,
        init_fn: Callable[[Any], None] | None = None,
        local_init_run_options: Any = None,
    ) -> None:
        graph = graph if graph is not None else get_default_graph()
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
        self._graph = graph
        self._meta_graph_def = meta_graph.create_meta_graph_def(
            graph_def=graph.as_graph_def(add_shapes=True),
            saver_def=self._saver.saver_def if self._saver else None,
            graph=graph,
        )
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options

        # Only a chief writes: logdir, summaries and checkpoints are its alone.
        self._logdir: str | None = None
        self._save_summaries_secs: float | None = None
        self._save_model_secs: float | None = None
        self._save_path: str | None = None
        self._summary_writer: Any = None
        self._graph_added_to_summary = False
        if is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if logdir:
                self._save_path = os.path.join(logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if logdir:
                    self._summary_writer = FileWriter(logdir)
            else:
                self._summary_writer = summary_writer

        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op,
            ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op,
            graph=graph,
            recovery_wait_secs=recovery_wait_secs,
            local_init_run_options=local_init_run_options,
        )
        self._verify_setup()
        graph.finalize()

    # ---- the pieces, from the arguments or the graph's collections ----------------------
    @staticmethod
    def _first_in_collection(key: str) -> Any:
        items = get_default_graph().get_collection(key)
        if len(items) > 1:
            _log.info("Found %d %s operations. Returning the first one.", len(items), key)
        return items[0] if items else None

    def _init_ready_op(self, ready_op: Any, ready_for_local_init_op: Any) -> None:
        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._first_in_collection(GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = report_uninitialized_variables()
                get_default_graph().add_to_collection(GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first_in_collection(GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op: Any, init_feed_dict: Any) -> None:
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._first_in_collection(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = global_variables_initializer()
                get_default_graph().add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op: Any) -> None:
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._first_in_collection(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                local_init_op = group(
                    local_variables_initializer(), lookup_ops.tables_initializer()
                )
                get_default_graph().add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver: Any) -> None:
        if saver is Supervisor.USE_DEFAULT:
            saver = self._first_in_collection(GraphKeys.SAVERS)
            if saver is None and global_variables():
                saver = Saver()
                get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op: Any) -> None:
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._first_in_collection(GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = summary_ops.merge_all()
                if summary_op is not None:
                    get_default_graph().add_to_collection(GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op

    def _init_global_step(self, global_step: Any) -> None:
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first_in_collection(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    get_default_graph().add_to_collection(GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    @staticmethod
    def _default_global_step_tensor() -> Any:
        """The graph's 'global_step:0' when it is an integer tensor, else None."""
        try:
            step = get_default_graph().get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if step.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return step
        _log.warning("Found 'global_step' is not an int type: %s", step.dtype)
        return None

    def _verify_setup(self) -> None:
        """Replicas share the variables: each must be placed (on a ps) explicitly."""
        if self._is_chief:
            return
        for op in self._graph.get_operations():
            if op.type in ("Variable", "VariableV2") and not op.device:
                raise ValueError(
                    f"When using replicas, all Variables must have their device set: {op}"
                )

    # ---- properties --------------------------------------------------------------------
    @property
    def is_chief(self) -> bool:
        return self._is_chief

    @property
    def session_manager(self) -> SessionManager:
        return self._session_manager

    @property
    def coord(self) -> coordinator.Coordinator:
        return self._coord

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def init_feed_dict(self) -> Any:
        return self._init_feed_dict

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def summary_writer(self) -> Any:
        return self._summary_writer

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def save_summaries_secs(self) -> float | None:
        return self._save_summaries_secs

    @property
    def global_step(self) -> Any:
        return self._global_step

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def save_model_secs(self) -> float | None:
        return self._save_model_secs

    @property
    def save_path(self) -> str | None:
        return self._save_path

    # ---- sessions ----------------------------------------------------------------------
    def _write_graph(self) -> None:
        """graph.pbtxt in logdir, and the graph and MetaGraph in the event file (once)."""
        if self._logdir:
            training_util.write_graph(
                self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt"
            )
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess: Any) -> list[threading.Thread] | None:
        """Starts the summary, step-counter and checkpoint threads (as configured)."""
        if not self._is_chief:
            raise RuntimeError(
                "Only chief supervisor can start standard services. Because only chief "
                "supervisors can write events."
            )
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), current_step)
        threads: list[threading.Thread] = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(
        self,
        master: str = "",
        config: Any = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        start_standard_services: bool = True,
    ) -> Any:
        """A session whose model is ready: the chief restores the latest checkpoint in logdir
        or runs the init op; other replicas wait for the chief."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master,
                init_op=self.init_op,
                saver=self.saver,
                checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(
                master, config=config, max_wait_secs=max_wait_secs
            )
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(
        self, sess: Any, queue_runners: Sequence[Any] | None = None
    ) -> list[threading.Thread]:
        """Threads for the QUEUE_RUNNERS collection's queue runners (or those given)."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads: list[threading.Thread] = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(
        self,
        timer_interval_secs: float | None,
        target: Callable[..., Any],
        args: Sequence[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> coordinator.LooperThread:
        """Starts a thread calling target every timer_interval_secs until a stop."""
        return coordinator.LooperThread.loop(
            self._coord, timer_interval_secs, target, args=args, kwargs=kwargs
        )

    def stop(
        self,
        threads: Sequence[threading.Thread] | None = None,
        close_summary_writer: bool = True,
        ignore_live_threads: bool = False,
    ) -> None:
        """Stops the services and joins the threads (re-raising what one of them raised);
        the session stays open."""
        self._coord.request_stop()
        try:
            self._coord.join(
                threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex: Any = None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self) -> Any:
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess: Any, summary: Any, global_step: Any = None) -> None:
        """Writes a summary the program computed, at the current global step by default."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(
        self,
        master: str = "",
        config: Any = None,
        start_standard_services: bool = True,
        close_summary_writer: bool = True,
    ) -> Iterator[Any]:
        """A ready session for a `with` block. On leaving it the services stop and the
        session closes; an exception from the block or a service is raised again then,
        except OutOfRangeError (inputs exhausted: a normal end)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services
            )
            yield sess
        except Exception as e:
            # Kept by the coordinator, which re-raises it from join() unless it is a clean stop.
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()

    # TF1's CamelCase spellings.
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(coordinator.LooperThread):
    """Runs the summary op every save_summaries_secs and writes the result."""

    def __init__(self, sv: Supervisor, sess: Any) -> None:
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary, global_step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, global_step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary, global_step)


class SVStepCounterThread(coordinator.LooperThread):
    """Writes the global steps per second as '<step counter op>/sec' every
    save_summaries_secs."""

    def __init__(self, sv: Supervisor, sess: Any, step_counter: Any = None) -> None:
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"
        self._logged = 0

    def start_loop(self) -> None:
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self) -> None:
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        now = time.time()
        elapsed = now - self._last_time
        self._last_time = now
        steps_per_sec = added_steps / elapsed if elapsed > 0.0 else float("inf")
        summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)
        if self._logged < 10:  # TF logs the first ten
            self._logged += 1
            _log.info("%s: %g", self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every save_model_secs."""

    def __init__(self, sv: Supervisor, sess: Any) -> None:
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                current_step,
            )


__all__ = ["SVStepCounterThread", "SVSummaryThread", "SVTimerCheckpointThread", "Supervisor"]
