"""MonitoredSession and MonitoredTrainingSession (TF1's monitored_session.py).

A MonitoredSession creates its tf.Session through a SessionCreator (the chief initialises or
restores the model, the other workers wait until it is ready), runs hooks around every
run(), and, when a step fails with AbortedError or UnavailableError (a ps or worker died and
came back, the master lost the session), closes the session and creates a new one: the chief
restores the latest checkpoint, the hooks see after_create_session again, and the user's
`while not sess.should_stop(): sess.run(train_op)` loop goes on without noticing.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from tfcluster.framework import errors, internal_deprecations
from tfcluster.framework.graph import GraphKeys, get_collection, get_default_graph
from tfcluster.ops import array_ops, lookup_ops, resources, summary_ops
from tfcluster.ops.control_flow_ops import group
from tfcluster.ops.variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from tfcluster.protos import config_pb2
from tfcluster.training import basic_session_run_hooks as hooks_lib
from tfcluster.training import distribute_coordinator_context
from tfcluster.training.coordinator import Coordinator
from tfcluster.training.queue_runner import start_queue_runners
from tfcluster.training.saver import _get_saver_or_default
from tfcluster.training.session_manager import SessionManager
from tfcluster.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

_log = logging.getLogger("tensorflow")

# Errors after which a new session is made: a task restarted or the master lost the session.
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

USE_DEFAULT = object()
_MAX_RETRY_DELAY_SECS = 1.0


class Scaffold:
    """The pieces a training session needs (init/ready ops, saver, summary op), with defaults
    taken from the graph's collections or built on finalize()."""

    def __init__(
        self,
        init_op: Any = None,
        init_feed_dict: Any = None,
        init_fn: Callable[[Scaffold, Any], None] | None = None,
        ready_op: Any = None,
        ready_for_local_init_op: Any = None,
        local_init_op: Any = None,
        summary_op: Any = None,
        saver: Any = None,
        copy_from_scaffold: Scaffold | None = None,
    ) -> None:
        self._user_init_fn: Any = None
        self._init_feed_dict: Any = None
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op if init_op is not None else c.init_op
            init_feed_dict = init_feed_dict if init_feed_dict is not None else c._init_feed_dict
            init_fn = init_fn if init_fn is not None else c._user_init_fn
            ready_op = ready_op if ready_op is not None else c.ready_op
            ready_for_local_init_op = (
                ready_for_local_init_op
                if ready_for_local_init_op is not None
                else c.ready_for_local_init_op
            )
            local_init_op = local_init_op if local_init_op is not None else c.local_init_op
            summary_op = summary_op if summary_op is not None else c.summary_op
            saver = saver if saver is not None else c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        """Fills in the missing pieces, then finalizes the graph (no more ops may be added)."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP, _default_init_op)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, _default_ready_op
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                GraphKeys.READY_FOR_LOCAL_INIT_OP,
                _default_ready_for_local_init_op,
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", GraphKeys.SUMMARY_OP, summary_ops.merge_all
            )
        if self._saver is None:
            self._saver = _get_saver_or_default()
        if self._saver is not None:
            self._saver.build()
        get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self

    @property
    def init_fn(self) -> Any:
        return self._init_fn

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> Any:
        return self._local_init_op

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def init_feed_dict(self) -> Any:
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor: Any) -> Any:
        elements = get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                # TF 1.15's arguments, as it passes them (the message is the tuple's text).
                raise RuntimeError(
                    'More than one item in the collection "%s". Please indicate which one to '
                    "use by passing it to the tf.Scaffold constructor as:  "
                    "tf.Scaffold(%s=item to use)",
                    collection_key,
                    arg_name,
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            get_default_graph().add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Any:
        """Local variables, tables and local resources, initialised together."""
        return group(
            local_variables_initializer(),
            lookup_ops.tables_initializer(),
            resources.initialize_resources(resources.local_resources()),
        )


def _default_init_op() -> Any:
    return group(
        global_variables_initializer(),
        resources.initialize_resources(resources.shared_resources()),
    )


def _default_ready_op() -> Any:
    return array_ops.concat(
        [report_uninitialized_variables(), resources.report_uninitialized_resources()], 0
    )


def _default_ready_for_local_init_op() -> Any:
    return array_ops.concat(
        [
            report_uninitialized_variables(global_variables()),
            resources.report_uninitialized_resources(resources.shared_resources()),
        ],
        0,
    )


class SessionCreator:
    def create_session(self) -> Any:
        raise NotImplementedError("SessionCreator subclasses implement create_session")


class ChiefSessionCreator(SessionCreator):
    """Restores the latest checkpoint from checkpoint_dir, or runs the init op."""

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph(),
            )
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn,
        )


class WorkerSessionCreator(SessionCreator):
    """Waits until the chief made the model ready (polling every recovery_wait_secs)."""

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        max_wait_secs: float = 30 * 60,
        *,  # tfcluster's own, beyond TF 1.15's signature
        recovery_wait_secs: float = 1.0,
    ) -> None:
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs
        # TF polls every 30 s; a second keeps workers close behind the chief on a laptop.
        self._recovery_wait_secs = recovery_wait_secs

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph(),
                recovery_wait_secs=self._recovery_wait_secs,
            )
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs
        )


# ---- the session wrappers ----------------------------------------------------------------


class _WrappedSession:
    def __init__(self, sess: Any) -> None:
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self) -> Any:
        return self._sess.graph

    @property
    def sess_str(self) -> Any:
        return self._sess.sess_str

    def _check_stop(self) -> bool:
        return False

    def should_stop(self) -> bool:
        if self._check_stop():
            return True
        if self._sess is not None:
            return bool(self._wrapped_is_stoppable and self._sess.should_stop())
        return True

    def close(self) -> None:
        if self._sess is not None:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.warning("An error occurred when attempting to close the session: %s", e)
            finally:
                self._sess = None

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._sess.run(*args, **kwargs)

    def run_step_fn(
        self, step_fn: Callable[[Any], Any], raw_session: Any, run_with_hooks: Any
    ) -> Any:
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Recreates the session when a step fails with AbortedError or UnavailableError."""

    def __init__(self, sess_creator: Any) -> None:
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self) -> Any:
        delay = 0.05
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                _log.info(
                    "An error was raised while a session was being created. This may be due to "
                    "a preemption of a connected worker or parameter server. A new session will "
                    "be created. Error: %s",
                    e,
                )
                # While a task is down each try fails at once: back off a little (TF retries
                # in a tight loop).
                time.sleep(delay)
                delay = min(delay * 2, _MAX_RETRY_DELAY_SECS)

    def _check_stop(self) -> bool:
        try:
            if self._sess:
                return bool(self._sess._check_stop())
            return True
        except _PREEMPTION_ERRORS as e:
            _log.info(
                "An error was raised while considering whether the session is complete: %s", e
            )
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:
            return True

    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(
                    fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
                )
            except _PREEMPTION_ERRORS as e:
                _log.info(
                    "An error was raised. This may be due to a preemption in a connected worker "
                    "or parameter server. The current session will be closed and a new session "
                    "will be created. Error: %s",
                    e,
                )
                self.close()
                self._sess = None

    def run_step_fn(
        self, step_fn: Callable[[Any], Any], raw_session: Any, run_with_hooks: Any
    ) -> Any:
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                _log.info(
                    "An error was raised. This may be due to a preemption in a connected worker "
                    "or parameter server. The current session will be closed and a new session "
                    "will be created. Error: %s",
                    e,
                )
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Stops with the coordinator; re-raises what a coordinated thread reported."""

    def __init__(self, sess: Any, coord: Coordinator, stop_grace_period_secs: float = 120) -> None:
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self) -> bool:
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self) -> None:
        self._coord.request_stop()
        try:
            self._coord.join(
                stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True
            )
        finally:
            with contextlib.suppress(Exception):
                super().close()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            original = sys.exc_info()
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                pass
            assert original[1] is not None
            raise original[1].with_traceback(original[2]) from None


class _HookedSession(_WrappedSession):
    """Calls the hooks' before_run / after_run around every run."""

    def __init__(self, sess: Any, hooks: Sequence[SessionRunHook]) -> None:
        super().__init__(sess)
        self._hooks = list(hooks)
        self._should_stop = False

    def _check_stop(self) -> bool:
        return self._should_stop

    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches: dict[Any, Any] = {"caller": fetches}
        run_context = SessionRunContext(
            original_args=SessionRunArgs(fetches, feed_dict), session=self._sess
        )
        options = options or config_pb2.RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or config_pb2.RunMetadata()
        outputs = self._sess.run(
            actual_fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
        )
        for hook in self._hooks:
            hook.after_run(
                run_context,
                SessionRunValues(
                    results=outputs.get(hook, None),
                    options=options,
                    run_metadata=run_metadata,
                ),
            )
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(
        self,
        run_context: SessionRunContext,
        fetch_dict: dict[Any, Any],
        user_feed_dict: Any,
        options: Any,
    ) -> Any:
        hook_feeds: dict[Any, Any] = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(
                    hook_feeds, request.feed_dict, "Same tensor is fed by two hooks."
                )
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(
            user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user."
        )
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1: Any, feeds2: Any, message: str) -> None:
    both = set(feeds1.keys()) & set(feeds2.keys())
    if both:
        raise RuntimeError(f"{message} Conflict(s): {sorted(str(k) for k in both)}")


def _merge_run_options(options: Any, incoming: Any) -> None:
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming.inter_op_thread_pool)
    options.output_partition_graphs = (
        options.output_partition_graphs or incoming.output_partition_graphs
    )
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom or incoming.report_tensor_allocations_upon_oom
    )


# ---- MonitoredSession ----------------------------------------------------------------------


class _CoordinatedSessionCreator(SessionCreator):
    def __init__(
        self,
        session_creator: SessionCreator,
        hooks: Sequence[SessionRunHook],
        stop_grace_period_secs: float,
    ) -> None:
        self._session_creator = session_creator
        self._hooks = hooks
        self._stop_grace_period_secs = stop_grace_period_secs
        self.coord: Coordinator | None = None
        self.tf_sess: Any = None

    def create_session(self) -> Any:
        self.tf_sess = self._session_creator.create_session()
        # No exception is a clean stop for the session's own threads.
        self.coord = Coordinator(clean_stop_exception_types=[])
        if get_collection(GraphKeys.QUEUE_RUNNERS):
            internal_deprecations.called_internally(internal_deprecations.START_QUEUE_RUNNERS)
            start_queue_runners(sess=self.tf_sess, coord=self.coord)
        for hook in self._hooks:
            hook.after_create_session(self.tf_sess, self.coord)
        return _CoordinatedSession(
            _HookedSession(self.tf_sess, self._hooks), self.coord, self._stop_grace_period_secs
        )


class _MonitoredSession:
    def __init__(
        self,
        session_creator: SessionCreator | None,
        hooks: Sequence[SessionRunHook] | None,
        should_recover: bool,
        stop_grace_period_secs: float = 120,
    ) -> None:
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = _CoordinatedSessionCreator(
            session_creator or ChiefSessionCreator(), self._hooks, stop_grace_period_secs
        )
        self._sess: Any
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self) -> Any:
        sess = self._tf_sess()
        return None if sess is None else sess.graph

    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        return self._sess.run(
            fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
        )

    def run_step_fn(self, step_fn: Callable[[Any], Any]) -> Any:
        """Calls step_fn(step_context): step_context.session is the raw session,
        run_with_hooks runs with the hooks, request_stop() raises StopIteration (which a
        `with` block of this session takes as the end)."""
        arguments = _arg_names(step_fn)
        if arguments not in (("step_context",), ("self", "step_context")):
            raise ValueError(
                "`step_fn` may either have one `step_context` argument, or `self` and "
                "`step_context` arguments if it's an instance method. Got "
                f"{arguments} instead."
            )
        # run_with_hooks=None: the coordinated session's run, so preemptions inside step_fn
        # reach the recoverable session, which makes a new session and calls step_fn again.
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    def should_stop(self) -> bool:
        return self._sess is None or bool(self._sess.should_stop())

    def close(self) -> None:
        self._close_internal()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, exception_type: Any, exception_value: Any, traceback: Any) -> bool:
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type: Any = None) -> None:
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _tf_sess(self) -> Any:
        return self._coordinated_creator.tf_sess


class _StepContext:
    def __init__(self, session: Any, run_with_hooks_fn: Callable[..., Any]) -> None:
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self) -> Any:
        return self._session

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        """As MonitoredSession.run."""
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self) -> NoReturn:
        """Ends the loop: raises StopIteration out of step_fn and run_step_fn."""
        raise StopIteration("step_fn has requested the iterations to stop.")


def _arg_names(fn: Any) -> tuple[str, ...]:
    """The names of fn's positional parameters, a bound method's `self` left out (TF's
    function_utils.fn_args)."""
    if isinstance(fn, functools.partial):
        names = _arg_names(fn.func)[len(fn.args) :]
        return tuple(a for a in names if a not in (fn.keywords or {}))
    if not inspect.isfunction(fn) and not inspect.ismethod(fn):
        fn = fn.__call__
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = inspect.signature(fn).parameters.values()
    return tuple(p.name for p in params if p.kind in kinds)


_MonitoredSession.StepContext = _StepContext  # type: ignore[attr-defined]


class MonitoredSession(_MonitoredSession):
    """A session with hooks that recovers from AbortedError/UnavailableError."""

    def __init__(
        self,
        session_creator: SessionCreator | None = None,
        hooks: Sequence[SessionRunHook] | None = None,
        stop_grace_period_secs: float = 120,
    ) -> None:
        super().__init__(
            session_creator,
            hooks,
            should_recover=True,
            stop_grace_period_secs=stop_grace_period_secs,
        )


class SingularMonitoredSession(_MonitoredSession):
    """A chief's MonitoredSession that does not recover (errors reach the caller)."""

    def __init__(
        self,
        hooks: Sequence[SessionRunHook] | None = None,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        stop_grace_period_secs: float = 120,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(
            creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs
        )

    def raw_session(self) -> Any:
        return self._tf_sess()


def MonitoredTrainingSession(
    master: str = "",
    is_chief: bool = True,
    checkpoint_dir: str | None = None,
    scaffold: Scaffold | None = None,
    hooks: Sequence[SessionRunHook] | None = None,
    chief_only_hooks: Sequence[SessionRunHook] | None = None,
    save_checkpoint_secs: Any = USE_DEFAULT,
    save_summaries_steps: Any = USE_DEFAULT,
    save_summaries_secs: Any = USE_DEFAULT,
    config: Any = None,
    stop_grace_period_secs: float = 120,
    log_step_count_steps: int | None = 100,
    max_wait_secs: float = 7200,
    save_checkpoint_steps: Any = USE_DEFAULT,
    summary_dir: str | None = None,
) -> MonitoredSession:
    """A MonitoredSession for distributed training: the chief initialises or restores and
    writes checkpoints and summaries; other workers wait for the chief and just train."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None

    scaffold = scaffold or Scaffold()
    worker_context = distribute_coordinator_context.get_current_worker_context()
    if worker_context is not None:
        return _with_worker_context(
            worker_context,
            scaffold,
            checkpoint_dir=checkpoint_dir,
            hooks=hooks,
            chief_only_hooks=chief_only_hooks,
            save_checkpoint_secs=save_checkpoint_secs,
            save_summaries_steps=save_summaries_steps,
            save_summaries_secs=save_summaries_secs,
            config=config,
            stop_grace_period_secs=stop_grace_period_secs,
            log_step_count_steps=log_step_count_steps,
            max_wait_secs=max_wait_secs,
            save_checkpoint_steps=save_checkpoint_steps,
            summary_dir=summary_dir,
        )
    if not is_chief:
        worker_creator = WorkerSessionCreator(
            scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs
        )
        return MonitoredSession(
            session_creator=worker_creator,
            hooks=hooks or [],
            stop_grace_period_secs=stop_grace_period_secs,
        )

    all_hooks: list[SessionRunHook] = list(chief_only_hooks or [])
    chief_creator = ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config
    )
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                hooks_lib.StepCounterHook(
                    output_dir=summary_dir, every_n_steps=log_step_count_steps
                )
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                hooks_lib.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            hooks_lib.CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
            )
        )
    all_hooks.extend(hooks or [])
    return MonitoredSession(
        session_creator=chief_creator,
        hooks=all_hooks,
        stop_grace_period_secs=stop_grace_period_secs,
    )


_COLLECTIVE_STRATEGIES = (
    "CollectiveAllReduceStrategy",
    "CollectiveAllReduceStrategyV1",
    "MultiWorkerMirroredStrategy",
)


def _with_worker_context(
    worker_context: Any,
    scaffold: Scaffold,
    *,
    checkpoint_dir: str | None,
    hooks: Sequence[SessionRunHook] | None,
    chief_only_hooks: Sequence[SessionRunHook] | None,
    save_checkpoint_secs: Any,
    save_summaries_steps: Any,
    save_summaries_secs: Any,
    config: Any,
    stop_grace_period_secs: float,
    log_step_count_steps: int | None,
    max_wait_secs: float,
    save_checkpoint_steps: Any,
    summary_dir: str | None,
) -> MonitoredSession:
    """TF 1.15's MonitoredTrainingSession inside a distribute coordinator's worker context:
    the context's strategy says who checkpoints and writes summaries (a collective
    strategy's other workers write theirs under tmp_<task>), and makes the session."""
    all_hooks: list[SessionRunHook] = list(hooks or [])
    if chief_only_hooks and worker_context.is_chief:
        all_hooks.extend(chief_only_hooks)
    tmpdir: str | None = None
    if type(worker_context._strategy).__name__ in _COLLECTIVE_STRATEGIES:
        tmpdir = "tmp"
        if worker_context.task_type:
            tmpdir = f"tmp_{worker_context.task_type}_{worker_context.task_id}"
        if save_checkpoint_secs:
            _log.warning(
                "Collective ops may deadlock with `save_checkpoints_secs` please use "
                "`save_checkpoint_steps` instead. Clearing `save_checkpoint_secs` and setting "
                "`save_checkpoint_steps` to 1000 now."
            )
            save_checkpoint_secs, save_checkpoint_steps = None, 1000
        if save_summaries_secs:
            _log.warning(
                "Collective ops may run out of sync with`save_summaries_secs`, please use "
                "`save_summaries_steps` instead."
            )

    def own_dir(base: str) -> str | None:
        return (
            base
            if worker_context.should_save_summary
            else (os.path.join(base, tmpdir) if tmpdir else None)
        )

    summary_dir = summary_dir or checkpoint_dir
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        out = own_dir(summary_dir)
        if out:
            all_hooks.append(
                hooks_lib.StepCounterHook(output_dir=out, every_n_steps=log_step_count_steps)
            )
    if (
        (save_summaries_steps and save_summaries_steps > 0)
        or (save_summaries_secs and save_summaries_secs > 0)
    ) and summary_dir:
        out = own_dir(summary_dir)
        if out:
            all_hooks.append(
                hooks_lib.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=out,
                )
            )
        # As TF 1.15: checkpoint hooks only where summaries are saved too.
        if (
            (save_checkpoint_secs and save_checkpoint_secs > 0)
            or (save_checkpoint_steps and save_checkpoint_steps > 0)
        ) and checkpoint_dir:
            ckpt = (
                checkpoint_dir
                if worker_context.should_checkpoint
                else (os.path.join(checkpoint_dir, tmpdir) if tmpdir else None)
            )
            if ckpt:
                all_hooks.append(
                    hooks_lib.CheckpointSaverHook(
                        ckpt,
                        save_steps=save_checkpoint_steps,
                        save_secs=save_checkpoint_secs,
                        scaffold=scaffold,
                    )
                )
    _log.info("all_hooks %r", all_hooks)
    session_creator = worker_context.session_creator(
        scaffold, config=config, checkpoint_dir=checkpoint_dir, max_wait_secs=max_wait_secs
    )
    return MonitoredSession(
        session_creator=session_creator,
        hooks=all_hooks,
        stop_grace_period_secs=stop_grace_period_secs,
    )


__all__ = [
    "ChiefSessionCreator",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "Scaffold",
    "SessionCreator",
    "SingularMonitoredSession",
    "WorkerSessionCreator",
]
