"""TLS for direct streams, safe for one thread reading while others write.

Direct streams read and write one connection from different threads (a reader thread and
the steps that send; a handler reading requests while answers and heartbeats are written).
Python's SSLSocket hands both to one OpenSSL object, which two threads must never use at
once. Here the TLS state is an SSLObject over memory BIOs, used under a lock only while it
encrypts or decrypts; the socket itself is read and written outside that lock, and records
leave in the order they were made (one writer at a time).
"""

from __future__ import annotations

import contextlib
import io
import socket
import ssl
import threading
from typing import Any

# Plaintext encrypted per lock hold when sending (bounds the ciphertext held in memory).
_SEND_CHUNK = 256 << 10
# Ciphertext read from the socket per system call.
_RECV_CHUNK = 256 << 10


class TLSSocket:
    """A connected socket with TLS on top: what Wire uses of a socket."""

    def __init__(
        self,
        sock: socket.socket,
        context: ssl.SSLContext,
        server_side: bool,
        server_hostname: str | None = None,
    ) -> None:
        self.raw = sock
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._tls = context.wrap_bio(
            self._incoming,
            self._outgoing,
            server_side=server_side,
            server_hostname=server_hostname,
        )
        self._lock = threading.Lock()  # the SSLObject and its BIOs
        self._send_lock = threading.Lock()  # one writer on the socket at a time
        # The buffer ciphertext is received into (reused: one reader at a time).
        self._spare: memoryview | None = memoryview(bytearray(_RECV_CHUNK))

    def handshake(self) -> None:
        """The TLS handshake, blocking (the socket's timeout applies); ssl.SSLError when the
        peer is refused or refuses us (our alert is sent before it is raised)."""
        while True:
            try:
                self._tls.do_handshake()
            except ssl.SSLWantReadError:
                self._flush()
                data = self.raw.recv(_RECV_CHUNK)
                if not data:
                    raise ssl.SSLEOFError("the peer hung up during the TLS handshake") from None
                self._incoming.write(data)
                continue
            except ssl.SSLError:
                self._flush_quietly()
                raise
            self._flush()
            return

    def sendall(self, data: Any) -> None:
        view = memoryview(data).cast("B")
        with self._send_lock:
            for start in range(0, max(len(view), 1), _SEND_CHUNK):
                piece = view[start : start + _SEND_CHUNK]
                if not len(piece):
                    return
                with self._lock:
                    self._tls.write(piece)
                    records = self._outgoing.read()
                self.raw.sendall(records)

    def recv_into(self, buffer: Any, nbytes: int = 0) -> int:
        """Decrypted bytes into `buffer` (0: the peer closed the connection): every record
        already received, up to `nbytes`, in one hold of the lock (a record is 16 KiB at
        most, and a big message is read in one call per socket read, not one per record)."""
        view = memoryview(buffer).cast("B")
        wanted = nbytes or len(view)
        while True:
            got = 0
            closed = False
            with self._lock:
                try:
                    while got < wanted:
                        got += int(self._tls.read(wanted - got, view[got:]))  # type: ignore[arg-type]
                except ssl.SSLWantReadError:
                    pass
                except ssl.SSLZeroReturnError:
                    closed = True
                answer = self._outgoing.pending  # TLS 1.3 may answer what it read
            if answer:
                self._flush()
            if got or closed:
                return got
            if not self._receive():
                return 0

    def _receive(self) -> int:
        """Reads ciphertext from the socket into the TLS layer; 0 when the peer hung up."""
        spare, self._spare = self._spare, None  # a second reader (never expected) gets its own
        buf = spare if spare is not None else memoryview(bytearray(_RECV_CHUNK))
        try:
            n = self.raw.recv_into(buf)
            if n:
                with self._lock:
                    self._incoming.write(buf[:n])
            return n
        finally:
            self._spare = buf

    def pending(self) -> int:
        """Bytes that wait in the TLS layer (decrypted, or received and not yet decrypted)."""
        with self._lock:
            return int(self._tls.pending()) + int(self._incoming.pending)

    def _flush(self) -> None:
        with self._send_lock:
            with self._lock:
                records = self._outgoing.read()
            if records:
                self.raw.sendall(records)

    def _flush_quietly(self) -> None:
        with contextlib.suppress(OSError):
            self._flush()

    def makefile(self, mode: str = "rb", buffering: int = io.DEFAULT_BUFFER_SIZE) -> Any:
        assert mode == "rb"
        return io.BufferedReader(_Reader(self), buffering)

    # What Wire and the servers use of a socket, on the socket itself.
    def fileno(self) -> int:
        return self.raw.fileno()

    def setsockopt(self, *args: Any) -> None:
        self.raw.setsockopt(*args)

    def settimeout(self, timeout: float | None) -> None:
        self.raw.settimeout(timeout)

    def shutdown(self, how: int) -> None:
        self.raw.shutdown(how)

    def close(self) -> None:
        self.raw.close()


class _Reader(io.RawIOBase):
    def __init__(self, sock: TLSSocket) -> None:
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._sock.recv_into(buffer)
