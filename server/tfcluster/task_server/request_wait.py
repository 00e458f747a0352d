"""Bounds the threads that calls hold while their (first) request has not come yet.

gRPC-Python reads a unary call's request on a thread of the server's pool: a client that opens
calls (HTTP/2 streams) and never sends their message holds one thread each, until every thread
waits and no session is answered any more (TF's C++ server holds no thread for them); a stream
that never sends its first message held a work-call slot too. So unary-request methods are
served here as streaming-request ones (the same bytes on the wire): the thread then knows the
call before its request comes, and at most `max_waiting` calls wait for their first message at
once; one more cancels the one that has waited longest, which a real client (its request sent
in the same breath) has done only for moments. A stream takes its work-call slot
(call_limits) only once its first message came.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from tfcluster.task_server.interceptor_handlers import WrappedHandlers, coding_of

# Calls that may wait for their request at once; the server's pool has this many more threads.
DEFAULT_MAX_WAITING = 256


class _Waiting:
    """The calls whose request has not come, oldest first."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._calls: OrderedDict[int, grpc.ServicerContext] = OrderedDict()
        self._ids = itertools.count()

    def add(self, context: grpc.ServicerContext) -> int:
        with self._lock:
            key = next(self._ids)
            self._calls[key] = context
            evicted = self._calls.popitem(last=False)[1] if len(self._calls) > self._limit else None
        if evicted is not None:
            evicted.cancel()
        return key

    def cancel_all(self) -> None:
        with self._lock:
            calls = list(self._calls.values())
            self._calls.clear()
        for context in calls:
            context.cancel()

    def remove(self, key: int) -> None:
        with self._lock:
            self._calls.pop(key, None)


_NONE = object()
_CANCELLED = object()


class RequestWaitLimit(grpc.ServerInterceptor):
    def __init__(self, max_waiting: int = DEFAULT_MAX_WAITING) -> None:
        self._waiting = _Waiting(max_waiting)
        self._wrapped = WrappedHandlers()

    def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:
            return handler
        return self._wrapped.get(handler_call_details.method, handler, self._wrap)

    def _wrap(self, handler: Any) -> Any:
        """The handler served as a request-streaming one that waits (bounded) for its first
        request: a unary request is then that message, a stream's requests go on from it."""
        if handler.request_streaming:
            take, unary, streaming = self._opened, handler.stream_unary, handler.stream_stream
        else:
            take, unary, streaming = self._first, handler.unary_unary, handler.unary_stream
        kwargs = coding_of(handler)
        if unary is not None:
            return grpc.stream_unary_rpc_method_handler(_unary_after(take, unary), **kwargs)
        return grpc.stream_stream_rpc_method_handler(_stream_after(take, streaming), **kwargs)

    def _opened(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
        """The stream's requests once its first came (or it ended without any); _NONE when
        it was cancelled first."""
        first = self._wait_for_first(requests, context)
        if first is _CANCELLED:
            return _NONE
        return iter(()) if first is _NONE else itertools.chain((first,), requests)

    def cancel_waiting(self) -> None:
        """A stopping server ends the calls still waiting for their first request."""
        self._waiting.cancel_all()

    def _first(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
        """The call's one request; _NONE when it was cancelled (by us or its client) first."""
        request = self._wait_for_first(requests, context)
        if request is _CANCELLED:
            return _NONE
        if request is _NONE:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the call ended without its request")
        return request

    def _wait_for_first(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
        """The first request, counted among the waiting calls until it comes; _NONE when the
        call ended without one, _CANCELLED when it was cancelled while it waited."""
        key = self._waiting.add(context)
        try:
            return next(requests, _NONE)
        except grpc.RpcError:
            return _CANCELLED
        finally:
            self._waiting.remove(key)


# A call's handler after its request came: take(requests, context) gives the request (or
# the stream's requests), _NONE when the call is over without one.
_Take = Callable[[Iterator[Any], grpc.ServicerContext], Any]


def _unary_after(take: _Take, method: Callable[[Any, grpc.ServicerContext], Any]) -> Any:
    def call(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
        request = take(requests, context)
        return None if request is _NONE else method(request, context)

    return call


def _stream_after(take: _Take, method: Callable[[Any, grpc.ServicerContext], Any]) -> Any:
    def call(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        request = take(requests, context)
        if request is not _NONE:
            yield from method(request, context)

    return call
