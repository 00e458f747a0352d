"""tf.train.QueueRunner: threads that keep running enqueue ops until told to stop."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from tfcluster.client.session import BaseSession
from tfcluster.framework import errors, internal_deprecations
from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
)
from tfcluster.framework.meta_graph import prepend_name_scope, strip_name_scope
from tfcluster.framework.proto_functions import register_proto_function
from tfcluster.protos import queue_runner_pb2

_log = logging.getLogger(__name__)
_tf_log = logging.getLogger("tensorflow")


class QueueRunner:
    """One thread per enqueue op, looping until the queue closes or the coordinator stops."""

    def __init__(
        self,
        queue: Any = None,
        enqueue_ops: Sequence[Any] | None = None,
        close_op: Any = None,
        cancel_op: Any = None,
        queue_closed_exception_types: Sequence[type] | None = None,
        queue_runner_def: Any = None,
        import_scope: Any = None,
    ) -> None:
        internal_deprecations.called_internally(internal_deprecations.QUEUE_RUNNER, 2)
        if queue_runner_def is not None:
            if queue is not None or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            if queue is None or not enqueue_ops:
                raise ValueError("QueueRunner needs a queue and at least one enqueue op")
            self._queue = queue
            self._enqueue_ops = list(enqueue_ops)
            self._close_op = close_op if close_op is not None else queue.close()
            self._cancel_op = (
                cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
            )
            self._closed_types: tuple[type[BaseException], ...] = tuple(
                queue_closed_exception_types or (errors.OutOfRangeError,)
            )
        self._lock = threading.Lock()
        self._runs_per_session: dict[Any, int] = {}
        self._exceptions_raised: list[BaseException] = []

    def _init_from_proto(self, proto: Any, import_scope: str | None) -> None:
        """Over the imported graph's ops (the queue is its op, as in TF)."""
        graph = get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(prepend_name_scope(name, import_scope))

        self._queue = element(proto.queue_name)
        self._enqueue_ops = [element(n) for n in proto.enqueue_op_name]
        self._close_op = element(proto.close_op_name)
        self._cancel_op = element(proto.cancel_op_name)
        codes = list(proto.queue_closed_exception_types) or [errors.OUT_OF_RANGE]
        self._closed_types = tuple(errors.exception_for_code(int(c)) for c in codes)

    def to_proto(self, export_scope: str | None = None) -> queue_runner_pb2.QueueRunnerDef | None:
        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        proto = queue_runner_pb2.QueueRunnerDef()
        proto.queue_name = strip_name_scope(self.name, export_scope)
        proto.enqueue_op_name.extend(
            strip_name_scope(op.name, export_scope) for op in self._enqueue_ops
        )
        proto.close_op_name = strip_name_scope(self._close_op.name, export_scope)
        proto.cancel_op_name = strip_name_scope(self._cancel_op.name, export_scope)
        proto.queue_closed_exception_types.extend(
            cls.error_code for cls in self._closed_types if hasattr(cls, "error_code")
        )
        return proto

    @staticmethod
    def from_proto(queue_runner_def: Any, import_scope: str | None = None) -> QueueRunner:
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    @property
    def queue(self) -> Any:
        return self._queue

    @property
    def enqueue_ops(self) -> list[Any]:
        return list(self._enqueue_ops)

    @property
    def close_op(self) -> Any:
        return self._close_op

    @property
    def cancel_op(self) -> Any:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple[type[BaseException], ...]:
        return self._closed_types

    @property
    def exceptions_raised(self) -> list[BaseException]:
        return list(self._exceptions_raised)

    @property
    def name(self) -> str:
        return str(self._queue.name)

    def _run(self, sess: Any, enqueue_op: Any, coord: Any) -> None:
        decremented = False
        try:
            # As TF's: a callable made once (the fetch worked out once) runs in the loop.
            enqueue = sess.make_callable(enqueue_op)
            while coord is None or not coord.should_stop():
                try:
                    enqueue()
                except self._closed_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        last = self._runs_per_session[sess] == 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception as e:
                            _tf_log.log(1, "Ignored exception: %s", str(e))  # TF's vlog(1)
                    return
        except Exception as e:
            if coord is not None and coord.should_stop():
                # Errors after a stop request come from the session closing under us.
                return
            if coord is not None:
                coord.request_stop(e)
            else:
                _tf_log.error("Exception in QueueRunner: %s", str(e))
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess: Any, coord: Any) -> None:
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:
            _tf_log.log(1, "Ignored exception: %s", str(e))  # TF's vlog(1)

    def create_threads(
        self, sess: Any, coord: Any = None, daemon: bool = False, start: bool = False
    ) -> list[threading.Thread]:
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        # TF names each thread after the queue and its enqueue op (an uncaught error's
        # "Exception in thread ..." line shows it).
        threads = [
            threading.Thread(
                target=self._run,
                args=(sess, op, coord),
                name=f"QueueRunnerThread-{self.name}-{op.name}",
                daemon=daemon,
            )
            for op in self._enqueue_ops
        ]
        if coord is not None:
            threads.append(
                threading.Thread(
                    target=self._close_on_stop,
                    args=(sess, coord),
                    name=f"QueueRunnerThread-{self.name}-close_on_stop",
                    daemon=daemon,
                )
            )
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    internal_deprecations.called_internally(internal_deprecations.ADD_QUEUE_RUNNER, 2)
    add_to_collection(collection, qr)


def start_queue_runners(
    sess: Any = None,
    coord: Any = None,
    daemon: bool = True,
    start: bool = True,
    collection: str = GraphKeys.QUEUE_RUNNERS,
) -> list[threading.Thread]:
    """Starts the threads of the queue runners in `collection` of sess's graph (TF 1.15's
    checks and words: a MonitoredSession gets nothing, and a default graph without queue
    runners is warned about)."""
    internal_deprecations.called_internally(internal_deprecations.START_QUEUE_RUNNERS, 2)
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with "
                "sess.as_default()` or pass an explicit session to "
                "tf.start_queue_runners(sess=sess)"
            )
    if not isinstance(sess, BaseSession):
        # (TF's backward compatibility, b/62061352)
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        if not (callable(getattr(sess, "run", None)) and hasattr(sess, "graph")):
            raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    if not get_collection(collection):
        _tf_log.warning(
            "`tf.train.start_queue_runners()` was called when no queue runners were defined. "
            "You can safely remove the call to this deprecated function."
        )
    threads: list[threading.Thread] = []
    with sess.graph.as_default():
        for qr in get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


register_proto_function(
    GraphKeys.QUEUE_RUNNERS,
    queue_runner_pb2.QueueRunnerDef,
    lambda qr, export_scope=None: qr.to_proto(export_scope=export_scope),
    QueueRunner.from_proto,
)

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
