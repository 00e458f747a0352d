"""The Prometheus metric families of one task server, in a registry of its own.

Every Server with metrics gets its own CollectorRegistry, so several servers in one process
never collide. Labels keep cardinality bounded: tf_job and tf_task name the server (not
`job`: Prometheus attaches its own `job` label to every scraped series and would rename ours
to `exported_job`), `method` and `code` name failed calls, `container` names a resource
container, `device` a GPU. Never step ids, tensor or node names.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterable, Mapping, Sequence

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.framework import errors

log = logging.getLogger("tfcluster.metrics")

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


# ---- the metrics of one server ------------------------------------------------------------


class ServerMetrics:
    """The registry of one task server: the series its measured master and worker
    (measured.py) and its error counting (error_counting.py) feed, and the state read at
    scrape time (zero sessions and graphs until it watches a master and a worker: the
    endpoint may be scraped while the server is still starting)."""

    def __init__(
        self, job: str, task_index: int, registry: CollectorRegistry | None = None
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
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self._state = StateCollector(self.identity)
        r.register(self._state)

    def watch(self, master: Master, worker: Worker) -> None:
        """Reports the state of `master` and `worker` (sessions, graphs, variables, GPU
        memory) at every scrape."""
        self._state.watch(master, worker)

    def count_error(self, method: str, code: str) -> None:
        self.errors.labels(*self.identity, method, code).inc()

    def failed(self, method: str, err: BaseException) -> None:
        """A call failed with `err` (one error may fail a worker's partition, the master's
        step and peers' RecvTensors: each counts); marked, so the status it becomes in the
        gRPC layer is not counted again."""
        self.count_error(method, code_name(err))
        mark_counted(err)


class StateCollector(Collector):
    """Read at scrape time: sessions, registered graphs, variables per container, GPU memory."""

    def __init__(self, identity: tuple[str, str]) -> None:
        self._identity = list(identity)
        self._master: Master | None = None
        self._worker: Worker | None = None

    def watch(self, master: Master, worker: Worker) -> None:
        self._master, self._worker = master, worker

    def describe(self) -> Iterable[Metric]:
        # Names only: the registry checks them for clashes without reading any state.
        return list(self._families().values())

    def collect(self) -> Iterable[Metric]:
        ident = self._identity
        families = self._families()
        sessions, graphs = families[MASTER_SESSIONS], families[WORKER_GRAPHS]
        master, worker = self._master, self._worker
        sessions.add_metric(ident, master.num_sessions() if master is not None else 0)
        graphs.add_metric(ident, worker.num_graphs() if worker is not None else 0)
        variables, nbytes = families[WORKER_VARIABLES], families[WORKER_VARIABLE_BYTES]
        out = [sessions, graphs, variables, nbytes]
        if worker is None:
            return out
        for container, (count, size) in sorted(worker.resources.variable_stats().items()):
            variables.add_metric([*ident, container], count)
            nbytes.add_metric([*ident, container], size)
        gpu = gpu_memory(self._gpu_indices(worker))
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

    def _gpu_indices(self, worker: Worker) -> list[int]:
        out = []
        for d in worker.devices:
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
