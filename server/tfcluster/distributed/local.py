"""An in-process, single-task cluster: what `tf.Session()` with no target runs on."""

from __future__ import annotations

from collections.abc import Mapping

from tfcluster.distributed.interfaces import WorkerInterface
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker

LOCAL_TASK = "/job:localhost/replica:0/task:0"


class LocalWorkerCache:
    def __init__(self, worker: Worker) -> None:
        self._worker = worker

    def tasks(self) -> list[str]:
        return [self._worker.task]

    def worker(self, task: str) -> WorkerInterface:
        return self._worker

    def is_local(self, task: str) -> bool:
        return True

    def addresses(self) -> dict[str, str]:
        return {}

    def learn_peers(self, addresses: Mapping[str, str]) -> None:
        """In-process: no task is reached by address."""


def new_local_master(cpus: int = 1) -> Master:
    """A fresh engine: its own worker and resources, shared with no other session; `cpus`
    logical CPU devices (ConfigProto.device_count["CPU"], as TF's DirectSession makes)."""
    worker = Worker(LOCAL_TASK, cpus=cpus)
    master = Master(LocalWorkerCache(worker), LOCAL_TASK)
    master.sessions_share_resources = False  # isolate_session_state holds by construction
    master.direct_session = True
    return master


def close_local_master(master: Master) -> None:
    """Ends an engine of new_local_master with its session: its sessions close and its
    resources go, queues closed with their pending enqueues cancelled, so that steps blocked
    on them (QueueRunner threads) end, as TF's closing a session cancels them."""
    master.close()
    for task in master.worker_cache.tasks():
        worker = master.worker_cache.worker(task)
        if isinstance(worker, Worker):
            worker.cleanup_all([])
