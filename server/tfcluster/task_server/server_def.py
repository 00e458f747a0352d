"""Which task a server is: its ServerDef from tf.train.Server's arguments, and its place
(job, index, address, port) in the cluster, checked as TensorFlow checks them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec, check_address, task_name
from tfcluster.framework import errors
from tfcluster.protos import config_pb2, tensorflow_server_pb2


def make_server_def(
    server_or_cluster_def: Any,
    job_name: str | None,
    task_index: int | None,
    protocol: str | None,
    config: config_pb2.ConfigProto | None,
) -> tensorflow_server_pb2.ServerDef:
    """The ServerDef of tf.train.Server's arguments: one given, or a cluster (anything
    ClusterSpec takes) and this task in it, as TensorFlow fills in what is left out."""
    if isinstance(server_or_cluster_def, tensorflow_server_pb2.ServerDef):
        server_def = tensorflow_server_pb2.ServerDef()
        server_def.CopyFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    try:
        cluster_spec = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError(
            "Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
            "`tf.train.ClusterSpec`."
        ) from None
    if job_name is None:
        if len(cluster_spec.jobs) == 1:
            job_name = cluster_spec.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        indices = cluster_spec.task_indices(job_name)
        if len(indices) == 1:
            task_index = indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    server_def = tensorflow_server_pb2.ServerDef(
        cluster=cluster_spec.as_cluster_def(),
        job_name=job_name,
        task_index=task_index,
        protocol=protocol or "grpc",
    )
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


@dataclass(frozen=True)
class TaskLocation:
    """Where a server's task is in its cluster, and the port it listens on (0: any)."""

    cluster: ClusterSpec
    job: str
    index: int
    address: str
    port: int

    @property
    def task(self) -> str:
        return task_name(self.job, self.index)


def locate_task(server_def: tensorflow_server_pb2.ServerDef) -> TaskLocation:
    """The task `server_def` names, in its cluster; TensorFlow's errors for a protocol other
    than gRPC, a job or task not in the cluster, or an address without a port."""
    sd = server_def
    if sd.protocol != "grpc":
        raise errors.UnimplementedError(
            None, None, f"No server factory for protocol '{sd.protocol}': only 'grpc' exists"
        )
    cluster = ClusterSpec(sd.cluster)
    if sd.job_name not in cluster.jobs:
        raise errors.InvalidArgumentError(
            None, None, f'Job "{sd.job_name}" was not defined in cluster {cluster}'
        )
    try:
        address = cluster.task_address(sd.job_name, sd.task_index)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            None,
            f'Task {sd.task_index} was not defined in job "{sd.job_name}" '
            f"(tasks: {cluster.task_indices(sd.job_name)})",
        ) from None
    try:
        port = check_address(address, f"task {sd.task_index} of job '{sd.job_name}'")
    except ValueError as e:
        raise errors.InvalidArgumentError(
            None, None, f"Could not parse port for local server from '{address}': {e}"
        ) from None
    return TaskLocation(cluster, sd.job_name, sd.task_index, address, port)
