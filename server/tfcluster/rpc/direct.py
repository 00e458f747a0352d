"""Direct streams: the master's and workers' streaming calls over a plain TCP connection.

A message on an open gRPC-Python stream costs about a hundred microseconds of CPU at each end
and hops between threads (gRPC's and ours); a step is two messages. Over a socket that the
calling thread writes and reads itself, the same exchange is a few system calls, and a large
tensor crosses with one copy at each end. gRPC stays the protocol of record: every method
exists there, a task says over gRPC where it serves direct streams (DirectService.Describe),
and a client uses gRPC whenever no direct connection can be made (a port that a Kubernetes
Service does not expose, a peer without direct streams, TFCLUSTER_DIRECT=0). Discovery runs
in the background, so a step never waits for it.

The wire, once connected:
  client: MAGIC, u8 length + method path, u8 length + the server's token
  server: a status frame: OK, or why not (then it hangs up)
  then messages both ways, each a u64 little-endian length and that many bytes, exactly the
  messages of the gRPC call. The client's half-close (shutting its write side) ends its
  requests. A length with the top bit set is the server's final status: u32 code, details.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn

import grpc
import numpy as np

from tfcluster.framework import errors
from tfcluster.protos import direct_service_pb2
from tfcluster.rpc import channels, status
from tfcluster.rpc import tensor_coding as coding

SERVICE_NAME = "tfcluster.DirectService"
DESCRIBE = f"/{SERVICE_NAME}/Describe"
MAGIC = b"TFCDIRECT1\n"
# The method a client names to check an endpoint: the server answers OK and hangs up.
PROBE = ""
_LEN = struct.Struct("<Q")
_CODE = struct.Struct("<I")
_STATUS_BIT = 1 << 63
# Messages up to this size are read through the socket's buffer and sent in one piece.
_SMALL = 64 << 10
_MAX_STATUS = 64 << 10
# A message may not make us reserve more than this (np.empty commits pages only as bytes come).
_MAX_MESSAGE = coding.MAX_PAYLOAD_BYTES + (64 << 20)
CONNECT_TIMEOUT = 2.0
# A client that connected must name its method within this time.
_HELLO_TIMEOUT = 10.0
_DESCRIBE_TIMEOUT = 10.0
_MAX_CONNECTIONS = 4096
# Buffers per sendmsg (Linux's IOV_MAX is 1024).
_IOV_MAX = 512

StreamHandler = Callable[[Iterator[Any], Any], Iterator[bytes]]


def enabled() -> bool:
    """TFCLUSTER_DIRECT=0 keeps every call on gRPC (read on every use: tests switch it)."""
    return os.environ.get("TFCLUSTER_DIRECT", "1") != "0"


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


def _lost(err: BaseException) -> DirectError:
    return DirectError(grpc.StatusCode.UNAVAILABLE, f"direct connection lost: {err}")


class Wire:
    """One connected socket: length-prefixed messages in and out."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        # A forked child shares this connection with its parent: it must never shut it down.
        self._pid = os.getpid()
        self._poller: select.poll | None = None
        self._reader: io.BufferedReader = sock.makefile("rb", buffering=_SMALL)  # type: ignore[assignment]

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
                _send_pieces(self.sock, pieces, size)
                pieces, size = [], 0
        if pieces:
            _send_pieces(self.sock, pieces, size)

    def write_status(self, code: int, details: str) -> None:
        body = _CODE.pack(code) + details.encode("utf-8", "replace")[: _MAX_STATUS - 4]
        self.sock.sendall(_LEN.pack(_STATUS_BIT | len(body)) + body)

    def read(self) -> Any:
        """The next message (bytes, or a writable buffer when large); None at a clean end.
        Raises DirectError for a status frame or a message cut short, OSError when the
        connection breaks."""
        n = self._frame_length()
        if n is None:
            return None
        if n > _MAX_MESSAGE:
            raise DirectError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"a message of {n} bytes is announced; this task accepts at most {_MAX_MESSAGE}",
            )
        if n <= _SMALL:
            return self._exact(n)
        view = np.empty(n, np.uint8).data
        self._fill(view)
        return view

    def read_payload_into(self, dest: memoryview) -> int:
        """Reads a continuation message (tensor bytes only) into `dest`; how many bytes."""
        n = self._frame_length()
        if n is None:
            raise _lost(EOFError("the peer hung up inside a message"))
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
        if self._reader.read(len(MAGIC)) != MAGIC:
            return None
        n = self._reader.read(1)
        method = self._reader.read(n[0]).decode("utf-8", "replace") if n else None
        k = self._reader.read(1)
        token = self._reader.read(k[0]) if k else None
        if method is None or token is None:
            return None
        return method, token

    def read_answer(self) -> DirectError | None:
        """The status a server answers a hello with (code OK: accepted); None if the peer
        does not speak direct streams."""
        head = self._reader.read(_LEN.size)
        (n,) = _LEN.unpack(head) if len(head) == _LEN.size else (0,)
        return self._status(n & ~_STATUS_BIT) if n & _STATUS_BIT else None

    def _frame_length(self) -> int | None:
        """The next frame's length; None at a clean end; a status frame raises its error."""
        head = self._reader.read(_LEN.size)
        if not head:
            return None
        if len(head) < _LEN.size:
            raise _lost(EOFError("the peer hung up inside a message"))
        (n,) = _LEN.unpack(head)
        if n & _STATUS_BIT:
            raise self._status(n & ~_STATUS_BIT)
        return int(n)

    def _exact(self, n: int) -> bytes:
        data = self._reader.read(n)
        if len(data) < n:
            raise _lost(EOFError("the peer hung up inside a message"))
        return data

    def _fill(self, view: memoryview) -> None:
        got = 0
        while got < len(view):
            k = self._reader.readinto(view[got:])
            if not k:
                raise _lost(EOFError("the peer hung up inside a message"))
            got += k

    def _status(self, size: int) -> DirectError:
        if size < _CODE.size or size > _MAX_STATUS:
            return DirectError(grpc.StatusCode.INTERNAL, "malformed status frame")
        body = self._reader.read(size)
        if len(body) < size:
            return _lost(EOFError("the peer hung up inside its status"))
        (code,) = _CODE.unpack_from(body)
        return DirectError(status.status_code(code), body[_CODE.size :].decode("utf-8", "replace"))

    def readable(self) -> bool:
        """Whether bytes (or the end) wait to be read: on an idle call, the peer hung up.
        (poll, not select: a busy process's descriptors go past select's 1024.)"""
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self.sock, select.POLLIN)
        try:
            return bool(self._poller.poll(0))
        except (OSError, ValueError):
            return True

    def shutdown(self, how: int = socket.SHUT_RDWR) -> None:
        if os.getpid() != self._pid:
            return  # the parent's connection (closing our descriptor is all we may do)
        with contextlib.suppress(OSError):
            self.sock.shutdown(how)

    def close(self) -> None:
        self.shutdown()
        with contextlib.suppress(OSError):
            self._reader.close()
        with contextlib.suppress(OSError):
            self.sock.close()


def _send_pieces(sock: socket.socket, pieces: list[Any], size: int) -> None:
    """sendall for several buffers (`size` bytes in all): sendmsg may take only part of them."""
    if size <= _SMALL:
        sock.sendall(b"".join(pieces))  # a small copy costs less than scatter-gather's upkeep
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


# ---- client ------------------------------------------------------------------------------
def connect(host: str, port: int, method: str, token: bytes, timeout: float) -> Wire:
    """A connection to `method`, accepted by the server: raises OSError or DirectError."""
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        path = method.encode()
        sock.sendall(MAGIC + bytes([len(path)]) + path + bytes([len(token)]) + token)
        wire = Wire(sock)
        answer = wire.read_answer()
        if answer is None:
            raise DirectError(grpc.StatusCode.UNAVAILABLE, f"no direct streams at port {port}")
        if answer.code() != grpc.StatusCode.OK:
            raise answer
        sock.settimeout(None)
        return wire
    except BaseException:
        with contextlib.suppress(OSError):
            sock.close()
        raise


class DirectCall:
    """The client's side of one direct call: what a gRPC stream-stream call offers."""

    def __init__(self, wire: Wire) -> None:
        self._wire = wire
        self._send_lock = threading.Lock()
        self._cancelled = False
        self._ended = False

    def send(self, messages: Iterable[Any]) -> None:
        with self._send_lock:
            try:
                self._wire.write(messages)
            except OSError as e:
                self._ended = True
                raise self._failure(e) from None

    def __iter__(self) -> DirectCall:
        return self

    def __next__(self) -> Any:
        msg = self._reading(self._wire.read)
        if msg is None:
            self._ended = True
            if self._cancelled:
                raise self._failure(None)
            raise StopIteration
        return msg

    def read_payload_into(self, dest: memoryview) -> int:
        """The next message's tensor bytes, read into `dest` (see tensor_coding.read_frame)."""
        return int(self._reading(lambda: self._wire.read_payload_into(dest)))

    def _reading(self, read: Callable[[], Any]) -> Any:
        """`read()`; a failure ends the call and reads as a failed gRPC call."""
        try:
            return read()
        except DirectError:
            self._ended = True
            raise
        except (OSError, ValueError) as e:
            self._ended = True
            raise self._failure(e) from None

    def _failure(self, err: BaseException | None) -> DirectError:
        if self._cancelled:
            return DirectError(grpc.StatusCode.CANCELLED, "the call was cancelled")
        return _lost(err or EOFError())

    def is_active(self) -> bool:
        return not (self._ended or self._cancelled or self._wire.readable())

    def half_close(self) -> None:
        self._wire.shutdown(socket.SHUT_WR)

    def cancel(self) -> None:
        self._cancelled = True
        self._wire.shutdown()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._wire.close()


class Link:
    """What this process knows of one peer's direct endpoint, found over gRPC."""

    def __init__(self, address: str) -> None:
        host, _, _ = address.rpartition(":")
        self.address = address
        self.host = host.strip("[]") or "localhost"
        self._endpoint: tuple[int, bytes] | None = None
        self._lock = threading.Lock()
        self._probing = False
        self._retry_at = 0.0
        self._backoff = 0.5

    @property
    def ready(self) -> bool:
        return self._endpoint is not None

    def open(self, method: str) -> DirectCall | None:
        """A direct call to `method`, or None (use gRPC; a probe may start meanwhile)."""
        endpoint = self._endpoint
        if endpoint is None:
            self.probe()
            return None
        try:
            wire = connect(self.host, endpoint[0], method, endpoint[1], CONNECT_TIMEOUT)
        except (OSError, grpc.RpcError):
            with self._lock:
                if self._endpoint == endpoint:
                    self._endpoint = None  # the peer restarted or left: ask it again
            self.probe()
            return None
        return DirectCall(wire)

    def probe(self) -> None:
        """Asks the peer for its endpoint in the background (unless asked lately)."""
        if self._probing or time.monotonic() < self._retry_at or not enabled():
            return
        with self._lock:
            if self._probing:
                return
            self._probing = True
        threading.Thread(target=self._probe, name="direct-probe", daemon=True).start()

    def _probe(self) -> None:
        endpoint: tuple[int, bytes] | None = None
        try:
            describe = channels.shared_channel(self.address).unary_unary(
                DESCRIBE,
                request_serializer=status.passthrough,
                response_deserializer=status.passthrough,
                _registered_method=True,
            )
            data = describe(b"", timeout=_DESCRIBE_TIMEOUT, wait_for_ready=True)
            found = direct_service_pb2.DirectEndpoint.FromString(data)
            if found.port > 0:
                connect(self.host, found.port, PROBE, found.token, CONNECT_TIMEOUT).close()
                endpoint = (found.port, found.token)
        except Exception:
            endpoint = None
        with self._lock:
            self._endpoint = endpoint
            if endpoint is None:
                self._retry_at = time.monotonic() + self._backoff
                self._backoff = min(self._backoff * 2, 30.0)
            else:
                self._backoff = 0.5
            self._probing = False


_links_lock = threading.Lock()
_links: dict[str, Link] = {}


def link(address: str) -> Link:
    """One Link per peer address and process."""
    found = _links.get(address)
    if found is not None:
        return found
    with _links_lock:
        return _links.setdefault(address, Link(address))


# ---- server ------------------------------------------------------------------------------
class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class DirectContext:
    """What the servicers use of a grpc.ServicerContext, for a direct call."""

    def __init__(self, wire: Wire, peer: str) -> None:
        self._wire = wire
        self._write_lock = threading.Lock()
        self._peer = peer
        self._active = True
        self._code: grpc.StatusCode | None = None
        self._callbacks: list[Callable[[], Any]] = []

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        self._code = code
        raise _Aborted(code, details)

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def write(self, messages: Iterable[Any]) -> None:
        """Sends response messages from any thread (the handler's yields come here too)."""
        with self._write_lock:
            self._wire.write(messages)

    def write_status(self, code: int, details: str) -> None:
        with self._write_lock:
            self._wire.write_status(code, details)

    def cancel(self) -> None:
        self._active = False
        self._wire.shutdown()

    def is_active(self) -> bool:
        return self._active

    def time_remaining(self) -> float | None:
        return None

    def add_callback(self, callback: Callable[[], Any]) -> bool:
        self._callbacks.append(callback)
        return True

    def peer(self) -> str:
        return self._peer

    def finish(self) -> None:
        self._active = False
        for callback in self._callbacks:
            with contextlib.suppress(Exception):
                callback()


def is_direct(context: Any) -> bool:
    """Whether a servicer's call came over a direct connection."""
    return isinstance(context, DirectContext)


def _requests(wire: Wire) -> Iterator[Any]:
    """The client's messages until its half-close; a broken connection or a status frame
    from the client raises (as gRPC raises RpcError for a failed request stream)."""
    while True:
        try:
            msg = wire.read()
        except (OSError, ValueError) as e:
            raise _lost(e) from None
        if msg is None:
            return
        yield msg


class DirectServer:
    """Serves the given stream handlers (the gRPC servicers' own) on one TCP port."""

    def __init__(self, handlers: Mapping[str, StreamHandler], name: str = "") -> None:
        self._handlers = dict(handlers)
        self._name = name
        self.token = secrets.token_bytes(16)
        self.port = 0
        self._listener: socket.socket | None = None
        self._lock = threading.Lock()
        self._live: set[DirectContext] = set()
        self._stopped = False
        # Calls accepted for a method (probes and refused connections are not counted).
        self.calls_served = 0

    def start(self, port: int = 0) -> int:
        """Listens on every interface; the port bound."""
        self._listener = _listen(port)
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, name=f"direct-{self._name}", daemon=True).start()
        return self.port

    def describe(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        return direct_service_pb2.DirectEndpoint(
            port=0 if self._stopped or not enabled() else self.port, token=self.token
        ).SerializeToString()

    def method_handlers(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE_NAME, {"Describe": status.unary(self.describe)}
        )

    def stop(self) -> None:
        """Stops accepting, ends the calls waiting for a request, and lets running ones
        finish (their connections close when they answer)."""
        with self._lock:
            self._stopped = True
            listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                listener.close()

    def close_all(self) -> None:
        """Ends every connection now."""
        with self._lock:
            live = list(self._live)
        for context in live:
            context.cancel()

    def _accept(self) -> None:
        while True:
            listener = self._listener
            if listener is None:
                return
            try:
                sock, peer = listener.accept()
            except OSError:
                if self._listener is None:
                    return
                time.sleep(0.01)  # out of file descriptors, say: try again
                continue
            with self._lock:
                crowded = len(self._live) >= _MAX_CONNECTIONS
            if crowded or self._stopped:
                with contextlib.suppress(OSError):
                    sock.close()
                continue
            threading.Thread(
                target=self._serve, args=(sock, str(peer)), name="direct-call", daemon=True
            ).start()

    def _serve(self, sock: socket.socket, peer: str) -> None:
        wire = Wire(sock)
        context = DirectContext(wire, peer)
        with self._lock:
            self._live.add(context)
        try:
            handler = self._hello(wire, sock)
            if handler is not None:
                self._run(handler, wire, context)
        except (OSError, ValueError, DirectError):
            pass  # the client went away, or sent something that is not our protocol
        finally:
            with self._lock:
                self._live.discard(context)
            context.finish()
            wire.close()

    def _hello(self, wire: Wire, sock: socket.socket) -> StreamHandler | None:
        sock.settimeout(_HELLO_TIMEOUT)
        hello = wire.read_hello()
        if hello is None:
            return None
        method, token = hello
        sock.settimeout(None)
        if token != self.token:
            wire.write_status(
                grpc.StatusCode.FAILED_PRECONDITION.value[0],
                "this is another server instance than the one that gave the endpoint",
            )
            return None
        if method == PROBE:
            wire.write_status(0, "")
            return None
        handler = self._handlers.get(method)
        if handler is None:
            wire.write_status(
                grpc.StatusCode.UNIMPLEMENTED.value[0], f"no direct stream for method {method!r}"
            )
            return None
        wire.write_status(0, "")
        with self._lock:
            self.calls_served += 1
        return handler

    def _run(self, handler: StreamHandler, wire: Wire, context: DirectContext) -> None:
        try:
            for msg in handler(_requests(wire), context):
                context.write((msg,))
        except _Aborted as e:
            context.write_status(e.code.value[0], e.details)
        except (OSError, grpc.RpcError):
            return
        except Exception as e:
            op_err = status.as_op_error(e)
            context.write_status(op_err.error_code, op_err.message)


def _listen(port: int) -> socket.socket:
    try:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        host = "::"
    except OSError:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        host = "0.0.0.0"
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock
