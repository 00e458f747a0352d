"""The devices of the tasks of a cluster, as a master's placement needs them, and the tasks
a session sees through ConfigProto.device_filters."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait

from tfcluster.distributed.interfaces import WorkerCacheInterface
from tfcluster.framework import errors
from tfcluster.runtime import cpp_log
from tfcluster.runtime import placement as placing

# How often a master logs the tasks it still waits for when it creates a session (TF's
# kLoggingPeriodMs), and where TF's log says the line comes from.
WAITING_LOG_PERIOD = 10.0
_WAITING_WHERE = "tensorflow/core/distributed_runtime/master.cc:268"


class ClusterDevices:
    """Asks each task for its devices once, on first use, waiting for it until the deadline;
    later calls (every session of the master) get the same answer, so a new session on a
    live part of the cluster does not wait for a task that died since. Tasks are asked in
    parallel, and no lock is held while one is asked: a session that needs other tasks
    never waits for a missing one (device_filters)."""

    def __init__(self, worker_cache: WorkerCacheInterface) -> None:
        self._worker_cache = worker_cache
        self._lock = threading.Lock()
        self._found: dict[str, Future[placing.TaskDevices]] = {}
        self._pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="get-status")

    def __call__(
        self, deadline: float | None = None, tasks: Sequence[str] | None = None
    ) -> list[placing.TaskDevices]:
        """The devices of `tasks` (None: every task of the cluster)."""
        wanted = list(self._worker_cache.tasks() if tasks is None else tasks)
        futures = [self._asked(task, deadline) for task in wanted]
        _wait_logging_the_pending(wanted, futures, deadline)
        out = []
        for task, f in zip(wanted, futures):
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                out.append(f.result(timeout))
            except TimeoutError:
                raise errors.DeadlineExceededError(
                    None,
                    None,
                    f"Timed out waiting for task {task} of the cluster to answer: a session's "
                    "first run waits for every task it sees (all but those ConfigProto."
                    "device_filters leave out)",
                ) from None
        return out

    def _asked(self, task: str, deadline: float | None) -> Future[placing.TaskDevices]:
        with self._lock:
            f = self._found.get(task)
            if f is not None and not (f.done() and f.exception() is not None):
                return f
            f = self._found[task] = self._pool.submit(self._ask, task, deadline)
            return f

    def _ask(self, task: str, deadline: float | None) -> placing.TaskDevices:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        counts: dict[str, int] = {}
        for d in self._worker_cache.worker(task).get_status(timeout):
            counts[d.device_type] = counts.get(d.device_type, 0) + 1
        job, index = _parse_task(task)
        return placing.TaskDevices(job, index, counts)


def _wait_logging_the_pending(
    tasks: Sequence[str], futures: Sequence[Future[placing.TaskDevices]], deadline: float | None
) -> None:
    """Waits for the tasks' answers until the deadline, logging the tasks that have not
    answered every WAITING_LOG_PERIOD seconds, as TF 1.15's master does while it creates a
    session ("CreateSession still waiting for response from worker: /job:...")."""
    while True:
        pending = [f for f in futures if not f.done()]
        if not pending:
            return
        period = WAITING_LOG_PERIOD
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            period = min(period, left)
        wait(pending, timeout=period)
        if deadline is not None and time.monotonic() >= deadline:
            return
        for task, f in zip(tasks, futures):
            if not f.done():
                cpp_log.info(
                    _WAITING_WHERE,
                    f"CreateSession still waiting for response from worker: {task}\n",
                )


def filtered_tasks(tasks: Sequence[str], device_filters: Sequence[str]) -> list[str]:
    """The tasks a session with these ConfigProto.device_filters sees (all without filters):
    those that match a filter's job, replica and task, as TF's filters name them
    ('/job:ps', '/job:worker/task:1')."""
    if not device_filters:
        return list(tasks)
    specs = [_parse_filter(f) for f in device_filters]
    return [t for t in tasks if any(_matches(spec, t) for spec in specs)]


def _parse_filter(text: str) -> dict[str, str]:
    spec: dict[str, str] = {}
    for part in text.strip("/").split("/"):
        key, sep, value = part.partition(":")
        if sep and key in ("job", "replica", "task"):
            spec[key] = value
    return spec


def _matches(spec: dict[str, str], task: str) -> bool:
    job, index = _parse_task(task)
    have = {"job": job, "replica": "0", "task": str(index)}
    return all(value in ("*", have[key]) for key, value in spec.items())


def _parse_task(task: str) -> tuple[str, int]:
    job = task.split("/job:")[1].split("/")[0]
    index = int(task.split("/task:")[1].split("/")[0])
    return job, index
