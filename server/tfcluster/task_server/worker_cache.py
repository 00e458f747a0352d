"""Finds a task's worker: this task's own (in-process) worker, gRPC clients for the others."""

from __future__ import annotations

import threading

import grpc

from tfcluster.distributed.cluster_spec import ClusterSpec, task_name
from tfcluster.distributed.interfaces import WorkerInterface
from tfcluster.framework import errors
from tfcluster.rpc.channels import private_channel
from tfcluster.rpc.worker_client import GrpcRemoteWorker


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
        self._remote: dict[str, GrpcRemoteWorker] = {}
        self._lock = threading.Lock()
        self._channels: list[grpc.Channel] = []

    def tasks(self) -> list[str]:
        return list(self._tasks)

    def is_local(self, task: str) -> bool:
        return task == self._local_task

    def address(self, task: str) -> str:
        return self._addresses.get(task, "")

    def worker(self, task: str) -> WorkerInterface:
        if task == self._local_task:
            return self._local
        w = self._remote.get(task)
        if w is not None:
            return w
        address = self._addresses.get(task)
        if address is None:
            raise errors.InvalidArgumentError(
                None, None, f"Task {task} is not in the cluster (tasks: {self._tasks})"
            )
        with self._lock:
            w = self._remote.get(task)
            if w is None:
                channel = private_channel(address)
                self._channels.append(channel)
                w = self._remote[task] = GrpcRemoteWorker(task, address, channel)
            return w

    def close(self) -> None:
        with self._lock:
            channels, self._channels = self._channels, []
            remote = list(self._remote.values())
            self._remote.clear()
        for w in remote:
            w.close()
        for ch in channels:
            ch.close()
