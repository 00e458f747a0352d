"""The devices of every task of a cluster, as a master's placement needs them."""

from __future__ import annotations

import threading
import time

from tfcluster.distributed.interfaces import WorkerCacheInterface
from tfcluster.runtime import placement as placing


class ClusterDevices:
    """Asks every task for its devices once, on first use, waiting for each until the
    deadline; later calls (every session of the master) get the same answer, so a new
    session on a live part of the cluster does not wait for a task that died since."""

    def __init__(self, worker_cache: WorkerCacheInterface) -> None:
        self._worker_cache = worker_cache
        self._found: list[placing.TaskDevices] | None = None
        self._lock = threading.Lock()

    def __call__(self, deadline: float | None = None) -> list[placing.TaskDevices]:
        if self._found is not None:
            return self._found
        with self._lock:
            if self._found is None:
                self._found = [self._ask(task, deadline) for task in self._worker_cache.tasks()]
            return self._found

    def _ask(self, task: str, deadline: float | None) -> placing.TaskDevices:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        counts: dict[str, int] = {}
        for d in self._worker_cache.worker(task).get_status(timeout):
            counts[d.device_type] = counts.get(d.device_type, 0) + 1
        job, index = _parse_task(task)
        return placing.TaskDevices(job, index, counts)


def _parse_task(task: str) -> tuple[str, int]:
    job = task.split("/job:")[1].split("/")[0]
    index = int(task.split("/task:")[1].split("/")[0])
    return job, index
