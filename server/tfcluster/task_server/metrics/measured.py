"""A task server's master and worker with their steps measured: wrappers, not patches.

A server with metrics serves these wrappers (to its gRPC and direct clients, to in-process
sessions, and to its own master as the local worker) in place of the Master and Worker they
wrap; everything else reaches the plain objects. tf.Session() with no target and servers
without metrics never meet a wrapper and pay nothing; a measured step costs a few
microseconds (two clock reads, a histogram and two counters).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tfcluster.distributed.interfaces import (
    DeviceInfo,
    ForwardedTensors,
    RunGraphResult,
    StepRelay,
)
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import RecvCallback, Worker
from tfcluster.framework import dtypes
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime.collective_meeting import CheckFn, Part
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition
from tfcluster.task_server.metrics.families import ServerMetrics

_clock = time.perf_counter


def tensor_nbytes(value: Any) -> int:
    """Bytes of a tensor value: its buffer, or the bytes of its strings."""
    nbytes = getattr(value, "nbytes", None)
    if nbytes is None:
        return len(value) if isinstance(value, bytes | str) else 0
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "O":
        return sum(len(x) for x in value.flat if isinstance(x, bytes | str))
    return int(nbytes)


class MeasuredMaster:
    """A Master (MasterInterface) whose steps count: RunStep latency, bytes fed and fetched,
    failures by status code."""

    def __init__(self, master: Master, metrics: ServerMetrics) -> None:
        self._master = master
        self._metrics = metrics
        self._observe = metrics.master_step.observe
        self._fed = metrics.fed_bytes.inc
        self._fetched = metrics.fetched_bytes.inc

    @property
    def local_task(self) -> str:
        return self._master.local_task

    def run_step(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None = None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]:
        start = _clock()
        try:
            values, stats = self._master.run_step(handle, feeds, fetches, targets, options)
        except Exception as e:
            self._metrics.failed("RunStep", e)
            raise
        self._done(start, feeds, values)
        return values, stats

    def run_step_relayed(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
        relay: StepRelay,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        start = _clock()
        try:
            values, stats = self._master.run_step_relayed(
                handle, feeds, fetches, targets, options, relay
            )
        except Exception as e:
            self._metrics.failed("RunStep", e)
            raise
        if relay.feeds is not None:
            self._fed(relay.feeds.nbytes())
        self._done(start, feeds, values)
        return values, stats

    def _done(
        self, start: float, feeds: Mapping[str, Any], values: list[Any] | ForwardedTensors
    ) -> None:
        self._observe(_clock() - start)
        if feeds:
            self._fed(sum(map(tensor_nbytes, feeds.values())))
        if not isinstance(values, list):
            self._fetched(values.nbytes())
        elif values:
            self._fetched(sum(map(tensor_nbytes, values)))

    # ---- not measured ------------------------------------------------------------------
    def create_session(
        self,
        nodes: Sequence[Node],
        output_dtypes: Mapping[str, dtypes.DType],
        config: config_pb2.ConfigProto | None = None,
    ) -> str:
        return self._master.create_session(nodes, output_dtypes, config)

    def extend_session(
        self, handle: str, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
    ) -> None:
        self._master.extend_session(handle, nodes, output_dtypes)

    def graph_version(self, handle: str) -> int:
        return self._master.graph_version(handle)

    def close_session(self, handle: str) -> None:
        self._master.close_session(handle)

    def list_devices(self, timeout: float | None = None) -> list[DeviceInfo]:
        return self._master.list_devices(timeout)

    def reset(self, containers: Sequence[str]) -> None:
        self._master.reset(containers)


class MeasuredWorker:
    """A Worker (ServedWorker) whose partitions and hand-overs count: RunGraph latency,
    RecvTensor latency and bytes, failures of either."""

    def __init__(self, worker: Worker, metrics: ServerMetrics) -> None:
        self._worker = worker
        self._metrics = metrics
        self._observe_step = metrics.worker_step.observe
        self._observe_recv = metrics.recv_seconds.observe
        self._count_recv_bytes = metrics.recv_bytes.inc

    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> RunGraphResult:
        start = _clock()
        try:
            result = self._worker.run_graph(
                session_handle, graph_handle, step_id, feeds, trace, deadline, pushed
            )
        except Exception as e:
            self._metrics.failed("RunGraph", e)
            raise
        self._observe_step(_clock() - start)
        return result

    def recv_tensor(
        self,
        step_id: int,
        key: str,
        callback: RecvCallback,
        deadline: float | None = None,
    ) -> Callable[[], Any] | None:
        start = _clock()

        def measured(value: Any, err: BaseException | None) -> None:
            if err is None:
                self._observe_recv(_clock() - start)
                self._count_recv_bytes(tensor_nbytes(value))
            else:  # the producing step failed or was aborted: the peer gets this error
                self._metrics.failed("RecvTensor", err)
            callback(value, err)

        return self._worker.recv_tensor(step_id, key, measured, deadline)

    # ---- not measured ------------------------------------------------------------------
    @property
    def task(self) -> str:
        return self._worker.task

    def collective_join(
        self, part: Part, deadline: float | None, check: CheckFn | None = None
    ) -> Any:
        return self._worker.collective_join(part, deadline, check)

    @property
    def orphan_recv_timeout(self) -> float:
        return self._worker.orphan_recv_timeout

    def get_status(self, timeout: float | None = None) -> list[DeviceInfo]:
        return self._worker.get_status(timeout)

    def register_graph(
        self, session_handle: str, partition: Partition, deadline: float | None = None
    ) -> str:
        return self._worker.register_graph(session_handle, partition, deadline)

    def deregister_graph(self, session_handle: str, graph_handle: str) -> None:
        self._worker.deregister_graph(session_handle, graph_handle)

    def abort_step(self, step_id: int, error: BaseException) -> None:
        self._worker.abort_step(step_id, error)

    def cleanup_graph(self, step_id: int) -> None:
        self._worker.cleanup_graph(step_id)

    def cleanup_all(self, containers: Sequence[str]) -> None:
        self._worker.cleanup_all(containers)

    def delete_worker_session(self, session_handle: str) -> None:
        self._worker.delete_worker_session(session_handle)

    def create_worker_session(
        self, session_handle: str, cluster: Mapping[str, str], deadline: float | None = None
    ) -> None:
        self._worker.create_worker_session(session_handle, cluster, deadline)

    def step_known(self, step_id: int) -> bool:
        return self._worker.step_known(step_id)

    def abandon_recv(self, step_id: int) -> None:
        self._worker.abandon_recv(step_id)
