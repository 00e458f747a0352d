"""The master service's logic: sessions by handle, devices, reset. Transport-free."""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.distributed import profiler_log
from tfcluster.distributed.devices import ClusterDevices
from tfcluster.distributed.interfaces import (
    DeviceInfo,
    ForwardedTensors,
    StepRelay,
    WorkerCacheInterface,
)
from tfcluster.distributed.master_session import DEFAULT_MAX_PLANS, MasterSession
from tfcluster.framework import dtypes, errors
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime import gpu
from tfcluster.runtime.graph_ir import Node

# How many collected session handles a master remembers, to say why a late step fails.
_COLLECTED_REMEMBERED = 1024


class Master:
    """`session_gc_seconds`: a session with no step or extension for this long is closed
    (its client died or forgot it), its graphs deleted on every task, as TF's master
    collects sessions after inactivity; 0 keeps them until closed. `max_plans_per_session`:
    the plans a session caches (least recently used go, their graphs deregistered)."""

    def __init__(
        self,
        worker_cache: WorkerCacheInterface,
        local_task: str,
        default_config: config_pb2.ConfigProto | None = None,
        session_gc_seconds: float = 0.0,
        max_plans_per_session: int = DEFAULT_MAX_PLANS,
    ) -> None:
        if session_gc_seconds < 0:
            raise ValueError(f"session_gc_seconds must be >= 0, got {session_gc_seconds}")
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
        # Whether it stands for a local session (TF's DirectSession), not a task's master.
        self.direct_session = False
        self.session_gc_seconds = session_gc_seconds
        self.max_plans_per_session = max_plans_per_session
        # handle -> why it is gone, for sessions the collector closed.
        self._collected: OrderedDict[str, str] = OrderedDict()
        self._stopped = threading.Event()
        if session_gc_seconds > 0:
            threading.Thread(
                target=self._collect_forever, name="master-session-gc", daemon=True
            ).start()

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
        if self.direct_session:
            # A local session has this process's devices only: TF's DirectSession ignores
            # ConfigProto.device_filters (an Estimator's distributed config has them).
            merged.ClearField("device_filters")
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
            handle,
            self.worker_cache,
            self.local_task,
            self.task_devices,
            merged,
            max_plans=self.max_plans_per_session,
        )
        session.extend(nodes, output_dtypes)
        with self._lock:
            self._sessions[handle] = session
        return handle

    def session(self, handle: str) -> MasterSession:
        s = self._sessions.get(handle)
        if s is None:
            why = self._collected.get(handle)
            if why is not None:
                raise errors.AbortedError(None, None, f"Session {handle} is not found: {why}")
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
        session = self.session(handle)
        profiler_log.step_starting(options, self.direct_session)
        return session.run(feeds, fetches, targets, options)

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
        session = self.session(handle)
        profiler_log.step_starting(options, self.direct_session)
        return session.run_relayed(feeds, fetches, targets, options, relay)

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
        """Clears containers on every worker, then closes this master's sessions (TF's
        Master::Reset order: a step blocked on a queue sees the queue closed, OutOfRange,
        before its session's close would cancel it)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for task in self.worker_cache.tasks():
            # A task that is down has lost its containers already.
            with contextlib.suppress(errors.UnavailableError):
                self.worker_cache.worker(task).cleanup_all(containers)
        for s in sessions:
            s.close()

    def num_sessions(self) -> int:
        return len(self._sessions)

    def collect_idle_sessions(self) -> int:
        """Closes the sessions idle for session_gc_seconds; how many."""
        if self.session_gc_seconds <= 0:
            return 0
        now = time.monotonic()
        with self._lock:
            idle = [
                (h, s)
                for h, s in self._sessions.items()
                if s.idle_seconds(now) > self.session_gc_seconds
            ]
            why = (
                f"closed after {self.session_gc_seconds:g}s without a step "
                "(the master's session_gc_seconds)"
            )
            for h, _ in idle:
                del self._sessions[h]
                self._collected[h] = why
            while len(self._collected) > _COLLECTED_REMEMBERED:
                self._collected.popitem(last=False)
        for _, s in idle:
            s.close()
        return len(idle)

    def _collect_forever(self) -> None:
        interval = min(self.session_gc_seconds / 4, 60.0)
        while not self._stopped.wait(interval):
            # The collector must outlive a failing close (a dead worker, say).
            with contextlib.suppress(Exception):
                self.collect_idle_sessions()

    def close(self) -> None:
        self._stopped.set()
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.close()
