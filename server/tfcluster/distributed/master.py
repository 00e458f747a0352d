"""The master service's logic: sessions by handle, devices, reset. Transport-free."""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.distributed.devices import ClusterDevices
from tfcluster.distributed.interfaces import (
    DeviceInfo,
    ForwardedTensors,
    StepRelay,
    WorkerCacheInterface,
)
from tfcluster.distributed.master_session import MasterSession
from tfcluster.framework import dtypes, errors
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime import gpu
from tfcluster.runtime.graph_ir import Node


class Master:
    def __init__(
        self,
        worker_cache: WorkerCacheInterface,
        local_task: str,
        default_config: config_pb2.ConfigProto | None = None,
    ) -> None:
        self.worker_cache = worker_cache
        self.local_task = local_task
        self.default_config = default_config or config_pb2.ConfigProto()
        # GPU memory options are per process (as in TF): a server's own config applies at once.
        gpu.configure_memory(self.default_config.gpu_options)
        self._sessions: dict[str, MasterSession] = {}
        self._lock = threading.Lock()
        # Shared by every session of this master.
        self.task_devices = ClusterDevices(worker_cache)
        # Whether its sessions share the workers' resources (variables, queues): a task's
        # master does; an engine made for one local session (distributed/local.py) does not.
        self.sessions_share_resources = True

    def create_session(
        self,
        nodes: Sequence[Node],
        output_dtypes: Mapping[str, dtypes.DType],
        config: config_pb2.ConfigProto | None = None,
    ) -> str:
        merged = config_pb2.ConfigProto()
        merged.CopyFrom(self.default_config)
        if config is not None:
            merged.MergeFrom(config)
        gpu.configure_memory(merged.gpu_options)
        if merged.isolate_session_state and self.sessions_share_resources:
            raise errors.UnimplementedError(
                None,
                None,
                "ConfigProto.isolate_session_state is not supported by a task's master: its "
                "sessions share the cluster's variables and queues, as TF's do by default (a "
                "local tf.Session() has resources of its own already)",
            )
        handle = secrets.token_hex(8)
        session = MasterSession(
            handle, self.worker_cache, self.local_task, self.task_devices, merged
        )
        session.extend(nodes, output_dtypes)
        with self._lock:
            self._sessions[handle] = session
        return handle

    def session(self, handle: str) -> MasterSession:
        s = self._sessions.get(handle)
        if s is None:
            raise errors.AbortedError(
                None, None, f"Session {handle} is not found. Possibly, this master has restarted."
            )
        return s

    def extend_session(
        self, handle: str, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
    ) -> None:
        self.session(handle).extend(nodes, output_dtypes)

    def graph_version(self, handle: str) -> int:
        return self.session(handle).graph_version

    def run_step(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None = None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]:
        return self.session(handle).run(feeds, fetches, targets, options)

    def run_step_relayed(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
        relay: StepRelay,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        """A step for a transport that relays tensors (see MasterSession.run_relayed)."""
        return self.session(handle).run_relayed(feeds, fetches, targets, options, relay)

    def close_session(self, handle: str) -> None:
        with self._lock:
            s = self._sessions.pop(handle, None)
        if s is not None:
            s.close()

    def list_devices(self, timeout: float | None = None) -> list[DeviceInfo]:
        out: list[DeviceInfo] = []
        for task in self.worker_cache.tasks():
            out.extend(self.worker_cache.worker(task).get_status(timeout))
        return out

    def reset(self, containers: Sequence[str]) -> None:
        """Clears containers on every worker and closes this master's sessions."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.close()
        for task in self.worker_cache.tasks():
            # A task that is down has lost its containers already.
            with contextlib.suppress(errors.UnavailableError):
                self.worker_cache.worker(task).cleanup_all(containers)

    def num_sessions(self) -> int:
        return len(self._sessions)

    def close(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.close()
