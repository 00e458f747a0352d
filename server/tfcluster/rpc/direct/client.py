"""Direct streams, the calling side: a Link per peer finds its endpoint over gRPC in the
background; a DirectCall is one call on a connection of its own, as a gRPC call reads."""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import grpc

from tfcluster.protos import direct_service_pb2
from tfcluster.rpc import channels, status, tls
from tfcluster.rpc.direct.tls_socket import TLSSocket
from tfcluster.rpc.direct.wire import (
    DESCRIBE,
    HEARTBEATS_MISSED,
    MAGIC,
    PROBE,
    DirectError,
    Wire,
    lost,
)
from tfcluster.settings import environment

CONNECT_TIMEOUT = 2.0
_DESCRIBE_TIMEOUT = 10.0


def connect(
    host: str,
    port: int,
    method: str,
    token: bytes,
    timeout: float,
    silence: float | None = None,
    *,
    material: tls.TLSMaterial | None = None,
) -> Wire:
    """A connection to `method`, accepted by the server: raises OSError or DirectError.
    `silence`: how long a read or write may wait for the server (it writes heartbeats).
    With `material`, over mutual TLS: the server's certificate must come from its CA and
    name `host`, and the server checks ours."""
    raw = socket.create_connection((host, port), timeout=timeout)
    sock: socket.socket | TLSSocket = raw
    try:
        if material is not None:
            sock = _handshake(raw, host, port, material)
        path = method.encode()
        wire = Wire(sock)
        try:
            sock.sendall(MAGIC + bytes([len(path)]) + path + bytes([len(token)]) + token)
            answer = wire.read_answer()
        except ssl.SSLError as e:  # TLS 1.3: the server says what it thinks of us only now
            raise _refused(host, port, str(e.reason or e)) from None
        except ConnectionError as e:
            if material is not None:
                raise _refused(host, port, f"it hung up: {e}") from None
            answer = None
        if answer is None:
            hint = "" if material is not None else " (a task that requires TLS hangs up too)"
            raise DirectError(
                grpc.StatusCode.UNAVAILABLE, f"no direct streams at {host}:{port}{hint}"
            )
        if answer.code() != grpc.StatusCode.OK:
            raise answer
        sock.settimeout(silence)
        return wire
    except BaseException:
        with contextlib.suppress(OSError):
            sock.close()
        raise


def _handshake(sock: socket.socket, host: str, port: int, material: tls.TLSMaterial) -> TLSSocket:
    secured = TLSSocket(sock, material.client_context, server_side=False, server_hostname=host)
    try:
        secured.handshake()
        return secured
    except ssl.SSLCertVerificationError as e:
        raise DirectError(
            grpc.StatusCode.UNAVAILABLE,
            f"TLS: the task at {host}:{port} is not trusted: {e.verify_message} (its "
            "certificate must come from the cluster's CA and name the address dialled)",
        ) from None
    except ssl.SSLError as e:
        raise _refused(host, port, str(e.reason or e)) from None


def _refused(host: str, port: int, reason: str) -> DirectError:
    return DirectError(
        grpc.StatusCode.UNAVAILABLE,
        f"TLS: the task at {host}:{port} refused this process's certificate ({reason}): it "
        "must come from the cluster's CA and be valid now",
    )


class DirectCall:
    """The client's side of one direct call: what a gRPC stream-stream call offers."""

    def __init__(self, wire: Wire) -> None:
        self._wire = wire
        self._send_lock = threading.Lock()
        self._cancelled = False
        self._ended = False

    @property
    def encrypted(self) -> bool:
        """Over TLS: big tensors to a peer on this host are cheaper through /dev/shm."""
        return self._wire.tls

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

    def next_or_heartbeat(self) -> Any:
        """The next message; HEARTBEAT_ONLY when a heartbeat came first (nothing more is
        waited for); None at the end of the call."""
        msg = self._reading(lambda: self._wire.read(stop_at_heartbeat=True))
        if msg is None:
            self._ended = True
            if self._cancelled:
                raise self._failure(None)
        return msg

    def buffered(self) -> bool:
        """Bytes of the server's already read off the socket wait here (plain connections)."""
        return self._wire.buffered()

    @property
    def silence(self) -> float | None:
        """How long the server may stay silent (it writes heartbeats); None: no limit."""
        timeout: float | None = self._wire.sock.gettimeout()
        return timeout

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
        return lost(err or EOFError())

    def is_active(self) -> bool:
        """Between calls: not ended, and the peer has sent only heartbeats meanwhile."""
        if self._ended or self._cancelled:
            return False
        try:
            return self._wire.idle_and_alive()
        except (OSError, ValueError):
            return False

    def answer_waiting(self) -> bool:
        """Whether the answer to the last request is here (reading it will not wait for the
        server). Plain connections only."""
        try:
            return self._wire.message_waiting()
        except ValueError:
            return True  # closed: reading fails at once

    def fileno(self) -> int:
        """The connection's descriptor, readable when the server has written."""
        return self._wire.fileno()

    def peer_closed(self) -> bool:
        """Whether the server closed its side of the connection (or it broke), whatever
        unread bytes (heartbeats) wait before the end. A look that does not wait and reads
        nothing; plain connections only."""
        try:
            fd = self._wire.fileno()
        except (ValueError, OSError):
            return True
        if fd < 0:
            return True
        poller = select.poll()
        gone = select.POLLRDHUP | select.POLLHUP | select.POLLERR | select.POLLNVAL
        poller.register(fd, gone)
        return any(events & gone for _, events in poller.poll(0))

    def half_close(self) -> None:
        # Over TLS the end is a frame: never in the middle of a message being sent.
        if not self._send_lock.acquire(timeout=1.0):
            return
        try:
            self._wire.end_requests()
        except OSError:
            self._ended = True
        finally:
            self._send_lock.release()

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
        # (port, token, how long the peer may stay silent before a call gives it up)
        self._endpoint: tuple[int, bytes, float | None] | None = None
        self._lock = threading.Lock()
        self._probing = False
        self._retry_at = 0.0
        self._backoff = 0.5

    @property
    def ready(self) -> bool:
        return self._endpoint is not None

    def open(self, method: str, deadline: float | None = None) -> DirectCall | None:
        """A direct call to `method`, or None (use gRPC; a probe may start meanwhile).
        `deadline` (time.monotonic()): connecting gives up by then, not CONNECT_TIMEOUT
        later (a frozen peer accepts the connection but never answers it)."""
        endpoint = self._endpoint
        if endpoint is None:
            self.probe()
            return None
        timeout = CONNECT_TIMEOUT
        if deadline is not None:
            timeout = max(0.001, min(timeout, deadline - time.monotonic()))
        try:
            material = tls.client_material()
            wire = connect(
                self.host,
                endpoint[0],
                method,
                endpoint[1],
                timeout,
                endpoint[2],
                material=material,
            )
        except (OSError, grpc.RpcError, tls.TLSConfigError):
            with self._lock:
                if self._endpoint == endpoint:
                    self._endpoint = None  # the peer restarted or left: ask it again
            self.probe()
            return None
        return DirectCall(wire)

    def probe(self) -> None:
        """Asks the peer for its endpoint in the background (unless asked lately)."""
        if (
            self._probing
            or time.monotonic() < self._retry_at
            or not environment.direct_streams_enabled()
        ):
            return
        with self._lock:
            if self._probing:
                return
            self._probing = True
        threading.Thread(target=self._probe, name="direct-probe", daemon=True).start()

    def _probe(self) -> None:
        endpoint: tuple[int, bytes, float | None] | None = None
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
                material = tls.client_material()
                connect(
                    self.host, found.port, PROBE, found.token, CONNECT_TIMEOUT, material=material
                ).close()
                beat = found.heartbeat_ms / 1000.0
                silence = max(1.0, HEARTBEATS_MISSED * beat) if beat > 0 else None
                endpoint = (found.port, found.token, silence)
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
