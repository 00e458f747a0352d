"""The transport-free half of a task server: its Worker, its Master, the worker cache that
joins them to the other tasks, and what the transport serves of them (the same objects, or
measured wrappers when the server has metrics)."""

from __future__ import annotations

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.distributed.interfaces import MasterInterface, ServedWorker
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.protos import config_pb2
from tfcluster.task_server.metrics.families import ServerMetrics
from tfcluster.task_server.metrics.measured import MeasuredMaster, MeasuredWorker
from tfcluster.task_server.options import ServerOptions
from tfcluster.task_server.worker_cache import GrpcWorkerCache


class TaskCore:
    def __init__(
        self,
        cluster: ClusterSpec,
        task: str,
        config: config_pb2.ConfigProto,
        metrics: ServerMetrics | None,
        options: ServerOptions | None = None,
    ) -> None:
        options = options or ServerOptions()
        self.worker = Worker(task)
        self.worker.orphan_recv_timeout = options.orphan_tensor_seconds
        self.worker.max_unrun_steps = options.max_unrun_steps
        self.worker.collectives.group_leader = config.experimental.collective_group_leader
        # The worker as this task's master (local partitions) and peers (RecvTensor) reach it.
        self.served_worker: ServedWorker = (
            self.worker if metrics is None else MeasuredWorker(self.worker, metrics)
        )
        self.worker_cache = GrpcWorkerCache(cluster, task, self.served_worker)
        self.worker.worker_cache = self.worker_cache
        self.master = Master(
            self.worker_cache,
            task,
            config,
            session_gc_seconds=options.session_gc_seconds,
            max_plans_per_session=options.max_plans_per_session,
        )
        # The master as sessions reach it, over the transport or in-process.
        self.served_master: MasterInterface = (
            self.master if metrics is None else MeasuredMaster(self.master, metrics)
        )
        if metrics is not None:
            metrics.watch(self.master, self.worker)

    def abort_steps(self) -> None:
        """Wakes every step waiting on this task with CancelledError."""
        self.worker.close()

    def close(self) -> None:
        self.worker.close()
        self.master.close()
        self.worker_cache.close()
