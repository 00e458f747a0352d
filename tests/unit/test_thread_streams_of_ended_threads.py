"""ThreadStreams keeps one open call per thread and peer. A call whose thread has ended can
never be used again: it is closed when another thread opens one, so a peer does not keep a
connection (and, on direct streams, a thread) for every executor thread that ever called it.
A thread that is still alive keeps its call."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from tfcluster.rpc import streams


@pytest.fixture
def echo_method() -> Iterator[grpc.StreamStreamMultiCallable]:
    def echo(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        yield from requests

    server = grpc.server(ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "test.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
            ),
        )
    )
    port = server.add_insecure_port("localhost:0")
    server.start()
    channel = grpc.insecure_channel(f"localhost:{port}")
    try:
        yield channel.stream_stream("/test.Echo/Echo")
    finally:
        channel.close()
        server.stop(0)


def _stream_of_a_thread(ts: streams.ThreadStreams, done: threading.Event | None = None) -> Any:
    got: list[streams.CallStream] = []
    ready = threading.Event()

    def work() -> None:
        got.append(ts.get())
        ready.set()
        if done is not None:
            done.wait(10)

    t = threading.Thread(target=work, daemon=True)
    t.start()
    assert ready.wait(10)
    if done is None:
        t.join(10)
    return got[0], t


def test_the_call_of_an_ended_thread_is_closed_when_another_thread_opens_one(
    echo_method: grpc.StreamStreamMultiCallable,
) -> None:
    ts = streams.ThreadStreams(echo_method, wait_for_ready=True)
    old, thread = _stream_of_a_thread(ts)
    assert not thread.is_alive()
    # Held here as the per-thread state of an ended executor thread was seen to hold it.
    assert old.usable
    mine = ts.get()
    assert mine is not old and mine.usable
    assert not old.usable


def test_a_live_threads_call_stays_open(echo_method: grpc.StreamStreamMultiCallable) -> None:
    ts = streams.ThreadStreams(echo_method, wait_for_ready=True)
    done = threading.Event()
    try:
        theirs, thread = _stream_of_a_thread(ts, done)
        mine = ts.get()
        assert thread.is_alive()
        assert theirs.usable and mine.usable
        assert ts.get() is mine  # this thread's call again
    finally:
        done.set()
