"""Prometheus metrics of one task server, and the HTTP /metrics endpoint that serves them.

Every Server with metrics gets its own CollectorRegistry, so several servers in one process
never collide. Steps are measured by wrapping the server's own Master and Worker objects
(instance attributes that shadow run_step, run_graph and recv_tensor): tf.Session() with no
target and servers without metrics run the plain methods and pay nothing; a measured step
costs a few microseconds (two clock reads, a histogram and two counters).

Labels keep cardinality bounded: tf_job and tf_task name the server (not `job`: Prometheus
attaches its own `job` label to every scraped series and would rename ours to
`exported_job`), `method` and `code` name failed calls, `container` names a resource
container, `device` a GPU. Never step ids, tensor or node names.

Where the port comes from (Server's `metrics_port`, see `resolve_port`): an explicit port
(0: any free one) must be bound or the server fails to start; without one, the environment
variable TFCLUSTER_METRICS_PORT (set by the operator and by the `tfcluster` command's local
clusters) asks for a port, and a port that cannot be bound only logs a warning. Off by
default otherwise, so programs and tests that create many servers bind no extra ports.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    make_wsgi_app,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tfcluster.framework import errors

if TYPE_CHECKING:
    from tfcluster.distributed.master import Master
    from tfcluster.distributed.worker import Worker

log = logging.getLogger("tfcluster.metrics")

PORT_ENV = "TFCLUSTER_METRICS_PORT"
# The port the operator's manifests and `tfcluster-server` use unless told otherwise.
DEFAULT_PORT = 9090
OFF_WORDS = frozenset({"off", "none", "false", "no", "disabled"})

# ---- metric names (the dashboard's queries are checked against these) ----------------------
MASTER_STEP_SECONDS = "tfcluster_master_step_seconds"
MASTER_FED_BYTES = "tfcluster_master_fed_bytes"
MASTER_FETCHED_BYTES = "tfcluster_master_fetched_bytes"
MASTER_SESSIONS = "tfcluster_master_sessions"
WORKER_STEP_SECONDS = "tfcluster_worker_step_seconds"
WORKER_GRAPHS = "tfcluster_worker_graphs"
WORKER_VARIABLES = "tfcluster_worker_variables"
WORKER_VARIABLE_BYTES = "tfcluster_worker_variable_bytes"
RECV_TENSOR_BYTES = "tfcluster_worker_recv_tensor_bytes"
RECV_TENSOR_SECONDS = "tfcluster_worker_recv_tensor_seconds"
ERRORS = "tfcluster_errors"
GPU_MEMORY_USED_BYTES = "tfcluster_gpu_memory_used_bytes"
GPU_MEMORY_POOL_BYTES = "tfcluster_gpu_memory_pool_bytes"

# Family name -> Prometheus type, for every family a task server exposes under tfcluster_.
FAMILIES: Mapping[str, str] = {
    MASTER_STEP_SECONDS: "histogram",
    MASTER_FED_BYTES: "counter",
    MASTER_FETCHED_BYTES: "counter",
    MASTER_SESSIONS: "gauge",
    WORKER_STEP_SECONDS: "histogram",
    WORKER_GRAPHS: "gauge",
    WORKER_VARIABLES: "gauge",
    WORKER_VARIABLE_BYTES: "gauge",
    RECV_TENSOR_BYTES: "counter",
    RECV_TENSOR_SECONDS: "histogram",
    ERRORS: "counter",
    GPU_MEMORY_USED_BYTES: "gauge",
    GPU_MEMORY_POOL_BYTES: "gauge",
}
_SUFFIXES = {
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "counter": ("_total", "_created"),
    "gauge": ("",),
}


def sample_names() -> frozenset[str]:
    """Every sample name (as the text format writes it) a task server may expose."""
    return frozenset(name + suffix for name, kind in FAMILIES.items() for suffix in _SUFFIXES[kind])


IDENTITY_LABELS = ("tf_job", "tf_task")
# Step and transfer latencies: from 100 us (a tiny local partition) to a minute.
LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)

# TF's error codes (the same numbers as gRPC's) by name, for the `code` label.
CODE_NAMES: Mapping[int, str] = {
    errors.CANCELLED: "CANCELLED",
    errors.UNKNOWN: "UNKNOWN",
    errors.INVALID_ARGUMENT: "INVALID_ARGUMENT",
    errors.DEADLINE_EXCEEDED: "DEADLINE_EXCEEDED",
    errors.NOT_FOUND: "NOT_FOUND",
    errors.ALREADY_EXISTS: "ALREADY_EXISTS",
    errors.PERMISSION_DENIED: "PERMISSION_DENIED",
    errors.RESOURCE_EXHAUSTED: "RESOURCE_EXHAUSTED",
    errors.FAILED_PRECONDITION: "FAILED_PRECONDITION",
    errors.ABORTED: "ABORTED",
    errors.OUT_OF_RANGE: "OUT_OF_RANGE",
    errors.UNIMPLEMENTED: "UNIMPLEMENTED",
    errors.INTERNAL: "INTERNAL",
    errors.UNAVAILABLE: "UNAVAILABLE",
    errors.DATA_LOSS: "DATA_LOSS",
    errors.UNAUTHENTICATED: "UNAUTHENTICATED",
}
# Set on an exception once it is counted, so the gRPC layer does not count it again.
_COUNTED_ATTR = "_tfcluster_error_counted"


def code_name(err: BaseException) -> str:
    """The status code a client gets for `err` (as rpc.status maps handler errors)."""
    if isinstance(err, errors.OpError):
        return CODE_NAMES.get(err.error_code, "UNKNOWN")
    if isinstance(err, MemoryError):
        return "RESOURCE_EXHAUSTED"
    return "INTERNAL"


def mark_counted(err: BaseException) -> None:
    with contextlib.suppress(AttributeError, TypeError):
        setattr(err, _COUNTED_ATTR, True)


def was_counted(err: BaseException | None) -> bool:
    """Whether `err`, or an exception it was raised while handling, was counted already."""
    for _ in range(8):  # the chain is short: abort() raises while handling the original
        if err is None:
            return False
        if getattr(err, _COUNTED_ATTR, False):
            return True
        err = err.__cause__ or err.__context__
    return False


def tensor_nbytes(value: Any) -> int:
    """Bytes of a tensor value: its buffer, or the bytes of its strings."""
    nbytes = getattr(value, "nbytes", None)
    if nbytes is None:
        return len(value) if isinstance(value, bytes | str) else 0
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "O":
        return sum(len(x) for x in value.flat if isinstance(x, bytes | str))
    return int(nbytes)


# ---- the metrics of one server ------------------------------------------------------------


class ServerMetrics:
    """The registry of one task server: step measurements plus scrape-time state."""

    def __init__(
        self,
        job: str,
        task_index: int,
        master: Master,
        worker: Worker,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.job = job
        self.task_index = task_index
        self.identity = (job, str(task_index))
        r = self.registry = registry if registry is not None else CollectorRegistry()
        ident = self.identity
        self.master_step = Histogram(
            MASTER_STEP_SECONDS,
            "Steps (RunStep) this task's master ran to completion, and how long each took.",
            IDENTITY_LABELS,
            buckets=LATENCY_BUCKETS,
            registry=r,
        ).labels(*ident)
        self.fed_bytes = Counter(
            MASTER_FED_BYTES,
            "Bytes of the tensors clients fed into completed steps of this master.",
            IDENTITY_LABELS,
            registry=r,
        ).labels(*ident)
        self.fetched_bytes = Counter(
            MASTER_FETCHED_BYTES,
            "Bytes of the tensors completed steps of this master returned to clients.",
            IDENTITY_LABELS,
            registry=r,
        ).labels(*ident)
        self.worker_step = Histogram(
            WORKER_STEP_SECONDS,
            "Partitions of steps (RunGraph) this task's worker ran to completion, and how "
            "long each took.",
            IDENTITY_LABELS,
            buckets=LATENCY_BUCKETS,
            registry=r,
        ).labels(*ident)
        self.recv_bytes = Counter(
            RECV_TENSOR_BYTES,
            "Bytes of the tensors this task handed to other tasks that asked for them "
            "(RecvTensor).",
            IDENTITY_LABELS,
            registry=r,
        ).labels(*ident)
        self.recv_seconds = Histogram(
            RECV_TENSOR_SECONDS,
            "Time from another task's RecvTensor request until the tensor was ready to send "
            "(includes waiting for the step that produces it).",
            IDENTITY_LABELS,
            buckets=LATENCY_BUCKETS,
            registry=r,
        ).labels(*ident)
        self.errors = Counter(
            ERRORS,
            "Calls this task answered with an error, by method and gRPC status code "
            "(RunStep: steps of the master, RunGraph: partitions run by the worker, "
            "RecvTensor: tensors asked for by peers; each failure counted once, whatever the "
            "transport).",
            (*IDENTITY_LABELS, "method", "code"),
            registry=r,
        )
        r.register(StateCollector(ident, master, worker))
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)

    def count_error(self, method: str, code: str) -> None:
        self.errors.labels(*self.identity, method, code).inc()

    def failed(self, method: str, err: BaseException) -> None:
        """A call failed with `err` (one error may fail a worker's partition, the master's
        step and peers' RecvTensors: each counts); marked, so the status it becomes in the
        gRPC layer is not counted again."""
        self.count_error(method, code_name(err))
        mark_counted(err)

    # ---- wrapping the master and the worker ------------------------------------------------
    def instrument(self, master: Master, worker: Worker) -> None:
        """Measures the steps of `master` and `worker`: instance attributes shadow their
        methods, so these two objects alone pay for it."""
        master.run_step = self._timed_run_step(master.run_step)  # type: ignore[method-assign]
        master.run_step_relayed = self._timed_run_step(master.run_step_relayed)  # type: ignore[method-assign]
        worker.run_graph = self._timed_run_graph(worker.run_graph)  # type: ignore[method-assign]
        worker.recv_tensor = self._timed_recv_tensor(worker.recv_tensor)  # type: ignore[method-assign]

    def _timed_run_step(self, run_step: Callable[..., Any]) -> Callable[..., Any]:
        observe = self.master_step.observe
        fed = self.fed_bytes.inc
        fetched = self.fetched_bytes.inc
        clock = time.perf_counter

        @functools.wraps(run_step)
        def timed(
            handle: str,
            feeds: Mapping[str, Any],
            fetches: Sequence[str],
            targets: Sequence[str],
            options: Any = None,
            *relay: Any,
        ) -> Any:
            start = clock()
            try:
                values, stats = run_step(handle, feeds, fetches, targets, options, *relay)
            except Exception as e:
                self.failed("RunStep", e)
                raise
            observe(clock() - start)
            if feeds:
                fed(sum(map(tensor_nbytes, feeds.values())))
            # Tensors a transport relays undecoded.
            if relay and relay[0].feeds is not None:
                fed(relay[0].feeds.nbytes())
            if isinstance(values, list):
                if values:
                    fetched(sum(map(tensor_nbytes, values)))
            elif values is not None:
                fetched(values.nbytes())
            return values, stats

        return timed

    def _timed_run_graph(self, run_graph: Callable[..., Any]) -> Callable[..., Any]:
        observe = self.worker_step.observe
        clock = time.perf_counter

        @functools.wraps(run_graph)
        def timed(
            session_handle: str,
            graph_handle: str,
            step_id: int,
            feeds: Sequence[Any],
            trace: bool = False,
            deadline: float | None = None,
        ) -> Any:
            start = clock()
            try:
                result = run_graph(session_handle, graph_handle, step_id, feeds, trace, deadline)
            except Exception as e:
                self.failed("RunGraph", e)
                raise
            observe(clock() - start)
            return result

        return timed

    def _timed_recv_tensor(self, recv_tensor: Callable[..., Any]) -> Callable[..., Any]:
        observe = self.recv_seconds.observe
        count_bytes = self.recv_bytes.inc
        clock = time.perf_counter

        @functools.wraps(recv_tensor)
        def timed(
            step_id: int,
            key: str,
            callback: Callable[[Any, BaseException | None], None],
            deadline: float | None = None,
        ) -> Any:
            start = clock()

            def measured(value: Any, err: BaseException | None) -> None:
                if err is None:
                    observe(clock() - start)
                    count_bytes(tensor_nbytes(value))
                else:  # the producing step failed or was aborted: the peer gets this error
                    self.failed("RecvTensor", err)
                callback(value, err)

            return recv_tensor(step_id, key, measured, deadline)

        return timed


class StateCollector(Collector):
    """Read at scrape time: sessions, registered graphs, variables per container, GPU memory."""

    def __init__(self, identity: tuple[str, str], master: Master, worker: Worker) -> None:
        self._identity = list(identity)
        self._master = master
        self._worker = worker

    def describe(self) -> Iterable[Metric]:
        # Names only: the registry checks them for clashes without reading any state.
        return list(self._families().values())

    def collect(self) -> Iterable[Metric]:
        ident = self._identity
        families = self._families()
        sessions, graphs = families[MASTER_SESSIONS], families[WORKER_GRAPHS]
        sessions.add_metric(ident, self._master.num_sessions())
        graphs.add_metric(ident, self._worker.num_graphs())
        variables, nbytes = families[WORKER_VARIABLES], families[WORKER_VARIABLE_BYTES]
        for container, (count, size) in sorted(self._worker.resources.variable_stats().items()):
            variables.add_metric([*ident, container], count)
            nbytes.add_metric([*ident, container], size)
        out = [sessions, graphs, variables, nbytes]
        gpu = gpu_memory(self._gpu_indices())
        if gpu:
            used, pool = families[GPU_MEMORY_USED_BYTES], families[GPU_MEMORY_POOL_BYTES]
            for device, (in_use, held) in gpu.items():
                used.add_metric([*ident, device], in_use)
                pool.add_metric([*ident, device], held)
            out += [used, pool]
        return out

    def _families(self) -> dict[str, GaugeMetricFamily]:
        with_container = [*IDENTITY_LABELS, "container"]
        with_device = [*IDENTITY_LABELS, "device"]
        specs = [
            (MASTER_SESSIONS, "Sessions open on this task's master.", IDENTITY_LABELS),
            (
                WORKER_GRAPHS,
                "Graph partitions registered with this task's worker.",
                IDENTITY_LABELS,
            ),
            (WORKER_VARIABLES, "Variables in each resource container.", with_container),
            (WORKER_VARIABLE_BYTES, "Bytes of the variables in each container.", with_container),
            (GPU_MEMORY_USED_BYTES, "GPU memory in use by cupy arrays, per GPU.", with_device),
            (
                GPU_MEMORY_POOL_BYTES,
                "GPU memory cupy's memory pool holds (in use or cached), per GPU.",
                with_device,
            ),
        ]
        return {
            name: GaugeMetricFamily(name, doc, labels=list(labels)) for name, doc, labels in specs
        }

    def _gpu_indices(self) -> list[int]:
        out = []
        for d in self._worker.devices:
            if d.device_type == "GPU":
                with contextlib.suppress(ValueError):
                    out.append(int(d.name.rsplit(":", 1)[1]))
        return out


def gpu_memory(indices: Sequence[int]) -> dict[str, tuple[int, int]]:
    """'GPU:<i>' -> (bytes in use, bytes held by the pool) of cupy's default memory pool, for
    the worker's GPUs; empty unless this process already uses cupy (never imported here)."""
    global _gpu_warned
    cupy = sys.modules.get("cupy")
    if cupy is None or not indices:
        return {}
    out: dict[str, tuple[int, int]] = {}
    try:
        pool = cupy.get_default_memory_pool()
        for i in indices:
            with cupy.cuda.Device(i):
                out[f"GPU:{i}"] = (int(pool.used_bytes()), int(pool.total_bytes()))
    except Exception as e:  # a scrape must not fail because a GPU query did
        if not _gpu_warned:  # once: scrapes come every few seconds
            _gpu_warned = True
            log.warning("could not read GPU memory from cupy: %s", e)
    return out


_gpu_warned = False


# ---- the HTTP endpoint --------------------------------------------------------------------


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds would flood the log."""


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True

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

    def __init__(self, registry: CollectorRegistry, port: int, host: str = "") -> None:
        self._httpd = _bind_http(make_wsgi_app(registry), port, host)
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


def _bind_http(app: Any, port: int, host: str) -> WSGIServer:
    """Every interface (IPv6 and IPv4 where the system has both), or `host`."""
    if host:
        return make_server(host, port, app, _ThreadingWSGIServer, handler_class=_QuietHandler)
    try:
        return make_server("::", port, app, _WSGIServerV6, handler_class=_QuietHandler)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise
    # No IPv6 here: IPv4 only.
    return make_server("0.0.0.0", port, app, _ThreadingWSGIServer, handler_class=_QuietHandler)


# ---- where the port comes from ------------------------------------------------------------


@dataclass(frozen=True)
class PortChoice:
    """A metrics port (None: off), and whether failing to bind it is an error."""

    port: int | None
    required: bool
    source: str


def parse_port(text: str, where: str) -> int | None:
    """'9090' -> 9090, '0' -> 0 (any free port), 'off' or a negative number -> None."""
    value = text.strip().lower()
    if value in OFF_WORDS:
        return None
    try:
        port = int(value)
    except ValueError:
        raise ValueError(
            f"{where} must be a port number, 0 (any free port) or 'off'/-1, not {text!r}"
        ) from None
    if port < 0:
        return None
    if port > 65535:
        raise ValueError(f"{where} must be at most 65535, not {port}")
    return port


def resolve_port(
    metrics_port: int | str | PortChoice | None, environ: Mapping[str, str] | None = None
) -> PortChoice:
    """Server's `metrics_port`: an int or string asks for that port (negative or 'off': no
    metrics); None defers to TFCLUSTER_METRICS_PORT (unset: no metrics); a PortChoice is
    taken as it is (a port that may be given up, say)."""
    if isinstance(metrics_port, PortChoice):
        return metrics_port
    if metrics_port is not None:
        port = parse_port(str(metrics_port), "metrics_port")
        return PortChoice(port, True, "metrics_port")
    env = os.environ if environ is None else environ
    text = env.get(PORT_ENV, "").strip()
    if not text:
        return PortChoice(None, False, "default")
    try:
        return PortChoice(parse_port(text, PORT_ENV), False, PORT_ENV)
    except ValueError as e:
        log.warning("%s; serving no metrics", e)
        return PortChoice(None, False, PORT_ENV)


def port_available(port: int) -> bool:
    """Whether nothing listens on `port` on any interface (0 is always available)."""
    if port == 0:
        return True
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
        finally:
            sock.close()
    return True


@dataclass
class ServerTelemetry:
    """What a Server holds when metrics are on: the metrics and their endpoint."""

    metrics: ServerMetrics
    endpoint: MetricsEndpoint

    @property
    def port(self) -> int:
        return self.endpoint.port

    def close(self) -> None:
        self.endpoint.close()


def start_for_server(
    job: str,
    task_index: int,
    master: Master,
    worker: Worker,
    metrics_port: int | str | PortChoice | None,
    task: str = "",
) -> ServerTelemetry | None:
    """Metrics for a new Server (instrumenting its master and worker) served over HTTP, or
    None when they are off or (port from the environment only) the port cannot be bound."""
    choice = resolve_port(metrics_port)
    if choice.port is None:
        return None
    metrics = ServerMetrics(job, task_index, master, worker)
    try:
        endpoint = MetricsEndpoint(metrics.registry, choice.port)
    except OSError as e:
        where = f"metrics port {choice.port} of task {task or f'/job:{job}/task:{task_index}'}"
        if choice.required:
            raise errors.UnknownError(
                None, None, f"Could not start the metrics endpoint: {where}: {e.strerror or e}"
            ) from None
        log.warning("serving no metrics: %s (from %s): %s", where, choice.source, e.strerror or e)
        return None
    metrics.instrument(master, worker)
    return ServerTelemetry(metrics, endpoint)
