"""Counts the calls a task server answers with an error status, by method and code.

A server interceptor sees every call of the master and worker services: a call that ends
with an error status (a malformed request, an unknown handle, a wait given up) adds one to
tfcluster_errors_total{method, code}. Steps that fail inside the measured master or worker,
and tensors a peer asked for whose step failed, are counted there already (measured.py,
whatever the transport, in-band stream answers included); those exceptions are marked, so
the status they become here is not counted twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc

from tfcluster.rpc import master_service, worker_service
from tfcluster.task_server.interceptor_handlers import WrappedHandlers, coding_of
from tfcluster.task_server.metrics.families import ServerMetrics, was_counted

_SERVICES = frozenset({master_service.SERVICE_NAME, worker_service.SERVICE_NAME})


class ErrorCountingInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    def __init__(self, metrics: ServerMetrics, services: frozenset[str] = _SERVICES) -> None:
        self._metrics = metrics
        self._services = services
        self._wrapped = WrappedHandlers()

    def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:
            return None  # unknown method: gRPC answers UNIMPLEMENTED (no unbounded label)
        path = handler_call_details.method
        return self._wrapped.get(path, handler, lambda h: self._wrap_if_counted(h, path))

    def _wrap_if_counted(self, handler: Any, path: str) -> Any:
        service, _, method = path.lstrip("/").partition("/")
        return self._wrap(handler, method) if service in self._services else handler

    def _failed(self, method: str, err: BaseException, context: grpc.ServicerContext) -> None:
        if was_counted(err):
            return
        code = context.code() if hasattr(context, "code") else None
        name = code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"
        self._metrics.count_error(method, name)

    def _wrap(self, handler: Any, method: str) -> Any:
        kwargs = coding_of(handler)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._single(handler.unary_unary, method), **kwargs
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                self._single(handler.stream_unary, method), **kwargs
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(handler.unary_stream, method), **kwargs
            )
        return grpc.stream_stream_rpc_method_handler(
            self._streaming(handler.stream_stream, method), **kwargs
        )

    def _single(self, behavior: Callable[[Any, Any], Any], method: str) -> Callable[..., Any]:
        def call(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behavior(request, context)
            except Exception as e:
                self._failed(method, e, context)
                raise

        return call

    def _streaming(
        self, behavior: Callable[[Any, Any], Iterator[Any]], method: str
    ) -> Callable[..., Iterator[Any]]:
        def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from behavior(request, context)
            except Exception as e:
                self._failed(method, e, context)
                raise

        return call


def counting_direct(metrics: ServerMetrics | None, handlers: dict[str, Any]) -> dict[str, Any]:
    """The direct streams' handlers, counting their error statuses as gRPC calls' are."""
    if metrics is None:
        return handlers
    counter = ErrorCountingInterceptor(metrics)
    return {path: counter._streaming(fn, path.rpartition("/")[2]) for path, fn in handlers.items()}


def interceptors(metrics: ServerMetrics | None) -> Sequence[grpc.ServerInterceptor] | None:
    """The interceptors a Server installs: none without metrics (no cost per call)."""
    return None if metrics is None else [ErrorCountingInterceptor(metrics)]
