"""The transport half of a task server: one gRPC server with the master and worker services,
DirectService.Describe and the standard health service, and the direct streams beside it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tfcluster.distributed.interfaces import MasterInterface, ServedWorker
from tfcluster.framework import errors
from tfcluster.rpc import channels, master_service, tls, worker_service
from tfcluster.rpc.direct.server import DirectServer
from tfcluster.task_server import call_limits, ports, request_wait
from tfcluster.task_server.metrics import error_counting
from tfcluster.task_server.metrics.families import ServerMetrics
from tfcluster.task_server.options import ServerOptions

log = logging.getLogger("tfcluster.server")

# The health services a readiness probe may ask about ("": the server as a whole).
_HEALTH_SERVICES = ("", master_service.SERVICE_NAME, worker_service.SERVICE_NAME)


class TaskTransport:
    def __init__(
        self,
        master: MasterInterface,
        worker: ServedWorker,
        task: str,
        task_index: int,
        metrics: ServerMetrics | None,
        options: ServerOptions,
        tls_source: tls.TLSSource | None = None,
    ) -> None:
        """`tls_source`: serve gRPC and direct streams over mutual TLS with its certificate,
        to peers with a certificate from its CA only (None: plain)."""
        self.task = task
        self._tls = tls_source
        self._master_servicer = master_service.MasterServicer(master)
        self._worker_servicer = worker_service.WorkerServicer(worker)
        self.direct = DirectServer(
            error_counting.counting_direct(
                metrics,
                {
                    **master_service.direct_handlers(self._master_servicer),
                    **worker_service.direct_handlers(self._worker_servicer),
                },
            ),
            name=task,
            heartbeat=options.heartbeat_seconds,
            tls_source=tls_source,
        )
        self._request_wait = request_wait.RequestWaitLimit()
        # Work calls block while steps run and tensors are awaited (streams, while they are
        # open): they get max_work_calls threads, calls still waiting for their request
        # request_wait's, and the rest of the calls their own.
        self._grpc = channels.new_server(
            futures.ThreadPoolExecutor(
                max_workers=options.max_work_calls
                + call_limits.CONTROL_THREADS
                + request_wait.DEFAULT_MAX_WAITING,
                thread_name_prefix=f"tfcluster-{task_index}",
            ),
            interceptors=[
                self._request_wait,
                call_limits.WorkCallLimit(options.max_work_calls),
                *(error_counting.interceptors(metrics) or ()),
            ],
        )
        self._grpc.add_generic_rpc_handlers(
            (
                master_service.method_handlers(self._master_servicer),
                worker_service.method_handlers(self._worker_servicer),
                self.direct.method_handlers(),
            )
        )
        self.listen_hosts: tuple[str, ...] = ("",)
        self._health = health.HealthServicer(experimental_non_blocking=True)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._grpc)
        self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)

    def bind(self, port: int, address: str) -> int:
        """Binds the task's port (0: any free port) where its address says (loopback only
        for a loopback address, else every interface); the port bound."""
        if not ports.port_available(port):
            raise errors.UnknownError(
                None,
                None,
                f"Could not start gRPC server: port {port} of task {self.task} "
                f"('{address}') is in use",
            )
        self.listen_hosts = ports.listen_hosts(address)
        if self.listen_hosts == ("",):
            for host in ("[::]", "0.0.0.0"):
                bound = self._add_port(f"{host}:{port}")
                if bound:
                    return bound
        else:
            bound = 0
            for host in self.listen_hosts:  # the same port on each (IPv6 may be missing)
                got = self._add_port(f"{ports.grpc_host(host)}:{bound or port}")
                bound = bound or got
            if bound:
                return bound
        raise errors.UnknownError(
            None,
            None,
            f"Could not start gRPC server: cannot listen on port {port} for task "
            f"{self.task} ('{address}'): the port is in use or not available",
        )

    def _add_port(self, where: str) -> int:
        try:
            if self._tls is None:
                return int(self._grpc.add_insecure_port(where))
            return int(self._grpc.add_secure_port(where, _server_credentials(self._tls)))
        except RuntimeError:
            return 0

    def start(self) -> None:
        """Serves gRPC (direct streams start apart: start_direct)."""
        self._grpc.start()

    def start_direct(self, port: int) -> None:
        """Serves direct streams on `port` (0: any free port); OSError if it cannot."""
        self.direct.start(port, self.listen_hosts[0])

    def serving(self) -> None:
        """Health says SERVING: the task takes work."""
        self._set_health(health_pb2.HealthCheckResponse.SERVING)

    def draining(self) -> None:
        """Health says NOT_SERVING from now on (calls are still served)."""
        self._health.enter_graceful_shutdown()

    def stop(self, grace: float | None, abort_steps: Callable[[], None]) -> None:
        """Stops serving: running calls get `grace` seconds, then `abort_steps` ends the steps
        they wait on. Long-lived calls between steps are ended at once."""
        self.direct.stop()
        self._master_servicer.idle_calls.cancel_idle()
        self._worker_servicer.idle_calls.cancel_idle()
        self._request_wait.cancel_waiting()
        done: threading.Event = self._grpc.stop(grace)
        if not done.wait((grace or 0.0) + 0.5):
            abort_steps()
            done.wait(5.0)
        self.direct.close_all()

    def _set_health(self, status: int) -> None:
        for service in _HEALTH_SERVICES:
            self._health.set(service, status)


def _server_credentials(source: tls.TLSSource) -> grpc.ServerCredentials:
    """Mutual TLS whose certificate follows the source's files: gRPC asks before every new
    connection's handshake, so a renewed certificate serves from the next connection on."""
    served = [source.current()]

    def fetch() -> object | None:
        try:
            material = source.current()
        except Exception:  # never break a handshake over a reload
            log.exception("reading the TLS certificate failed")
            return None
        if material is served[0]:
            return None
        served[0] = material
        return material.server_configuration()

    return grpc.dynamic_ssl_server_credentials(
        served[0].server_configuration(), fetch, require_client_authentication=True
    )
