"""Finds a task's worker: this task's own (in-process) worker, gRPC clients for the others.

The others are the tasks of this task's cluster spec, and the tasks sessions told it about
(CreateWorkerSession carries the master's cluster, as TensorFlow's does for a session with a
cluster_def): a ps serves workers added after it started, whose tensors it must fetch."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

import grpc

from tfcluster.distributed.cluster_spec import ClusterSpec, task_name
from tfcluster.distributed.interfaces import WorkerInterface
from tfcluster.framework import errors
from tfcluster.rpc.channels import private_channel
from tfcluster.rpc.worker_client import GrpcRemoteWorker

# Tasks learned from sessions, kept most recently told last; the oldest go past this many.
MAX_LEARNED_PEERS = 4096


class GrpcWorkerCache:
    def __init__(
        self, cluster: ClusterSpec, local_task: str, local_worker: WorkerInterface
    ) -> None:
        self._local_task = local_task
        self._local = local_worker
        self._addresses: dict[str, str] = {}
        for job in cluster.jobs:
            for i in cluster.task_indices(job):
                self._addresses[task_name(job, i)] = cluster.task_address(job, i)
        self._tasks = cluster.task_names()
        self._learned: OrderedDict[str, str] = OrderedDict()
        self._remote: dict[str, GrpcRemoteWorker] = {}
        self._lock = threading.Lock()
        self._channels: dict[str, grpc.Channel] = {}

    def tasks(self) -> list[str]:
        return list(self._tasks)

    def is_local(self, task: str) -> bool:
        return task == self._local_task

    def address(self, task: str) -> str:
        return self._addresses.get(task) or self._learned.get(task, "")

    def addresses(self) -> dict[str, str]:
        """This task's cluster spec (what a session of this task's master propagates)."""
        return dict(self._addresses)

    def learn_peers(self, addresses: Mapping[str, str]) -> None:
        """Tasks outside this task's cluster spec; an address a session changes replaces the
        old one (a worker re-created elsewhere). The cluster spec's own tasks never change."""
        stale: list[str] = []
        with self._lock:
            for task, address in addresses.items():
                if task in self._addresses or task == self._local_task:
                    continue
                if self._learned.get(task) != address:
                    stale.append(task)
                self._learned[task] = address
                self._learned.move_to_end(task)
            while len(self._learned) > MAX_LEARNED_PEERS:
                task, _ = self._learned.popitem(last=False)
                stale.append(task)
            gone = [(self._remote.pop(t, None), self._channels.pop(t, None)) for t in stale]
        for worker, channel in gone:
            if worker is not None:
                worker.close()
            if channel is not None:
                channel.close()

    def worker(self, task: str) -> WorkerInterface:
        if task == self._local_task:
            return self._local
        w = self._remote.get(task)
        if w is not None:
            return w
        with self._lock:
            address = self._addresses.get(task) or self._learned.get(task)
            if address is None:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Task {task} is not in the cluster (tasks: {self._tasks}), and no "
                    "session told this task where it is",
                )
            w = self._remote.get(task)
            if w is None:
                channel = self._channels[task] = private_channel(address)
                w = self._remote[task] = GrpcRemoteWorker(task, address, channel)
            return w

    def close(self) -> None:
        with self._lock:
            channels = list(self._channels.values())
            self._channels.clear()
            remote = list(self._remote.values())
            self._remote.clear()
        for w in remote:
            w.close()
        for ch in channels:
            ch.close()
