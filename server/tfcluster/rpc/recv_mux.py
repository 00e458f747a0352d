"""One RecvTensors call to a peer, shared by this process's steps: requests go out as they
come, answers are matched to their callbacks by request id, in whatever order they arrive.

On a plain direct connection, the step that waits for answers reads them itself
(runtime/inline_reads.py: the call is a Source); a reader thread of the call's own reads the
rest. Over gRPC or TLS (whose bytes this process cannot poll for) the reader thread reads
every answer.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import grpc

from tfcluster.framework import errors
from tfcluster.protos import worker_pb2
from tfcluster.rpc import shm, streams
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.client import DirectCall
from tfcluster.rpc.direct.wire import HEARTBEAT_ONLY, lost
from tfcluster.runtime import inline_reads, outbox
from tfcluster.runtime.inline_reads import Waiter

RecvCallback = Callable[[Any, BaseException | None], None]
ToError = Callable[[grpc.RpcError, str], errors.OpError]

# The reader role, when the call's own thread holds it.
_THREAD = object()


class RecvMux:
    """Receives over one RecvTensors call; a plain direct call is an inline_reads.Source."""

    def __init__(self, call: streams.Call, to_error: ToError) -> None:
        # request id -> (callback, the waiter of the step that reads its answer, if any)
        self._pending: dict[int, tuple[RecvCallback, Waiter | None]] = {}
        # Per waiter, how many of the pending answers are its own.
        self._owed: dict[Waiter, int] = {}
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._to_error = to_error
        self.broken = False
        self._call = call
        self.direct = isinstance(call, DirectCall)
        self.shm_ok = not isinstance(call, DirectCall) or call.encrypted
        self._direct_call: DirectCall | None = (
            call if isinstance(call, DirectCall) and not call.encrypted else None
        )
        # Who reads the answers now: a Waiter, _THREAD, or nobody.
        self._holder: object | None = None
        self._kicked = False
        self._thread: threading.Thread | None = None
        self._last_read = time.monotonic()
        self._guard_saw: int | None = None
        if self._direct_call is None:
            self._start_thread()
        else:
            inline_reads.GUARD.watch(weakref.ref(self))

    # ---- requests ---------------------------------------------------------------------
    def recv(self, step_id: int, key: str, callback: RecvCallback) -> Callable[[], Any]:
        rid = next(self._ids)
        box = outbox.current() if self.direct else None
        waiter = box.waiter if box is not None and self._direct_call is not None else None
        with self._lock:
            failed = self.broken
            if not failed:
                self._pending[rid] = (callback, waiter)
                if waiter is not None:
                    self._owed[waiter] = self._owed.get(waiter, 0) + 1
                    waiter.expect(self)
                elif self._direct_call is not None:
                    self._kick()
        if failed:
            callback(None, errors.UnavailableError(None, None, f"RecvTensor {key}: call broke"))
            return _nothing
        req = worker_pb2.RecvTensorRequest(
            step_id=step_id,
            rendezvous_key=key,
            request_id=rid,
            shm_domain=shm.domain() if self.shm_ok else "",
        )
        if box is not None:
            box.add(self._send_many, req.SerializeToString())
        else:
            self._send_many([req.SerializeToString()])

        def cancel() -> None:
            err = errors.CancelledError(None, None, f"RecvTensor {key} cancelled")
            self._answer(rid, None, err)

        return cancel

    def _send_many(self, messages: list[bytes]) -> None:
        # A broken call fails here and in its reader, which fails every request pending.
        with contextlib.suppress(grpc.RpcError):
            self._call.send(iter(messages))

    # ---- answers ----------------------------------------------------------------------
    def _answer(self, rid: int, value: Any, err: BaseException | None) -> None:
        with self._lock:
            entry = self._take(rid)
        if entry is None:
            return  # cancelled meanwhile
        entry[0](value, err)

    def _take(self, rid: int) -> tuple[RecvCallback, Waiter | None] | None:
        entry = self._pending.pop(rid, None)
        if entry is not None and entry[1] is not None:
            waiter = entry[1]
            left = self._owed[waiter] - 1
            if left:
                self._owed[waiter] = left
            else:
                del self._owed[waiter]
        return entry

    def _deliver(self, frame: tuple[worker_pb2.RecvTensorResponse, memoryview]) -> None:
        resp, payload = frame
        if resp.status_code:
            err = errors.error_from_code(resp.status_code, resp.status_message)
            self._answer(resp.request_id, None, err)
            return
        if resp.request_id not in self._pending:
            return  # cancelled meanwhile: nothing to decode
        try:
            value = coding.decode_checked([resp.tensor], payload)[0]
        except errors.OpError as e:
            self._answer(resp.request_id, None, e)
            return
        self._answer(resp.request_id, value, None)

    def _fail(self, err: BaseException) -> None:
        """The call is broken: every answer still due fails with `err`."""
        with self._lock:
            self.broken = True
            pending, self._pending = self._pending, {}
            self._owed.clear()
            self._wakeup.notify_all()
        for callback, _ in pending.values():
            callback(None, err)

    def hung_up(self) -> bool:
        """Whether the peer closed this call while nobody read it (a plain direct call is
        read only while answers are due): then the call is broken, and the next receive
        opens a new one rather than asking a peer that is gone (a restarted ps)."""
        call = self._direct_call
        if call is None:
            return self.broken
        with self._lock:
            if self.broken:
                return True
            if self._pending or self._holder is not None:
                return False  # a reader is or will be there to see it
        if not call.peer_closed():
            return False
        self._fail(errors.UnavailableError(None, None, "RecvTensors: the peer hung up"))
        return True

    # ---- inline_reads.Source ------------------------------------------------------------
    def claim(self, waiter: Waiter) -> bool:
        with self._lock:
            if self._holder is None:
                self._holder = waiter
            return self._holder is waiter

    def release(self, waiter: Waiter) -> None:
        with self._lock:
            if self._holder is not waiter:
                return
            self._holder = None
            if len(self._pending) > self._owed.get(waiter, 0):
                self._kick()  # others wait for answers here

    def owed_to(self, waiter: Waiter) -> int:
        return self._owed.get(waiter, 0)

    def hand_over(self, waiter: Waiter) -> None:
        with self._lock:
            if self._holder is None and self._pending:
                self._kick()

    def buffered(self) -> bool:
        assert self._direct_call is not None
        return self._direct_call.buffered()

    def fileno(self) -> int:
        assert self._direct_call is not None
        return self._direct_call.fileno()

    def silence_left(self, now: float) -> float | None:
        assert self._direct_call is not None
        silence = self._direct_call.silence
        return None if silence is None else self._last_read + silence - now

    def read_some(self) -> None:
        call = self._direct_call
        assert call is not None
        try:
            first = call.next_or_heartbeat()
            self._last_read = time.monotonic()
            if first is HEARTBEAT_ONLY:
                return
            if first is None:
                self._fail(errors.UnavailableError(None, None, "RecvTensors: the peer hung up"))
                return
            frame = coding.read_rest(first, call, _parse_recv_response, _one_meta)
        except grpc.RpcError as e:
            self._fail(self._to_error(e, "RecvTensors"))
            return
        except errors.OpError as e:
            self._fail(e)
            return
        self._deliver(frame)

    def expire(self) -> None:
        self._call.cancel()
        self._fail(self._to_error(lost(TimeoutError()), "RecvTensors"))

    def check(self) -> None:
        """The guard's look (once a second): answers that waited unread since the last look
        get the reader thread (the step that asked is busy for long)."""
        with self._lock:
            if self.broken or self._holder is not None or not self._pending:
                self._guard_saw = None
                return
            oldest = next(iter(self._pending))
            if self._guard_saw == oldest:
                self._kick()
            self._guard_saw = oldest

    # ---- the reader thread ---------------------------------------------------------------
    def _kick(self) -> None:
        """(Under the lock.) The reader thread reads while answers are due."""
        self._kicked = True
        if self._thread is None:
            self._start_thread()
        else:
            self._wakeup.notify()

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._read, name="recv-mux", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        err: errors.OpError | None = None
        try:
            while self._take_role():
                while True:
                    with self._lock:
                        if self.broken or (self._direct_call is not None and not self._pending):
                            self._holder = None
                            break
                    frame = coding.read_frame(self._call, _parse_recv_response, _one_meta)
                    self._last_read = time.monotonic()
                    if frame is None:
                        err = errors.UnavailableError(None, None, "RecvTensors: the peer hung up")
                        break
                    self._deliver(frame)
                if err is not None:
                    break
        except grpc.RpcError as e:
            err = self._to_error(e, "RecvTensors")
        except errors.OpError as e:
            err = e
        if err is not None:
            self._fail(err)

    def _take_role(self) -> bool:
        """Waits until answers are due and nobody reads them; False once the call broke."""
        with self._lock:
            if self._direct_call is None:  # reads every answer, for as long as the call lasts
                self._holder = _THREAD
                return not self.broken
            while not self.broken and not (self._kicked and self._holder is None):
                self._wakeup.wait()
            self._kicked = False
            if self.broken:
                return False
            self._holder = _THREAD
            return True

    # ---- the end -------------------------------------------------------------------------
    def retire(self) -> None:
        """No more requests: the peer answers those it has, then ends the call."""
        self._call.half_close()

    def close(self) -> None:
        self._call.half_close()
        self._call.cancel()
        if self._direct_call is not None:  # no reader may be there to see it break
            self._fail(errors.UnavailableError(None, None, "RecvTensors: the call was closed"))


def _nothing() -> None:
    return None


def _parse_recv_response(data: Any) -> worker_pb2.RecvTensorResponse:
    return coding.parse(worker_pb2.RecvTensorResponse.FromString, data, "RecvTensorResponse")


def _one_meta(resp: worker_pb2.RecvTensorResponse) -> list[Any]:
    # An error response carries no tensor: nothing to read after it.
    return [resp.tensor] if not resp.status_code else []
