"""A step's thread reads the answers to its own receives (runtime/inline_reads.py, with the
RecvTensors call of rpc/recv_mux.py as the source), and the call's reader thread reads the
ones nobody waiting reads. The peer here is the other end of a plain socket."""

from __future__ import annotations

import queue
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from tfcluster.framework import errors
from tfcluster.protos import worker_pb2
from tfcluster.rpc import status
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct import client as direct
from tfcluster.rpc.direct import wire
from tfcluster.rpc.recv_mux import RecvMux
from tfcluster.runtime import inline_reads, outbox

_LEN = struct.Struct("<Q")


class Peer:
    """The serving end: reads requests, writes answers when told."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.wire = wire.Wire(sock)

    def requests(self, n: int) -> list[worker_pb2.RecvTensorRequest]:
        return [worker_pb2.RecvTensorRequest.FromString(bytes(self.wire.read())) for _ in range(n)]

    def answer(self, rid: int, value: np.ndarray) -> None:
        resp = worker_pb2.RecvTensorResponse(request_id=rid)
        buffers = coding.fill_meta(resp.tensor, value)
        msg = coding.frame(resp.SerializeToString(), buffers)
        self.sock.sendall(_LEN.pack(len(msg)) + msg)


@pytest.fixture
def link() -> Iterator[tuple[RecvMux, Peer]]:
    listener = socket.create_server(("127.0.0.1", 0))
    left = socket.create_connection(listener.getsockname())
    right, _ = listener.accept()
    listener.close()
    left.settimeout(0.5)  # the server's silence limit: a few of its heartbeat intervals
    mux = RecvMux(direct.DirectCall(wire.Wire(left)), _to_error)
    yield mux, Peer(right)
    mux.close()
    right.close()


def _to_error(err: Any, method: str) -> errors.OpError:
    return status.from_rpc_error(err, method)


class Step:
    """What a compiled step does: receives asked for in one pass, then waits for them."""

    def __init__(self) -> None:
        self.done: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
        self.waiter = inline_reads.open_waiter()
        self.cancels: list[Any] = []

    def ask(self, mux: RecvMux, keys: list[str]) -> None:
        box, previous = outbox.open_outbox()
        box.waiter = self.waiter
        try:
            for key in keys:
                self.cancels.append(mux.recv(1, key, self._callback))
        finally:
            outbox.close_outbox(box, previous)

    def _callback(self, value: Any, err: BaseException | None) -> None:
        self.done.put((threading.get_ident(), value, err))

    def wait(
        self, outstanding: int, timeout: float = 10.0
    ) -> tuple[int, Any, BaseException | None]:
        return self.waiter.wait(self.done, timeout, outstanding)

    def end(self) -> None:
        inline_reads.close_waiter(self.waiter)


def test_the_waiting_thread_reads_its_answers_and_no_reader_thread_starts(
    link: tuple[RecvMux, Peer],
) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a", "b"])
    reqs = peer.requests(2)
    values = {r.request_id: np.arange(3, dtype=np.float32) + r.request_id for r in reqs}

    def later() -> None:
        time.sleep(0.05)  # the step waits in its poll by then
        for rid, v in values.items():
            peer.answer(rid, v)

    threading.Thread(target=later).start()
    got = [step.wait(2), step.wait(1)]
    step.end()
    me = threading.get_ident()
    assert [g[0] for g in got] == [me, me]
    assert sorted(float(g[1][0]) for g in got) == sorted(float(v[0]) for v in values.values())
    assert mux._thread is None


def test_heartbeats_alone_do_not_end_the_wait(link: tuple[RecvMux, Peer]) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a"])
    (req,) = peer.requests(1)

    def later() -> None:
        for _ in range(4):
            peer.sock.sendall(wire.HEARTBEAT)  # more than the silence limit in all
            time.sleep(0.2)
        peer.answer(req.request_id, np.ones(2, np.int32))

    threading.Thread(target=later).start()
    who, value, err = step.wait(1)
    step.end()
    assert err is None and who == threading.get_ident()
    np.testing.assert_array_equal(value, [1, 1])


def test_a_silent_peer_fails_the_wait_after_its_silence_limit(link: tuple[RecvMux, Peer]) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a"])
    peer.requests(1)
    start = time.monotonic()
    _, _, err = step.wait(1)
    step.end()
    assert isinstance(err, errors.UnavailableError)
    assert "heartbeat" in err.message
    assert time.monotonic() - start < 5.0
    assert mux.broken


def test_a_peer_that_hangs_up_fails_the_wait(link: tuple[RecvMux, Peer]) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a"])
    peer.requests(1)
    peer.sock.shutdown(socket.SHUT_RDWR)
    _, _, err = step.wait(1)
    step.end()
    assert isinstance(err, errors.UnavailableError)


def test_a_receive_cancelled_by_another_thread_ends_the_wait_at_once(
    link: tuple[RecvMux, Peer],
) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a"])
    peer.requests(1)

    def cancel() -> None:
        time.sleep(0.1)
        step.cancels[0]()

    threading.Thread(target=cancel).start()
    mux._direct_call._wire.sock.settimeout(30.0)  # type: ignore[union-attr]
    start = time.monotonic()
    _, _, err = step.wait(1)
    step.end()
    assert isinstance(err, errors.CancelledError)
    assert time.monotonic() - start < 2.0


def test_answers_of_a_receive_made_outside_a_step_go_to_the_reader_thread(
    link: tuple[RecvMux, Peer],
) -> None:
    mux, peer = link
    got: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
    mux.recv(1, "a", lambda v, e: got.put((threading.get_ident(), v)))
    (req,) = peer.requests(1)
    peer.answer(req.request_id, np.zeros(1, np.float64))
    who, value = got.get(timeout=5.0)
    assert who != threading.get_ident() and value.shape == (1,)


def test_a_step_that_cannot_read_a_call_gets_its_answers_from_the_one_that_does(
    link: tuple[RecvMux, Peer],
) -> None:
    mux, peer = link
    first, second = Step(), Step()
    first.ask(mux, ["a"])
    assert mux.claim(first.waiter)  # the first step reads the call (it waits in its poll)
    results: dict[str, Any] = {}

    def second_step() -> None:
        second.waiter = inline_reads.open_waiter()
        second.ask(mux, ["b"])
        results["second"] = second.wait(1)
        second.end()

    t = threading.Thread(target=second_step)
    t.start()
    reqs = peer.requests(2)
    for r in reqs:
        peer.answer(r.request_id, np.full(1, r.request_id, np.int64))
    time.sleep(0.3)
    assert "second" not in results  # only the holder reads the call: the answer waits
    mux.release(first.waiter)  # others' answers are due: the reader thread takes over
    results["first"] = first.wait(1)
    first.end()
    t.join(5.0)
    assert results["first"][2] is None and results["second"][2] is None


def test_answers_left_unread_by_a_busy_step_are_read_within_seconds(
    link: tuple[RecvMux, Peer],
) -> None:
    """The peer's writer must not stall while the step that asked runs kernels for long."""
    mux, peer = link
    mux._direct_call._wire.sock.settimeout(None)  # type: ignore[union-attr]
    step = Step()
    step.ask(mux, ["a"])
    (req,) = peer.requests(1)
    peer.answer(req.request_id, np.ones(4, np.float32))
    who, _, err = step.done.get(timeout=5.0)  # never waits: busy; the guard steps in
    step.end()
    assert err is None and who != threading.get_ident()


def test_a_failed_step_hands_its_answers_to_the_reader_thread(
    link: tuple[RecvMux, Peer],
) -> None:
    mux, peer = link
    step = Step()
    step.ask(mux, ["a"])
    step.end()  # the pass ended (a kernel failed) with the answer still owed
    (req,) = peer.requests(1)
    peer.answer(req.request_id, np.ones(1, np.float32))
    who, _, err = step.done.get(timeout=5.0)
    assert err is None and who != threading.get_ident()
