"""Keeps a task answering its health checks and control calls however many calls wait on it.

gRPC-Python serves every call on a thread of one pool, and a call that runs steps or waits
for tensors holds its thread for as long as it lasts; a long-lived stream holds one even
while idle between steps. So such "work" calls are limited to `max_work_calls` at once, the
pool has CONTROL_THREADS more for everything else (health, ListDevices, sessions, cleanup:
calls that return at once), and a work call past the limit gets RESOURCE_EXHAUSTED at once,
with the reason, instead of waiting for a thread that may never come.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from tfcluster.rpc import master_service, worker_service
from tfcluster.task_server.interceptor_handlers import WrappedHandlers, coding_of

# Threads kept for calls that are not work calls.
CONTROL_THREADS = 64
DEFAULT_MAX_WORK_CALLS = 1024
WORK_METHODS = frozenset(
    {
        f"/{master_service.SERVICE_NAME}/RunStep",
        f"/{master_service.SERVICE_NAME}/RunStepStream",
        f"/{worker_service.SERVICE_NAME}/RunGraph",
        f"/{worker_service.SERVICE_NAME}/RunGraphStream",
        f"/{worker_service.SERVICE_NAME}/RecvTensor",
        f"/{worker_service.SERVICE_NAME}/RecvTensorStream",
        f"/{worker_service.SERVICE_NAME}/RecvTensors",
        f"/{worker_service.SERVICE_NAME}/CollectiveJoin",
    }
)


class WorkCallLimit(grpc.ServerInterceptor):  # type: ignore[misc]
    def __init__(self, max_work_calls: int) -> None:
        self.max_work_calls = max_work_calls
        self._slots = threading.BoundedSemaphore(max_work_calls)
        self._wrapped = WrappedHandlers()

    def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        handler = continuation(handler_call_details)
        path = handler_call_details.method
        if handler is None or path not in WORK_METHODS:
            return handler
        return self._wrapped.get(path, handler, self._wrap)

    def _refuse(self, context: grpc.ServicerContext) -> None:
        context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"this task serves at most {self.max_work_calls} calls that run steps or wait for "
            "tensors at once (open streams count, idle or not); close idle sessions or raise "
            "the task's max_work_calls",
        )

    def _wrap(self, handler: Any) -> Any:
        kwargs = coding_of(handler)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(self._single(handler.unary_unary), **kwargs)
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(handler.unary_stream), **kwargs
            )
        return grpc.stream_stream_rpc_method_handler(
            self._streaming(handler.stream_stream), **kwargs
        )

    def _single(self, behavior: Callable[[Any, Any], Any]) -> Callable[..., Any]:
        def call(request: Any, context: grpc.ServicerContext) -> Any:
            if not self._slots.acquire(blocking=False):
                self._refuse(context)
            try:
                return behavior(request, context)
            finally:
                self._slots.release()

        return call

    def _streaming(self, behavior: Callable[[Any, Any], Iterator[Any]]) -> Callable[..., Any]:
        def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            if not self._slots.acquire(blocking=False):
                self._refuse(context)
            try:
                yield from behavior(request, context)
            finally:
                self._slots.release()

        return call
