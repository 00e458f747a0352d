"""Long-lived bidirectional calls that carry one step after another.

A new gRPC call costs far more CPU (on both ends) than a message on a call that is already
open, so each thread keeps one RunStepStream to each master and one RunGraphStream to each
worker it talks to, and sends its steps over it: a request, then its response, in order.
A step's deadline cancels the call (the next step opens a new one); so does an error in the
framing. A thread that ends drops its calls.
"""

from __future__ import annotations

import heapq
import itertools
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

import grpc

from tfcluster.protos import named_tensor_pb2
from tfcluster.rpc import shm, status
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.client import DirectCall, Link

M = TypeVar("M")


class Watchdog:
    """One thread that runs a callback (cancelling a call) once its deadline has passed."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, list[Any]]] = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._armed = 0

    def arm(self, deadline: float, fn: Callable[[], Any]) -> list[Any]:
        token = [fn, True]
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rpc-watchdog", daemon=True)
                self._thread.start()
            heapq.heappush(self._heap, (deadline, next(self._seq), token))
            self._armed += 1
            if len(self._heap) > 2 * self._armed + 1024:
                # Disarmed entries with far deadlines pile up under fast steps: drop them.
                self._heap = [e for e in self._heap if e[2][1]]
                heapq.heapify(self._heap)
            if self._heap[0][2] is token:
                self._cond.notify()
        return token

    def disarm(self, token: list[Any]) -> None:
        with self._cond:
            if token[1]:
                token[1] = False
                self._armed -= 1

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                deadline, _, token = self._heap[0]
                now = time.monotonic()
                if not token[1]:
                    heapq.heappop(self._heap)
                    continue
                if deadline > now:
                    self._cond.wait(deadline - now)
                    continue
                heapq.heappop(self._heap)
                token[1] = False
                self._armed -= 1
            try:
                token[0]()
            except Exception:
                continue


WATCHDOG = Watchdog()


def outgoing(outbox: queue.SimpleQueue[Iterator[bytes] | None]) -> Iterator[bytes]:
    """The request side of a call: each queued request's messages, until None (half-close).

    It holds the queue only, not the CallStream, so a dropped CallStream can be collected."""
    while True:
        item = outbox.get()
        if item is None:
            return
        for msg in item:
            # gRPC sends bytes only; a relayed message may be a buffer read off a direct call.
            yield msg if isinstance(msg, bytes) else bytes(coding.joined(msg))


class Call(Protocol):
    """One open bidirectional call, over gRPC (GrpcCall) or a direct connection."""

    def send(self, messages: Iterator[Any]) -> None: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __next__(self) -> Any: ...

    def is_active(self) -> bool: ...

    def half_close(self) -> None: ...

    def cancel(self) -> None: ...


class GrpcCall:
    """A gRPC stream-stream call: requests queue up for gRPC's sending thread."""

    def __init__(self, method: grpc.StreamStreamMultiCallable, wait_for_ready: bool) -> None:
        self._outbox: queue.SimpleQueue[Iterator[bytes] | None] = queue.SimpleQueue()
        self._responses = method(outgoing(self._outbox), wait_for_ready=wait_for_ready)

    def send(self, messages: Iterator[Any]) -> None:
        self._outbox.put(messages)

    def __iter__(self) -> GrpcCall:
        return self

    def __next__(self) -> Any:
        return next(self._responses)

    def is_active(self) -> bool:
        return bool(self._responses.is_active())

    def half_close(self) -> None:
        self._outbox.put(None)

    def cancel(self) -> None:
        self._responses.cancel()

    def __del__(self) -> None:
        try:
            self._outbox.put(None)
            self._responses.cancel()
        except Exception:
            pass


class CallStream:
    """One open bidirectional call; `exchange` sends a request and reads its response."""

    def __init__(self, call: Call) -> None:
        self._call = call
        self.direct = isinstance(call, DirectCall)
        # Big tensors skip a stream that encrypts them when the peer shares /dev/shm.
        self.shm_ok = not isinstance(call, DirectCall) or call.encrypted
        # From this size on (smaller over TLS: see rpc/shm.py).
        self.shm_min = shm.min_size(isinstance(call, DirectCall) and call.encrypted)
        self.usable = True
        self.expired = False
        self.pid = os.getpid()
        # The thread whose stream this is (ThreadStreams): once it has ended and the rest of
        # a response it handed on is read, nothing can use the call again.
        self.owner: weakref.ref[threading.Thread] | None = None
        self.relaying = False

    @property
    def call(self) -> Call:
        return self._call

    def orphaned(self) -> bool:
        thread = self.owner() if self.owner is not None else None
        return (thread is None or not thread.is_alive()) and not self.relaying

    def exchange(
        self,
        messages: Iterator[bytes],
        parse_header: Callable[[memoryview], M],
        metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
        deadline: float | None = None,
    ) -> tuple[M, memoryview]:
        """Raises grpc.RpcError if the call failed (then `expired` says whether the deadline
        cancelled it), or an OpError for a malformed response; either way the call is dropped."""
        token = WATCHDOG.arm(deadline, self._expire) if deadline is not None else None
        try:
            self._call.send(messages)
            frame = coding.read_frame(self._call, parse_header, metas_of)
        except BaseException:
            self.close()
            raise
        finally:
            if token is not None:
                WATCHDOG.disarm(token)
        if frame is None:
            self.close()
            raise _ClosedByPeer()
        return frame

    def exchange_head(
        self,
        messages: Iterator[bytes],
        parse_header: Callable[[memoryview], M],
        metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
        deadline: float | None = None,
    ) -> coding.Forwarded:
        """Like exchange, but returns once the response's header is here; the caller must
        consume the rest (Forwarded.rest) before this thread's next exchange. If it does not,
        the call is dropped."""
        return self.read_head(self.send(messages, deadline), parse_header, metas_of)

    def send(self, messages: Iterator[bytes], deadline: float | None = None) -> Sent:
        """The first half of exchange_head: sends a request, whose response must be read
        (read_head) before the call takes another. In between, the caller may do other
        work: a master runs its own partition while other tasks run theirs."""
        sent = Sent(WATCHDOG.arm(deadline, self._expire) if deadline is not None else None)
        try:
            self._call.send(messages)
        except BaseException:
            sent.done()
            self.close()
            raise
        return sent

    def read_head(
        self,
        sent: Sent,
        parse_header: Callable[[memoryview], M],
        metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
    ) -> coding.Forwarded:
        """The second half of exchange_head: the response to the request `sent`."""
        try:
            head = coding.read_head(self._call, parse_header, metas_of)
        except BaseException:
            self.close()
            raise
        finally:
            sent.done()
        if head is None:
            self.close()
            raise _ClosedByPeer()
        head.rest = self._guarded(head.rest)
        # Until the rest is read (a payload that all came with the header has none left).
        self.relaying = not head.complete
        return head

    def _guarded(self, rest: Iterator[bytes]) -> Iterator[bytes]:
        finished = False
        try:
            yield from rest
            finished = True
        except grpc.RpcError as e:
            raise status.from_rpc_error(e, "reading the rest of a response") from None
        finally:
            self.relaying = False
            if not finished:
                self.close()

    def active(self) -> bool:
        return self._call.is_active()

    def _expire(self) -> None:
        self.expired = True
        self.usable = False
        self._call.cancel()

    def close(self) -> None:
        self.usable = False
        self._call.half_close()
        self._call.cancel()


class Sent:
    """A request whose response is awaited: its deadline stays armed until then."""

    __slots__ = ("_token",)

    def __init__(self, token: list[Any] | None) -> None:
        self._token = token

    def done(self) -> None:
        if self._token is not None:
            WATCHDOG.disarm(self._token)
            self._token = None


class _ClosedByPeer(grpc.RpcError):
    """The server ended the call without answering (it is shutting down)."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the server closed the call before answering"


class NotConnected(grpc.RpcError):
    """The channel did not connect within the time a new call may wait."""

    def __init__(self, waited: float) -> None:
        super().__init__()
        self.waited = waited

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return f"could not connect within {self.waited:g}s"


class ThreadStreams:
    """One CallStream per thread for one method of one peer: a direct call when the peer
    offers one (see rpc/direct), a gRPC call otherwise."""

    def __init__(
        self,
        method: grpc.StreamStreamMultiCallable,
        wait_for_ready: bool,
        channel: grpc.Channel | None = None,
        connect_wait: float = 0.0,
        direct_route: tuple[Link, str] | None = None,
    ) -> None:
        """Without wait_for_ready, a new call first gives the channel up to `connect_wait`
        seconds to (re)connect: a peer that just restarted is found, a dead one fails soon.
        `direct_route`: the peer's Link and the method's path, to call it directly."""
        self._method = method
        self._wait_for_ready = wait_for_ready
        self._channel = channel
        self._connect_wait = connect_wait
        self._route = direct_route
        self._local = threading.local()
        self._all: weakref.WeakSet[CallStream] = weakref.WeakSet()
        self._lock = threading.Lock()

    def get(self, deadline: float | None = None) -> CallStream:
        stream: CallStream | None = getattr(self._local, "stream", None)
        if stream is not None and stream.pid != os.getpid():
            stream = None  # a forked child: the call is its parent's, leave it alone
        route = self._route
        if stream is not None and stream.usable and stream.active():
            if route is None or stream.direct or not route[0].ready:
                if route is not None and not stream.direct:
                    route[0].probe()
                return stream
            stream.close()  # the peer's direct endpoint is known now: move over
        if route is not None:
            call = route[0].open(route[1])
            if call is not None:
                return self._keep(CallStream(call))
        # A call the peer ended (it stopped or died) took no request of ours: a new one waits
        # for the peer instead of failing.
        if self._channel is not None and self._connect_wait > 0:
            wait = self._connect_wait
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            try:
                grpc.channel_ready_future(self._channel).result(timeout=wait)
            except grpc.FutureTimeoutError:
                raise NotConnected(wait) from None
        return self._keep(CallStream(GrpcCall(self._method, self._wait_for_ready)))

    def _keep(self, stream: CallStream) -> CallStream:
        stream.owner = weakref.ref(threading.current_thread())
        self._local.stream = stream
        with self._lock:
            orphans = [s for s in self._all if s.orphaned()]
            self._all.add(stream)
        # A thread-local stream outlives its thread when the thread's locals are not cleared
        # (seen with executor threads of closed master sessions): each such call kept a
        # connection, and a thread on the peer, open for good. New threads come with new
        # sessions (a session recreated after a ps froze, say), so close those left behind.
        for s in orphans:
            s.close()
        return stream

    def close_all(self) -> None:
        with self._lock:
            streams = list(self._all)
        for s in streams:
            s.close()


class IdleCalls:
    """The server side: long-lived calls waiting for their next request, which a stopping
    server ends at once (a step in flight still gets the grace period)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[int, grpc.ServicerContext] = {}
        self._stopping = False

    def requests(self, messages: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        """`messages`, with the call marked idle while it waits for the next one."""
        key = id(context)
        while True:
            with self._lock:
                if self._stopping:
                    return
                self._idle[key] = context
            try:
                msg = next(messages)
            except StopIteration:
                return
            finally:
                with self._lock:
                    self._idle.pop(key, None)
            yield msg

    def always_idle(self, context: grpc.ServicerContext) -> _Tracked:
        """For calls that only ever wait (RecvTensors): ended at stop, whatever they do."""
        return _Tracked(self, context)

    def cancel_idle(self) -> None:
        with self._lock:
            self._stopping = True
            idle = list(self._idle.values())
        for context in idle:
            context.cancel()  # type: ignore[attr-defined]


class _Tracked:
    def __init__(self, calls: IdleCalls, context: grpc.ServicerContext) -> None:
        self._calls = calls
        self._context = context

    def __enter__(self) -> None:
        with self._calls._lock:
            if self._calls._stopping:
                self._context.cancel()  # type: ignore[attr-defined]
            self._calls._idle[id(self._context)] = self._context

    def __exit__(self, *exc: Any) -> None:
        with self._calls._lock:
            self._calls._idle.pop(id(self._context), None)
