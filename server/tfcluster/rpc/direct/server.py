"""Direct streams, the serving side: a DirectServer runs the gRPC servicers' own stream
handlers for connections on its port, each call with a DirectContext in place of gRPC's."""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn

import grpc

from tfcluster.protos import direct_service_pb2
from tfcluster.rpc import shm, status, tls
from tfcluster.rpc.direct.tls_socket import TLSSocket
from tfcluster.rpc.direct.wire import (
    HEARTBEATS_MISSED,
    PROBE,
    SERVICE_NAME,
    DirectError,
    Wire,
    lost,
)
from tfcluster.settings import environment

# A client that connected must name its method within this time.
_HELLO_TIMEOUT = 10.0
_MAX_CONNECTIONS = 4096
# How often a server writes a heartbeat on every connection, by default (seconds): a client
# gives up a server silent for wire.HEARTBEATS_MISSED of them, as gRPC's keepalive would.
DEFAULT_HEARTBEAT = 10.0
# A refused TLS peer is logged at most this often (seconds) per host and reason.
_REFUSAL_LOG_INTERVAL = 60.0

log = logging.getLogger("tfcluster.server")

StreamHandler = Callable[[Iterator[Any], Any], Iterator[bytes]]


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
        self._callbacks_lock = threading.Lock()
        self._ended = False
        # Past the hello: the call gets heartbeats.
        self.accepted = False
        # Over TLS: big tensors to a peer on this host are cheaper through /dev/shm.
        self.encrypted = wire.tls

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        self._code = code
        raise _Aborted(code, details)

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def request_waiting(self) -> bool:
        """Whether the client's next message is here whole (reading it will not wait). Only
        the thread that reads the requests may ask."""
        return self._wire.frame_buffered()

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
        """Runs `callback` when the call ends (the client hung up, or the handler returned),
        as gRPC does; False if it has ended already."""
        with self._callbacks_lock:
            if self._ended:
                return False
            self._callbacks.append(callback)
        return True

    def peer(self) -> str:
        return self._peer

    def beat(self) -> None:
        """A heartbeat, unless a response is being written (that is a sign of life too).
        A client that has gone (its process died: the write fails) ends the call, so that
        its step is cancelled. (A client's end of stream only says it sends no more.)"""
        if not self._write_lock.acquire(blocking=False):
            return
        try:
            self._wire.heartbeat()
            gone = False
        except OSError:
            gone = True
        finally:
            self._write_lock.release()
        if gone:
            self.finish()

    def finish(self) -> None:
        """The call ended: its callbacks run, once."""
        self._active = False
        with self._callbacks_lock:
            if self._ended:
                return
            self._ended = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()


def is_direct(context: Any) -> bool:
    """Whether a servicer's call came over a direct connection."""
    return isinstance(context, DirectContext)


def shm_min(context: Any) -> int:
    """The smallest tensor a servicer's answers put in /dev/shm (for a peer that shares it):
    smaller on a TLS direct connection (rpc/shm.py says why)."""
    return shm.min_size(isinstance(context, DirectContext) and context.encrypted)


def _requests(wire: Wire) -> Iterator[Any]:
    """The client's messages until its half-close; a broken connection or a status frame
    from the client raises (as gRPC raises RpcError for a failed request stream)."""
    while True:
        try:
            msg = wire.read()
        except (OSError, ValueError) as e:
            raise lost(e) from None
        if msg is None:
            return
        yield msg


class DirectServer:
    """Serves the given stream handlers (the gRPC servicers' own) on one TCP port."""

    def __init__(
        self,
        handlers: Mapping[str, StreamHandler],
        name: str = "",
        heartbeat: float = DEFAULT_HEARTBEAT,
        tls_source: tls.TLSSource | None = None,
    ) -> None:
        """`heartbeat`: seconds between the heartbeats written on every connection.
        `tls_source`: mutual TLS, clients must show a certificate from its CA."""
        if not heartbeat > 0:
            raise ValueError(f"the heartbeat interval must be positive, got {heartbeat}")
        self.heartbeat = heartbeat
        self._tls = tls_source
        self._refusals: dict[tuple[str, str], float] = {}
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

    def start(self, port: int = 0, host: str = "") -> int:
        """Listens on `host` (''; every interface); the port bound."""
        self._listener = _listen(port, host)
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, name=f"direct-{self._name}", daemon=True).start()
        threading.Thread(
            target=self._beat, name=f"direct-heartbeat-{self._name}", daemon=True
        ).start()
        return self.port

    def _beat(self) -> None:
        while self._listener is not None or self._live:
            time.sleep(self.heartbeat)
            with self._lock:
                live = [c for c in self._live if c.accepted]
            for context in live:
                context.beat()

    def describe(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        return direct_service_pb2.DirectEndpoint(
            port=0 if self._stopped or not environment.direct_streams_enabled() else self.port,
            token=self.token,
            heartbeat_ms=max(1, round(self.heartbeat * 1000)),
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
        conn: socket.socket | TLSSocket = sock
        if self._tls is not None:
            secured = self._handshake(sock, peer)
            if secured is None:
                return
            conn = secured
        wire = Wire(conn)
        context = DirectContext(wire, peer)
        with self._lock:
            self._live.add(context)
        try:
            handler = self._hello(wire, sock)
            if handler is not None:
                # A client that stops reading must not hold this thread forever.
                _send_timeout(sock, HEARTBEATS_MISSED * self.heartbeat)
                context.accepted = True
                self._run(handler, wire, context)
        except (OSError, ValueError, DirectError):
            pass  # the client went away, or sent something that is not our protocol
        finally:
            with self._lock:
                self._live.discard(context)
            context.finish()
            wire.close()

    def _handshake(self, sock: socket.socket, peer: str) -> TLSSocket | None:
        """The TLS handshake (in the connection's own thread: a slow peer holds up no one);
        None, logged, when the peer has no certificate from the cluster's CA."""
        assert self._tls is not None
        try:
            sock.settimeout(_HELLO_TIMEOUT)
            secured = TLSSocket(sock, self._tls.current().server_context, server_side=True)
            secured.handshake()
            return secured
        except (OSError, ValueError) as e:
            reason = getattr(e, "reason", None) or str(e) or type(e).__name__
            self._log_refusal(peer, str(reason))
            with contextlib.suppress(OSError):
                sock.close()
            return None

    def _log_refusal(self, peer: str, reason: str) -> None:
        host = peer.rsplit(",", 1)[0]
        now = time.monotonic()
        if now - self._refusals.get((host, reason), -_REFUSAL_LOG_INTERVAL) < (
            _REFUSAL_LOG_INTERVAL
        ):
            return
        self._refusals[(host, reason)] = now
        if len(self._refusals) > 1024:
            self._refusals.clear()
        log.warning(
            "task %s refused a direct connection from %s: TLS handshake failed (%s); peers "
            "need a certificate from this cluster's CA",
            self._name,
            peer,
            reason,
        )

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


def _send_timeout(sock: socket.socket, seconds: float) -> None:
    """Writes fail (OSError) after `seconds` without progress; reads still wait for as long
    as the client takes to send its next request."""
    whole = int(seconds)
    sock.setsockopt(
        socket.SOL_SOCKET,
        socket.SO_SNDTIMEO,
        struct.pack("ll", whole, int((seconds - whole) * 1e6)),
    )


def _listen(port: int, host: str = "") -> socket.socket:
    """A listening socket on `host` ('': every interface, IPv6 and IPv4 where both exist)."""
    if host:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    else:
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
