"""Direct RecvTensors: requests that come in one piece are answered in one write.

A step's peer asks for all of its tensors at once. The serving thread knows (Wire.frame_buffered)
which requests it can read without waiting, and holds the answers it has until it has read them
all; one write per answer would hand the process's lock to the step's thread each time."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from tfcluster.distributed.worker import Worker
from tfcluster.protos import worker_pb2
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc import worker_service
from tfcluster.rpc.direct import client as direct
from tfcluster.rpc.direct import server as direct_server
from tfcluster.rpc.direct import wire

_LEN = struct.Struct("<Q")


def _frame(body: bytes) -> bytes:
    return _LEN.pack(len(body)) + body


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, wire.Wire]]:
    listener = socket.create_server(("127.0.0.1", 0))
    left = socket.create_connection(listener.getsockname())
    right, _ = listener.accept()
    listener.close()
    yield left, wire.Wire(right)
    left.close()
    right.close()


def test_a_whole_message_in_the_buffer_is_known_without_reading(
    pair: tuple[socket.socket, wire.Wire],
) -> None:
    left, incoming = pair
    assert not incoming.frame_buffered()  # nothing came yet
    second = b"y" * 300
    left.sendall(_frame(b"first") + _frame(second) + _frame(b"third")[:6])
    assert bytes(incoming.read()) == b"first"
    assert incoming.frame_buffered()  # the second came with it
    assert bytes(incoming.read()) == second
    assert not incoming.frame_buffered()  # only part of the third is here
    left.sendall(_frame(b"third")[6:])
    assert bytes(incoming.read()) == b"third"
    assert not incoming.frame_buffered()


def test_heartbeats_and_the_end_are_not_messages_waiting(
    pair: tuple[socket.socket, wire.Wire],
) -> None:
    left, incoming = pair
    left.sendall(_frame(b"a") + wire.HEARTBEAT + _frame(b"b") + wire.END_OF_REQUESTS)
    assert bytes(incoming.read()) == b"a"
    assert not incoming.frame_buffered()  # a heartbeat first: reading skips it, may wait
    assert bytes(incoming.read()) == b"b"
    assert not incoming.frame_buffered()
    assert incoming.read() is None


def test_a_large_message_read_past_the_buffer_keeps_the_count(
    pair: tuple[socket.socket, wire.Wire],
) -> None:
    left, incoming = pair
    big = bytes(range(256)) * 1024  # 256 KiB: read straight into its own array
    left.sendall(_frame(big) + _frame(b"after"))
    assert bytes(incoming.read()) == big
    assert bytes(incoming.read()) == b"after"
    assert not incoming.frame_buffered()  # every byte taken was used
    left.sendall(_frame(b"one") + _frame(b"two"))
    assert bytes(incoming.read()) == b"one"
    assert incoming.frame_buffered()
    assert bytes(incoming.read()) == b"two"
    assert not incoming.frame_buffered()


def _key(i: int) -> str:
    return f"/job:w/replica:0/task:0/device:CPU:0;/job:ps/replica:0/task:0/device:CPU:0;t{i}:0"


def test_answers_to_requests_that_came_together_go_out_in_one_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    worker = Worker("/job:w/replica:0/task:0")
    servicer = worker_service.WorkerServicer(worker)
    served = direct_server.DirectServer(worker_service.direct_handlers(servicer), name="t")
    port = served.start(host="127.0.0.1")
    writes: list[int] = []
    write = direct_server.DirectContext.write

    def counted(self: Any, messages: Any) -> None:
        messages = list(messages)
        writes.append(len(messages))
        write(self, messages)

    monkeypatch.setattr(direct_server.DirectContext, "write", counted)
    step = 7
    values = [np.arange(i + 3, dtype=np.float32) * (i + 1) for i in range(3)]
    table = worker.rendezvous.find_or_create(step)
    for i, v in enumerate(values):
        table.send(_key(i), v)  # sent before anyone asks, as a step's ids usually are
    try:
        call = direct.DirectCall(
            direct.connect(
                "127.0.0.1",
                port,
                "/tfcluster.WorkerService/RecvTensors",
                served.token,
                5.0,
            )
        )
        requests = [
            worker_pb2.RecvTensorRequest(
                step_id=step, rendezvous_key=_key(i), request_id=i + 1
            ).SerializeToString()
            for i in range(3)
        ]
        call.send(iter(requests))  # one write: they arrive together
        got = {}
        for _ in requests:
            frame = coding.read_frame(
                call,
                lambda d: worker_pb2.RecvTensorResponse.FromString(bytes(d)),
                lambda r: [r.tensor],
            )
            assert frame is not None
            resp, payload = frame
            assert resp.status_code == 0
            got[resp.request_id] = coding.decode([resp.tensor], payload)[0]
        for i, v in enumerate(values):
            np.testing.assert_array_equal(got[i + 1], v)
        assert writes == [3]  # the three answers, in one write
        # A request for a tensor not sent yet is answered by the thread that sends it.
        later = worker_pb2.RecvTensorRequest(step_id=step, rendezvous_key=_key(9), request_id=10)
        call.send(iter([later.SerializeToString()]))
        table.send(_key(9), np.float32(5.0))
        frame = coding.read_frame(
            call,
            lambda d: worker_pb2.RecvTensorResponse.FromString(bytes(d)),
            lambda r: [r.tensor],
        )
        assert frame is not None and frame[0].request_id == 10
        assert coding.decode([frame[0].tensor], frame[1])[0] == np.float32(5.0)
        call.half_close()
        assert next(call, None) is None  # every request answered: the call ends
    finally:
        served.stop()
        served.close_all()
        worker.close()
