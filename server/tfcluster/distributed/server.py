"""tf.train.Server: one task of a cluster, serving a master and a worker over gRPC.

One gRPC server hosts the master service, the worker service and the standard gRPC health
service (SERVING once started, NOT_SERVING while stopping). Several servers may live in one
process; a session whose target is a server of its own process talks to that master directly.
With `metrics_port` (or TFCLUSTER_METRICS_PORT in the environment) a Prometheus /metrics
endpoint sits beside the gRPC port (tfcluster.distributed.metrics).
Unlike TensorFlow's, a server can be stopped cleanly (stop()); like TensorFlow's, a started
server lives until then, even when no Python name refers to it any more.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import threading
import time
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tfcluster.distributed import metrics as server_metrics
from tfcluster.distributed.cluster_spec import ClusterSpec, check_address, task_name
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.distributed.worker_cache import GrpcWorkerCache
from tfcluster.framework import errors
from tfcluster.protos import cluster_pb2, config_pb2, tensorflow_server_pb2
from tfcluster.rpc import channels, direct, master_service, metrics_interceptor, worker_service
from tfcluster.rpc import master_client as rpc_master_client
from tfcluster.runtime import allocator

# Handlers block while steps run and tensors are awaited: allow many at once.
log = logging.getLogger("tfcluster.server")

_MAX_HANDLER_THREADS = 256
_live_servers: set[Server] = set()
_live_lock = threading.Lock()


def _make_server_def(
    server_or_cluster_def: Any,
    job_name: str | None,
    task_index: int | None,
    protocol: str | None,
    config: config_pb2.ConfigProto | None,
) -> tensorflow_server_pb2.ServerDef:
    if isinstance(server_or_cluster_def, tensorflow_server_pb2.ServerDef):
        server_def = tensorflow_server_pb2.ServerDef()
        server_def.CopyFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    try:
        cluster_spec = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError(
            "Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
            "`tf.train.ClusterSpec`."
        ) from None
    if job_name is None:
        if len(cluster_spec.jobs) == 1:
            job_name = cluster_spec.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        indices = cluster_spec.task_indices(job_name)
        if len(indices) == 1:
            task_index = indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    server_def = tensorflow_server_pb2.ServerDef(
        cluster=cluster_spec.as_cluster_def(),
        job_name=job_name,
        task_index=task_index,
        protocol=protocol or "grpc",
    )
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


_exit_hook_installed = False


def _stop_at_exit() -> None:
    """Stops live servers when the interpreter exits (a process whose main function returns
    leaves the cluster, as TensorFlow's does). It runs before threading waits for worker
    threads, which long-lived calls would otherwise keep busy forever."""
    global _exit_hook_installed
    with _live_lock:
        if _exit_hook_installed:
            return
        _exit_hook_installed = True
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        register(_stop_all)
    else:  # pragma: no cover - other Python implementations
        import atexit

        atexit.register(_stop_all)


def _stop_all() -> None:
    with _live_lock:
        servers = list(_live_servers)
    for server in servers:
        with contextlib.suppress(Exception):
            server.stop(grace=0.0)


def _port_free(port: int) -> bool:
    """Whether nothing listens on `port` (checked before gRPC, which logs bind failures)."""
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            return True
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
        finally:
            sock.close()
    return True


class Server:
    """An in-process TensorFlow server, for use in distributed training."""

    def __init__(
        self,
        server_or_cluster_def: Any,
        job_name: str | None = None,
        task_index: int | None = None,
        protocol: str | None = None,
        config: config_pb2.ConfigProto | None = None,
        start: bool = True,
        metrics_port: int | str | server_metrics.PortChoice | None = None,
    ) -> None:
        """`metrics_port`: serve Prometheus metrics on this port (0: any free port; negative or
        'off': none); None (the default) uses TFCLUSTER_METRICS_PORT, and no metrics without it."""
        allocator.tune()  # steps reuse freed tensor memory (see runtime/allocator.py)
        self._server_def = _make_server_def(
            server_or_cluster_def, job_name, task_index, protocol, config
        )
        sd = self._server_def
        if sd.protocol != "grpc":
            raise errors.UnimplementedError(
                None, None, f"No server factory for protocol '{sd.protocol}': only 'grpc' exists"
            )
        cluster = ClusterSpec(sd.cluster)
        if sd.job_name not in cluster.jobs:
            raise errors.InvalidArgumentError(
                None, None, f'Job "{sd.job_name}" was not defined in cluster {cluster}'
            )
        try:
            address = cluster.task_address(sd.job_name, sd.task_index)
        except ValueError:
            raise errors.InvalidArgumentError(
                None,
                None,
                f'Task {sd.task_index} was not defined in job "{sd.job_name}" '
                f"(tasks: {cluster.task_indices(sd.job_name)})",
            ) from None
        try:
            port = check_address(address, f"task {sd.task_index} of job '{sd.job_name}'")
        except ValueError as e:
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse port for local server from '{address}': {e}"
            ) from None
        self._cluster = cluster
        self._task = task_name(sd.job_name, sd.task_index)
        self._lock = threading.Lock()
        self._started = False
        self._stopped = threading.Event()

        self.worker = Worker(self._task)
        self._worker_cache = GrpcWorkerCache(cluster, self._task, self.worker)
        self.worker.worker_cache = self._worker_cache
        self.master = Master(self._worker_cache, self._task, sd.default_session_config)
        # Before anything holds the master's methods: metrics wrap them.
        self._telemetry = server_metrics.start_for_server(
            sd.job_name, sd.task_index, self.master, self.worker, metrics_port, self._task
        )

        self._grpc = grpc.server(
            futures.ThreadPoolExecutor(
                max_workers=_MAX_HANDLER_THREADS, thread_name_prefix=f"tfcluster-{sd.task_index}"
            ),
            options=channels.SERVER_OPTIONS,
            interceptors=metrics_interceptor.interceptors(
                self._telemetry.metrics if self._telemetry is not None else None
            ),
        )
        self._master_servicer = master_service.MasterServicer(self.master)
        self._worker_servicer = worker_service.WorkerServicer(self.worker)
        self._direct = direct.DirectServer(
            metrics_interceptor.counting_direct(
                self._telemetry.metrics if self._telemetry is not None else None,
                {
                    **master_service.direct_handlers(self._master_servicer),
                    **worker_service.direct_handlers(self._worker_servicer),
                },
            ),
            name=self._task,
        )
        self._grpc.add_generic_rpc_handlers(
            (
                master_service.method_handlers(self._master_servicer),
                worker_service.method_handlers(self._worker_servicer),
                self._direct.method_handlers(),
            )
        )
        self._health = health.HealthServicer(experimental_non_blocking=True)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._grpc)
        for service in ("", master_service.SERVICE_NAME, worker_service.SERVICE_NAME):
            self._health.set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
        try:
            self._port = self._bind(port, address)
        except errors.OpError:
            if self._telemetry is not None:
                self._telemetry.close()
            raise
        if start:
            self.start()

    def _bind(self, port: int, address: str) -> int:
        """Binds every interface at the task's port (0: any free port); the port bound."""
        if port and not _port_free(port):
            raise errors.UnknownError(
                None,
                None,
                f"Could not start gRPC server: port {port} of task {self._task} "
                f"('{address}') is in use",
            )
        bound = 0
        for host in ("[::]", "0.0.0.0"):
            try:
                bound = self._grpc.add_insecure_port(f"{host}:{port}")
            except RuntimeError:
                bound = 0
            if bound:
                return bound
        raise errors.UnknownError(
            None,
            None,
            f"Could not start gRPC server: cannot listen on port {port} for task "
            f"{self._task} ('{address}'): the port is in use or not available",
        )

    # ---- TF API ------------------------------------------------------------------------
    @property
    def server_def(self) -> tensorflow_server_pb2.ServerDef:
        return self._server_def

    @property
    def target(self) -> str:
        """The session target of this server: 'grpc://localhost:<port>'."""
        return f"grpc://localhost:{self._port}"

    @property
    def port(self) -> int:
        return self._port

    @property
    def metrics_port(self) -> int | None:
        """The port of this server's /metrics endpoint (None: no metrics)."""
        return self._telemetry.port if self._telemetry is not None else None

    @property
    def metrics(self) -> server_metrics.ServerMetrics | None:
        """This server's metrics (their own registry), when it serves them."""
        return self._telemetry.metrics if self._telemetry is not None else None

    @property
    def task(self) -> str:
        return self._task

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    def start(self) -> None:
        """Starts serving (idempotent)."""
        with self._lock:
            if self._started:
                return
            if self._stopped.is_set():
                raise errors.FailedPreconditionError(None, None, "Server was stopped")
            self._started = True
            self._start_direct()
            self._grpc.start()
            rpc_master_client.register_local_master(self.target, self.master)
            with _live_lock:
                _live_servers.add(self)
            _stop_at_exit()
            for service in ("", master_service.SERVICE_NAME, worker_service.SERVICE_NAME):
                self._health.set(service, health_pb2.HealthCheckResponse.SERVING)

    def _start_direct(self) -> None:
        """Direct streams on TFCLUSTER_DIRECT_PORT (default: any free port); a port that
        cannot be had leaves every call on gRPC, with a warning."""
        if not direct.enabled():
            return
        wanted = os.environ.get("TFCLUSTER_DIRECT_PORT", "0")
        try:
            self._direct.start(int(wanted))
        except (OSError, ValueError) as e:
            log.warning(
                "task %s serves no direct streams (TFCLUSTER_DIRECT_PORT=%s: %s); "
                "its peers use gRPC for every call",
                self._task,
                wanted,
                e,
            )

    @property
    def direct_port(self) -> int:
        """The port of this server's direct streams (0: none)."""
        return self._direct.port

    def join(self, timeout: float | None = None) -> bool:
        """Blocks until the server stops (TensorFlow's join blocks forever); True if stopped."""
        return self._stopped.wait(timeout)

    def stop(self, grace: float | None = 1.0, drain: float = 0.0) -> None:
        """Stops serving: health says NOT_SERVING (for `drain` seconds, while still serving, so
        load balancers can notice), then running calls get `grace` seconds, then it closes."""
        with self._lock:
            if self._stopped.is_set():
                return
            self._health.enter_graceful_shutdown()
            if drain > 0:
                time.sleep(drain)
            rpc_master_client.unregister_local_master(self.target, self.master)
            # Long-lived calls between steps would hold the grace period: end those now.
            self._direct.stop()
            self._master_servicer.idle_calls.cancel_idle()
            self._worker_servicer.idle_calls.cancel_idle()
            done = self._grpc.stop(grace)
            if not done.wait((grace or 0.0) + 0.5):
                # Calls still running after the grace period wait on steps: abort those.
                self.worker.close()
                done.wait(5.0)
            self._direct.close_all()
            self.worker.close()
            self.master.close()
            self._worker_cache.close()
            if self._telemetry is not None:
                self._telemetry.close()  # after draining: the last scrapes still see it
            self._stopped.set()
            with _live_lock:
                _live_servers.discard(self)

    @staticmethod
    def create_local_server(
        config: config_pb2.ConfigProto | None = None, start: bool = True
    ) -> Server:
        """A single-task cluster on a free local port."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<tf.train.Server {self._task} at {self.target}>"


ClusterDef = cluster_pb2.ClusterDef
ServerDef = tensorflow_server_pb2.ServerDef
