"""The HTTP endpoint that serves a task server's metrics: GET /metrics on a thread of its own,
and GET /healthz (200 while the task serves, 503 otherwise): the readiness probe of a task
whose gRPC port speaks only mutual TLS, which the kubelet's gRPC probe cannot."""

from __future__ import annotations

import contextlib
import errno
import socket
import socketserver
import sys
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app

# A client that sends nothing for this long is dropped (its slot freed): a scrape sends its
# request at once, a slowloris client never finishes it.
IDLE_SECONDS = 10.0
# At most this many connections are served at once; more are answered 503 and closed, so
# idle connections (slowloris) cannot take a thread each without bound.
MAX_CONNECTIONS = 64
_BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _QuietHandler(WSGIRequestHandler):
    timeout = IDLE_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds would flood the log."""


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    # Closed connections leave no thread list behind to join at close.
    block_on_close = False
    request_queue_size = 128

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection while a slot is free; else 503 and close at once."""
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.setblocking(False)
                request.send(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out or went away is no server error worth a traceback."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)

    def server_bind(self) -> None:
        """TCPServer's bind, without HTTPServer's reverse DNS lookup of the bound address
        (seconds where DNS is slow or absent); IPv6 sockets take IPv4 clients too."""
        if self.address_family == socket.AF_INET6:
            with contextlib.suppress(OSError, AttributeError):
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        socketserver.TCPServer.server_bind(self)
        self.server_name = "localhost"
        self.server_port = int(self.server_address[1])
        self.setup_environ()


class _WSGIServerV6(_ThreadingWSGIServer):
    address_family = socket.AF_INET6


class MetricsEndpoint:
    """GET /metrics (any path, as prometheus-client serves it) on its own thread."""

    # How soon stop() returns: the serving loop checks for shutdown this often.
    _POLL_SECONDS = 0.05

    def __init__(
        self,
        registry: CollectorRegistry,
        port: int,
        host: str = "",
        serving: Callable[[], bool] | None = None,
    ) -> None:
        self._httpd = _bind_http(_with_health(make_wsgi_app(registry), serving), port, host)
        self.port: int = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": self._POLL_SECONDS},
            name=f"tfcluster-metrics-{self.port}",
            daemon=True,
        )
        self._thread.start()
        self._closed = False

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5.0)


HEALTH_PATH = "/healthz"


def _with_health(app: Any, serving: Callable[[], bool] | None) -> Any:
    def health_or_metrics(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != HEALTH_PATH:
            return app(environ, start_response)  # type: ignore[no-any-return]
        ok = serving is None or serving()
        start_response(
            "200 OK" if ok else "503 Service Unavailable", [("Content-Type", "text/plain")]
        )
        return [b"SERVING\n" if ok else b"NOT_SERVING\n"]

    return health_or_metrics


def _bind_http(app: Any, port: int, host: str) -> WSGIServer:
    """Every interface (IPv6 and IPv4 where the system has both), or `host`."""
    if host:
        server_class = _WSGIServerV6 if ":" in host else _ThreadingWSGIServer
        return make_server(host, port, app, server_class, handler_class=_QuietHandler)
    try:
        return make_server("::", port, app, _WSGIServerV6, handler_class=_QuietHandler)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise
    # No IPv6 here: IPv4 only.
    return make_server("0.0.0.0", port, app, _ThreadingWSGIServer, handler_class=_QuietHandler)
