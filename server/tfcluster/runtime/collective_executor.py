"""A task's collective executor: where its collective ops (CollectiveReduce, CollectiveGather,
CollectiveBcastSend/Recv) take their parts to meet the other members of their group.

All members of a group meet on one task, the group leader: the server's
ConfigProto.experimental.collective_group_leader when set (MultiWorkerMirroredStrategy sets
it, as TF's does), else the chief's task 0, else the worker job's task 0, else the first task
of the cluster. A single task (a local session) is its own leader. Members on the leader meet
in its MeetingTable directly; the others reach it through their worker cache (the leader's
worker, whatever transport its client speaks: `CollectivePeer.collective_join`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from tfcluster.framework import errors
from tfcluster.runtime.collective_meeting import CheckFn, MeetingTable, Part, deadline_check


class Peers(Protocol):
    """What the executor asks of its task's worker cache (distributed's WorkerCacheInterface)."""

    def tasks(self) -> list[str]: ...

    def is_local(self, task: str) -> bool: ...

    def worker(self, task: str) -> Any: ...


def task_name(job: str, index: int) -> str:
    return f"/job:{job}/replica:0/task:{index}"


class CollectivePeer(Protocol):
    """A worker that serves as a group leader for other tasks."""

    def collective_join(
        self, part: Part, deadline: float | None, check: CheckFn | None = None
    ) -> np.ndarray: ...


class CollectiveExecutor:
    def __init__(self, task: str, worker_cache: Callable[[], Peers | None]) -> None:
        self.task = task
        self.table = MeetingTable()
        # ConfigProto.experimental.collective_group_leader of this task's server ("": the
        # default choice, see the module's docstring).
        self.group_leader = ""
        self._worker_cache = worker_cache

    def leader(self) -> str:
        cache = self._worker_cache()
        if cache is None:
            return self.task
        if self.group_leader:
            return _task_of(self.group_leader)
        tasks = cache.tasks()
        if len(tasks) <= 1:
            return self.task
        for job in ("chief", "worker"):
            first = task_name(job, 0)
            if first in tasks:
                return first
        return sorted(tasks)[0]

    def join(self, part: Part, deadline: float | None, check: CheckFn) -> np.ndarray:
        """`part`'s result, met on the group leader; `check` raises when the step ends."""
        leader = self.leader()
        cache = self._worker_cache()
        if leader == self.task or cache is None or cache.is_local(leader):
            return self.table.join(part, check)
        peer = cache.worker(leader)
        join = getattr(peer, "collective_join", None)
        if join is None:
            raise errors.UnimplementedError(
                None, None, f"The group leader {leader} cannot be reached for collective ops"
            )
        return join(part, deadline, check)  # type: ignore[no-any-return]

    def serve(self, part: Part, deadline: float | None, cancelled: Callable[[], bool]) -> Any:
        """A member's call from another task (this task is its leader)."""
        return self.table.join(part, deadline_check(deadline, cancelled))


def _task_of(device: str) -> str:
    """'/job:chief/replica:0/task:0' of a leader named with or without replica/device."""
    fields = dict(
        f.split(":", 1) for f in device.strip("/").split("/") if ":" in f and f[:4] != "devi"
    )
    return task_name(fields.get("job", "localhost"), int(fields.get("task", 0)))


# The executor of each worker's ResourceMgr: how a kernel, which sees its step's resources,
# finds its task's executor. Steps of no worker (eager calls) meet in the process's own.
_BY_RESOURCES: weakref.WeakKeyDictionary[Any, CollectiveExecutor] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_PROCESS = CollectiveExecutor("/job:localhost/replica:0/task:0", lambda: None)


def attach(resources: Any, executor: CollectiveExecutor) -> None:
    with _LOCK:
        _BY_RESOURCES[resources] = executor


def for_resources(resources: Any) -> CollectiveExecutor:
    with _LOCK:
        return _BY_RESOURCES.get(resources, _PROCESS)
