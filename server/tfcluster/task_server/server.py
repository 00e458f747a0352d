"""tf.train.Server: one task of a cluster, serving a master and a worker over gRPC.

One gRPC server hosts the master service, the worker service and the standard gRPC health
service (SERVING once started, NOT_SERVING while stopping); direct streams sit beside it
(rpc/direct), and with a metrics port a Prometheus /metrics endpoint (metrics/). Several
servers may live in one process; a session whose target is a server of its own process
talks to that master directly. Unlike TensorFlow's, a server can be stopped cleanly (stop());
like TensorFlow's, a started server lives until then, even when no Python name refers to it.

A program's own server takes what it is not given from the environment as `tfcluster run`
and the operator set it (TFCLUSTER_METRICS_PORT, TFCLUSTER_DIRECT_PORT: settings/); the
`tfcluster-server` command reads its environment itself and passes values.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.framework import errors, memory_budget
from tfcluster.protos import cluster_pb2, config_pb2, tensorflow_server_pb2
from tfcluster.rpc import master_client as rpc_master_client
from tfcluster.rpc import tls as rpc_tls
from tfcluster.runtime import allocator, cpp_log, serving_state, switch_interval, thread_budget
from tfcluster.settings import contract, environment
from tfcluster.task_server.core import TaskCore
from tfcluster.task_server.host_share import tasks_on_this_host
from tfcluster.task_server.metrics.families import ServerMetrics
from tfcluster.task_server.metrics.telemetry import start_telemetry
from tfcluster.task_server.options import ServerOptions
from tfcluster.task_server.ports import PortChoice, listen_hosts, resolve_metrics_port
from tfcluster.task_server.server_def import locate_task, make_server_def
from tfcluster.task_server.transport import TaskTransport

log = logging.getLogger("tfcluster.server")


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
        *,  # tfcluster's own options, beyond TF's signature
        metrics_port: int | str | PortChoice | None = None,
        direct_port: int | str | None = None,
        options: ServerOptions | None = None,
        tls: Any = None,
        metrics_address: str | None = None,
    ) -> None:
        """`metrics_port`: serve Prometheus metrics on this port (0: any free port; negative or
        'off': none); None (the default) uses TFCLUSTER_METRICS_PORT, and no metrics without it.
        `direct_port`: serve direct streams on this port; None uses TFCLUSTER_DIRECT_PORT, else
        any free port (TFCLUSTER_DIRECT=0: none). `options`: how the task guards itself
        (task_server/options.py; the defaults suit production).
        `tls`: mutual TLS, the PEM files of this task's certificate, key and the cluster's CA
        (a TLSFiles, {"cert", "key", "ca"} or a (cert, key, ca) tuple): gRPC and direct
        streams serve only peers with a certificate from that CA, and this process's own
        connections show this certificate; None uses TFCLUSTER_TLS_CERT/_KEY/_CA when set,
        else plain connections. Files that change are read again (no restart).
        `metrics_address`: where /metrics listens; None uses TFCLUSTER_METRICS_ADDRESS, else
        loopback for a task whose address is loopback, else every interface."""
        allocator.tune()  # steps reuse freed tensor memory (see runtime/allocator.py)
        switch_interval.tune()  # threads hand off quickly (see runtime/switch_interval.py)
        options = options or ServerOptions()
        if options.memory_budget_bytes is not None:
            memory_budget.set_budget(options.memory_budget_bytes)
        self._server_def = make_server_def(
            server_or_cluster_def, job_name, task_index, protocol, config
        )
        where = locate_task(self._server_def)
        self._cluster = where.cluster
        # The task's thread pools, as TensorFlow's server sizes them from its config; left
        # unset, the CPUs this process may use, shared with the other tasks on this host.
        session_config = self._server_def.default_session_config
        self.thread_budget = thread_budget.configure(
            session_config.intra_op_parallelism_threads,
            session_config.inter_op_parallelism_threads,
            share=tasks_on_this_host(where.cluster),
            source="server config",
        )
        self._task = where.task
        self._direct_port, self._direct_source = _direct_port_wanted(direct_port)
        self._tls = _tls_source(tls)
        self._lock = threading.Lock()
        self._started = False
        self._stopping = False
        self._stopped = threading.Event()

        choice = resolve_metrics_port(metrics_port, _metrics_port_from_environment(metrics_port))
        address = _metrics_address(metrics_address, where.address)
        self._telemetry = start_telemetry(
            where.job, where.index, self._task, choice, address, self._serving
        )
        metrics = self.metrics
        self._core = TaskCore(
            where.cluster, self._task, self._server_def.default_session_config, metrics, options
        )
        self.worker = self._core.worker
        self.master = self._core.master
        self._transport = TaskTransport(
            self._core.served_master,
            self._core.served_worker,
            self._task,
            where.index,
            metrics,
            options,
            self._tls,
        )
        try:
            self._port = self._transport.bind(where.port, where.address)
        except errors.OpError:
            if self._telemetry is not None:
                self._telemetry.close()
            raise
        _log_channel_cache(self._server_def.cluster, where.job, where.index, self._port)
        if start:
            self.start()

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
    def metrics(self) -> ServerMetrics | None:
        """This server's metrics (their own registry), when it serves them."""
        return self._telemetry.metrics if self._telemetry is not None else None

    @property
    def task(self) -> str:
        return self._task

    @property
    def tls(self) -> rpc_tls.TLSSource | None:
        """The certificate files this server serves with (None: plain)."""
        return self._tls

    def _serving(self) -> bool:
        """For the metrics endpoint's /healthz: started and not stopping."""
        return self._started and not self._stopping

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    @property
    def direct_port(self) -> int:
        """The port of this server's direct streams (0: none)."""
        return self._transport.direct.port

    def start(self) -> None:
        """Starts serving (idempotent)."""
        with self._lock:
            if self._started:
                return
            if self._stopped.is_set():
                raise errors.FailedPreconditionError(None, None, "Server was stopped")
            self._started = True
            self._start_direct()
            self._transport.start()
            rpc_master_client.register_local_master(self.target, self._core.served_master)
            _live_servers.add(self)
            self._transport.serving()
        cpp_log.info(
            "tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:365",
            f"Started server with target: {self.target}\n",
        )

    def _start_direct(self) -> None:
        """Direct streams on the port asked for; a port that cannot be had leaves every call
        on gRPC, with a warning."""
        if not environment.direct_streams_enabled():
            return
        try:
            self._transport.start_direct(int(self._direct_port))
        except (OSError, ValueError, OverflowError) as e:
            log.warning(
                "task %s serves no direct streams (%s=%s: %s); its peers use gRPC for every call",
                self._task,
                self._direct_source,
                self._direct_port,
                e,
            )

    def join(self, *, timeout: float | None = None) -> bool:  # TF's join() has no timeout
        """Blocks until the server stops (TensorFlow's join blocks forever); True if stopped."""
        return self._stopped.wait(timeout)

    def stop(self, grace: float | None = 1.0, drain: float = 0.0) -> None:
        """Stops serving: health says NOT_SERVING (for `drain` seconds, while still serving, so
        load balancers can notice), then running calls get `grace` seconds, then it closes."""
        with self._lock:
            if self._stopped.is_set():
                return
            self._stopping = True
            self._transport.draining()
            if drain > 0:
                time.sleep(drain)
            rpc_master_client.unregister_local_master(self.target, self._core.served_master)
            # Calls still running after the grace period wait on steps: those are aborted.
            self._transport.stop(grace, abort_steps=self._core.abort_steps)
            self._core.close()
            if self._telemetry is not None:
                self._telemetry.close()  # after draining: the last scrapes still see it
            self._stopped.set()
            _live_servers.discard(self)

    @staticmethod
    def create_local_server(
        config: config_pb2.ConfigProto | None = None, start: bool = True
    ) -> Server:
        """A single-task cluster on a free local port."""
        return Server({"local": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<tf.train.Server {self._task} at {self.target}>"


ClusterDef = cluster_pb2.ClusterDef
ServerDef = tensorflow_server_pb2.ServerDef


def _log_channel_cache(cluster: cluster_pb2.ClusterDef, job: str, index: int, port: int) -> None:
    """TF 1.15's log of the cluster a server was made with: one line per job (by name), its
    tasks by index, this task at the port it bound."""
    for job_def in sorted(cluster.job, key=lambda j: j.name):
        tasks = ", ".join(
            f"{i} -> {f'localhost:{port}' if (job_def.name, i) == (job, index) else address}"
            for i, address in sorted(job_def.tasks.items())
        )
        cpp_log.info(
            "tensorflow/core/distributed_runtime/rpc/grpc_channel.cc:258",
            f"Initialize GrpcChannelCache for job {job_def.name} -> {{{tasks}}}\n",
        )


def _metrics_port_from_environment(metrics_port: object) -> str:
    """TFCLUSTER_METRICS_PORT, read only when the program gave no metrics_port."""
    return environment.program_metrics_port() if metrics_port is None else ""


def _tls_source(tls: Any) -> rpc_tls.TLSSource | None:
    """The server's TLS files (given, else the environment's); this process's connections
    use them from now on. InvalidArgumentError for files that cannot be used."""
    try:
        if tls is None:
            files = rpc_tls.files_from_environment()
            return rpc_tls.source_for(files) if files is not None else None
        source = rpc_tls.TLSSource(rpc_tls.TLSFiles.of(tls))
    except rpc_tls.TLSConfigError as e:
        raise errors.InvalidArgumentError(None, None, f"Cannot serve with TLS: {e}") from None
    rpc_tls.use_for_clients(source)
    return source


def _metrics_address(given: str | None, task_address: str) -> str:
    if given is not None:
        return given
    from_environment = environment.program_metrics_address()
    if from_environment:
        return from_environment
    hosts = listen_hosts(task_address)
    return hosts[0]


def _direct_port_wanted(direct_port: int | str | None) -> tuple[int | str, str]:
    """(the port to serve direct streams on, as given; where it comes from)."""
    if direct_port is not None:
        return direct_port, "direct_port"
    from_environment = environment.program_direct_port()
    if from_environment is None:
        return 0, contract.DIRECT_PORT_ENV
    return from_environment, contract.DIRECT_PORT_ENV


class _LiveServers:
    """Started servers, stopped when the interpreter exits (a process whose main function
    returns leaves the cluster, as TensorFlow's does). The hook runs before threading waits
    for worker threads, which long-lived calls would otherwise keep busy forever."""

    def __init__(self) -> None:
        self._servers: set[Server] = set()
        self._lock = threading.Lock()
        self._hooked = False

    def add(self, server: Server) -> None:
        with self._lock:
            if server not in self._servers:
                serving_state.server_started()
            self._servers.add(server)
            hook, self._hooked = not self._hooked, True
        if hook:
            register = getattr(threading, "_register_atexit", None)
            if register is not None:
                register(self._stop_all)
            else:  # pragma: no cover - other Python implementations
                atexit.register(self._stop_all)

    def discard(self, server: Server) -> None:
        with self._lock:
            if server in self._servers:
                serving_state.server_stopped()
            self._servers.discard(server)

    def _stop_all(self) -> None:
        serving_state.interpreter_exiting()
        with self._lock:
            servers = list(self._servers)
        for server in servers:
            with contextlib.suppress(Exception):
                server.stop(grace=0.0)


_live_servers = _LiveServers()
