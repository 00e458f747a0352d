"""Direct streams' wire: the hello, the status frames and length-prefixed messages on one
connected socket (the protocol is described in rpc/direct/__init__.py)."""

from __future__ import annotations

import contextlib
import io
import os
import select
import socket
import struct
from collections.abc import Iterable
from typing import Any

import grpc
import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.rpc import status
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.tls_socket import TLSSocket

SERVICE_NAME = "tfcluster.DirectService"
# The gRPC method through which a task says where it serves direct streams.
DESCRIBE = f"/{SERVICE_NAME}/Describe"
# Version 2 has heartbeats: peers of version 1 refuse each other and use gRPC.
MAGIC = b"TFCDIRECT2\n"
# The method a client names to check an endpoint: the server answers OK and hangs up.
PROBE = ""
_LEN = struct.Struct("<Q")
_CODE = struct.Struct("<I")
_STATUS_BIT = 1 << 63
# A frame with only this bit set is a heartbeat: the server is alive (it carries nothing).
_HEARTBEAT_BIT = 1 << 62
HEARTBEAT = _LEN.pack(_HEARTBEAT_BIT)
# A client takes a server that sent nothing (not even a heartbeat) for this many of its
# heartbeat intervals for frozen or unreachable.
HEARTBEATS_MISSED = 3
# What Wire.read(stop_at_heartbeat=True) returns for a heartbeat.
HEARTBEAT_ONLY = object()
# A frame with only this bit set ends the client's requests. A plain connection says the same
# by shutting its write side; a TLS connection cannot (its records would be cut off).
_END_BIT = 1 << 61
END_OF_REQUESTS = _LEN.pack(_END_BIT)
# A length header with none of these bits set is a message's.
_CONTROL_BITS = _STATUS_BIT | _HEARTBEAT_BIT | _END_BIT
# Messages up to this size are read through the socket's buffer and sent in one piece.
_SMALL = 64 << 10
_MAX_STATUS = 64 << 10
# A message may not make us reserve more than this (np.empty commits pages only as bytes come).
_MAX_MESSAGE = coding.MAX_PAYLOAD_BYTES + (64 << 20)
# Buffers per sendmsg (Linux's IOV_MAX is 1024).
_IOV_MAX = 512


class DirectError(grpc.RpcError):
    """A direct call failed: reads like a failed gRPC call, so callers handle both alike."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


def lost(err: BaseException) -> DirectError:
    if isinstance(err, TimeoutError):
        return DirectError(
            grpc.StatusCode.UNAVAILABLE,
            "direct connection lost: the peer sent nothing, not even a heartbeat, for "
            f"{HEARTBEATS_MISSED} of its heartbeat intervals (it is frozen or unreachable)",
        )
    return DirectError(grpc.StatusCode.UNAVAILABLE, f"direct connection lost: {err}")


class Wire:
    """One connected socket: length-prefixed messages in and out."""

    def __init__(self, sock: socket.socket | TLSSocket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock: Any = sock
        self.tls = isinstance(sock, TLSSocket)
        self._raw: socket.socket = sock.raw if isinstance(sock, TLSSocket) else sock
        # A forked child shares this connection with its parent: it must never shut it down.
        self._pid = os.getpid()
        self._poller: select.poll | None = None
        # On a plain socket the raw stream counts the bytes it took, and the reads below the
        # bytes they used: what is left is buffered here, readable without a system call.
        self._counted: _CountedIO | None = None
        if self.tls:
            self._reader: io.BufferedReader = sock.makefile("rb", buffering=_SMALL)  # type: ignore[assignment]
        else:
            self._counted = _CountedIO(self._raw)
            self._reader = io.BufferedReader(self._counted, _SMALL)
        self._used = 0

    def write(self, messages: Iterable[Any]) -> None:
        """Writes messages scatter-gather: small ones go out together in one system call, and
        a big one held as Pieces goes out as it is, with no copy into one buffer first."""
        pieces: list[Any] = []
        size = 0
        for msg in messages:
            parts = msg if isinstance(msg, coding.Pieces) else (msg,)
            n = sum(memoryview(p).nbytes for p in parts)
            pieces += (_LEN.pack(n), *parts)
            size += _LEN.size + n
            if size >= _SMALL or len(pieces) >= _IOV_MAX:
                _send_pieces(self.sock, pieces, size, self.tls)
                pieces, size = [], 0
        if pieces:
            _send_pieces(self.sock, pieces, size, self.tls)

    def write_status(self, code: int, details: str) -> None:
        body = _CODE.pack(code) + details.encode("utf-8", "replace")[: _MAX_STATUS - 4]
        self.sock.sendall(_LEN.pack(_STATUS_BIT | len(body)) + body)

    def read(self, stop_at_heartbeat: bool = False) -> Any:
        """The next message (bytes, or a writable buffer when large); None at a clean end.
        Raises DirectError for a status frame or a message cut short, OSError when the
        connection breaks. `stop_at_heartbeat`: HEARTBEAT_ONLY after reading a heartbeat,
        rather than waiting for what comes next."""
        n = self._frame_length(stop_at_heartbeat)
        if n is None:
            return None
        if n < 0:
            return HEARTBEAT_ONLY
        if n > _MAX_MESSAGE:
            raise DirectError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"a message of {n} bytes is announced; this task accepts at most {_MAX_MESSAGE}",
            )
        if n <= _SMALL:
            return self._exact(n)
        memory_budget.check(n, "a message")
        view = np.empty(n, np.uint8).data
        self._fill(view)
        return view

    def read_payload_into(self, dest: memoryview) -> int:
        """Reads a continuation message (tensor bytes only) into `dest`; how many bytes."""
        n = self._frame_length()
        if n is None:
            raise lost(EOFError("the peer hung up inside a message"))
        if self._exact(1)[0] != coding.PAYLOAD_TAG:
            raise errors.InvalidArgumentError(
                None, None, "A continuation message of a stream may only carry tensor_payload"
            )
        varint = bytearray(self._exact(1))
        while varint[-1] & 0x80 and len(varint) <= 10:
            varint += self._exact(1)
        length, used = coding.read_varint(memoryview(varint), 0)
        if 1 + used + length != n or not length:
            raise errors.InvalidArgumentError(
                None, None, "A continuation message of a stream may only carry tensor_payload"
            )
        if length > len(dest):
            raise errors.InvalidArgumentError(
                None, None, "Message stream carries more than the payload bytes declared"
            )
        self._fill(dest[:length])
        return length

    def read_hello(self) -> tuple[str, bytes] | None:
        """(method, token) of a client's hello; None if it is not our protocol."""
        if self._take(len(MAGIC)) != MAGIC:
            return None
        n = self._take(1)
        method = self._take(n[0]).decode("utf-8", "replace") if n else None
        k = self._take(1)
        token = self._take(k[0]) if k else None
        if method is None or token is None:
            return None
        return method, token

    def read_answer(self) -> DirectError | None:
        """The status a server answers a hello with (code OK: accepted); None if the peer
        does not speak direct streams."""
        head = self._take(_LEN.size)
        (n,) = _LEN.unpack(head) if len(head) == _LEN.size else (0,)
        return self._status(n & ~_STATUS_BIT) if n & _STATUS_BIT else None

    def _frame_length(self, stop_at_heartbeat: bool = False) -> int | None:
        """The next frame's length; None at a clean end (or the client's end of requests);
        a status frame raises its error; heartbeats are skipped (-1 for the first one with
        `stop_at_heartbeat`)."""
        head = self._take(_LEN.size)
        while head == HEARTBEAT:
            if stop_at_heartbeat:
                return -1
            head = self._take(_LEN.size)
        if not head or head == END_OF_REQUESTS:
            return None
        if len(head) < _LEN.size:
            raise lost(EOFError("the peer hung up inside a message"))
        (n,) = _LEN.unpack(head)
        if n & _STATUS_BIT:
            raise self._status(n & ~_STATUS_BIT)
        return int(n)

    def _take(self, n: int) -> bytes:
        """Up to n bytes (fewer only at the end), counted as used."""
        data = self._reader.read(n)
        self._used += len(data)
        return data

    def buffered(self) -> bool:
        """Whether bytes read off the socket wait in this process's buffer (a poll of the
        socket does not see them). False where it cannot tell (TLS)."""
        return self._counted is not None and self._counted.taken > self._used

    def frame_buffered(self) -> bool:
        """Whether a whole message is buffered here already, so that reading it makes no
        system call (a reader may then finish its work on the message before it writes).
        False where it cannot tell (TLS) and for heartbeats, statuses and the end."""
        if self._counted is None:
            return False
        have = self._counted.taken - self._used
        if have < _LEN.size:
            return False
        (n,) = _LEN.unpack(self._reader.peek(_LEN.size)[: _LEN.size])
        return not n & _CONTROL_BITS and have >= _LEN.size + n

    def _exact(self, n: int) -> bytes:
        data = self._take(n)
        if len(data) < n:
            raise lost(EOFError("the peer hung up inside a message"))
        return data

    def _fill(self, view: memoryview) -> None:
        got = 0
        while got < len(view):
            k = self._reader.readinto(view[got:])
            self._used += k or 0
            if not k:
                raise lost(EOFError("the peer hung up inside a message"))
            got += k

    def _status(self, size: int) -> DirectError:
        if size < _CODE.size or size > _MAX_STATUS:
            return DirectError(grpc.StatusCode.INTERNAL, "malformed status frame")
        body = self._take(size)
        if len(body) < size:
            return lost(EOFError("the peer hung up inside its status"))
        (code,) = _CODE.unpack_from(body)
        return DirectError(status.status_code(code), body[_CODE.size :].decode("utf-8", "replace"))

    def readable(self) -> bool:
        """Whether bytes (or the end) wait to be read: on an idle call, the peer hung up.
        (poll, not select: a busy process's descriptors go past select's 1024.)"""
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self.sock, select.POLLIN)
        try:
            if self.tls and self.sock.pending():
                return True  # bytes wait in the TLS layer
            return bool(self._poller.poll(0))
        except (OSError, ValueError):
            return True

    def message_waiting(self) -> bool:
        """Whether a frame other than heartbeats (or the end, or a broken connection) waits
        to be read, so that a read would not block; never blocks itself. Heartbeats waiting
        are consumed. Plain connections only (TLS buffers bytes of its own)."""
        sock = self.sock
        timeout = sock.gettimeout()
        sock.settimeout(0.0)  # the buffered reader's peek reads what is there, no more
        try:
            while True:
                head = self._reader.peek(_LEN.size)[: _LEN.size]
                if head == HEARTBEAT:
                    self._take(_LEN.size)
                    continue
                if head:
                    return not HEARTBEAT.startswith(head)  # else half a heartbeat came
                return self.readable()  # nothing buffered: readable now means the end
        except OSError:
            return True  # the read fails at once
        finally:
            sock.settimeout(timeout)

    def fileno(self) -> int:
        return int(self._raw.fileno())

    def end_requests(self) -> None:
        """The client's half-close: it sends no more requests."""
        if self.tls:
            self.sock.sendall(END_OF_REQUESTS)
        else:
            self.shutdown(socket.SHUT_WR)

    def heartbeat(self) -> None:
        """Writes a heartbeat unless the socket's buffer is full (then the peer has bytes to
        read anyway, or is not reading: a heartbeat would not help). The caller holds the
        write lock. Raises OSError when the peer is gone."""
        if self.tls:
            # TLS cannot send part of a record: only when there is room (a heartbeat's
            # record is a few dozen bytes).
            room = select.poll()  # not select(): descriptors may be past 1024
            room.register(self.sock, select.POLLOUT)
            if room.poll(0):
                self.sock.sendall(HEARTBEAT)
            return
        try:
            sent = self.sock.send(HEARTBEAT, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        if 0 < sent < len(HEARTBEAT):
            self.sock.sendall(HEARTBEAT[sent:])  # never leave half a frame behind

    def idle_and_alive(self) -> bool:
        """On an idle call (no response awaited): consumes the heartbeats waiting; False if
        anything else waits (the peer's end, a status, a stray message)."""
        while self.readable():
            head = self._reader.peek(_LEN.size)[: _LEN.size]
            if head != HEARTBEAT:
                return len(head) < _LEN.size and HEARTBEAT.startswith(head) and head != b""
            self._take(_LEN.size)
        return True

    def shutdown(self, how: int = socket.SHUT_RDWR) -> None:
        if os.getpid() != self._pid:
            return  # the parent's connection (closing our descriptor is all we may do)
        with contextlib.suppress(OSError):
            self._raw.shutdown(how)

    def close(self) -> None:
        self.shutdown()
        with contextlib.suppress(OSError):
            self._reader.close()
        with contextlib.suppress(OSError):
            self.sock.close()


class _CountedIO(socket.SocketIO):
    """A socket's raw reading stream that counts the bytes it has taken from the socket."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(sock, "rb")
        self.taken = 0

    def readinto(self, b: Any) -> int | None:
        n = super().readinto(b)
        if n:
            self.taken += n
        return n


def _send_pieces(sock: socket.socket, pieces: list[Any], size: int, tls: bool = False) -> None:
    """sendall for several buffers (`size` bytes in all): sendmsg may take only part of them."""
    if size <= _SMALL:
        sock.sendall(b"".join(pieces))  # a small copy costs less than scatter-gather's upkeep
        return
    if tls:
        _send_tls(sock, pieces)
        return
    views = [memoryview(p).cast("B") for p in pieces]
    while views:
        sent = sock.sendmsg(views[:_IOV_MAX])
        while sent:
            if sent >= len(views[0]):
                sent -= len(views.pop(0))
            else:
                views[0] = views[0][sent:]
                sent = 0
        while views and not len(views[0]):
            views.pop(0)


def _send_tls(sock: socket.socket, pieces: list[Any]) -> None:
    """TLS has no scatter-gather: small pieces go together, a big one is encrypted from where
    it lies (records of 16 KiB, no copy into one buffer first)."""
    small: list[Any] = []
    for piece in pieces:
        view = memoryview(piece).cast("B")
        if view.nbytes <= _SMALL:
            small.append(view)
            continue
        if small:
            sock.sendall(b"".join(small))
            small = []
        sock.sendall(view)
    if small:
        sock.sendall(b"".join(small))
