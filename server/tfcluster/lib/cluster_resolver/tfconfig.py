"""TFConfigClusterResolver: the cluster and this task from the TF_CONFIG variable (JSON with
"cluster", "task": {"type", "index"}, "rpc_layer" and "session_master"), as the TFCluster
operator sets it in every pod. TF_CONFIG is read again on every call, as TF does."""

from __future__ import annotations

import json
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.cluster_resolver.base import ClusterResolver, format_master_url
from tfcluster.settings import environment


def _tf_config() -> dict[str, Any]:
    return json.loads(environment.tf_config() or "{}")


def _tf_config_value(key: str, default: Any = None) -> Any:
    return _tf_config().get(key, default)


class TFConfigClusterResolver(ClusterResolver):
    """Implementation of a ClusterResolver which reads the TF_CONFIG EnvVar; the arguments
    override what TF_CONFIG says."""

    def __init__(
        self,
        task_type: str | None = None,
        task_id: int | None = None,
        rpc_layer: str | None = None,
        environment: str | None = None,
    ) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property  # type: ignore[override]
    def task_type(self) -> str | None:
        if self._task_type is None:
            task = _tf_config_value("task", {})
            return str(task["type"]) if "type" in task else None
        return str(self._task_type)

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property  # type: ignore[override]
    def task_id(self) -> int | None:
        # As TF 1.15: the override of task_id counts only once task_type is overridden too.
        if self._task_type is None:
            task = _tf_config_value("task", {})
            return int(task["index"]) if "index" in task else None
        return int(self._task_id)  # type: ignore[arg-type]  # None raises TypeError, as TF

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str:  # type: ignore[override]  # None unless given, as TF 1.15
        return self._environment  # type: ignore[return-value]

    @property  # type: ignore[override]
    def rpc_layer(self) -> str | None:
        if self._rpc_layer is None:
            return _tf_config_value("rpc_layer")  # type: ignore[no-any-return]
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return super().num_accelerators(task_type, task_id, config_proto)

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec(_tf_config().get("cluster", {}))

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """TF_CONFIG's session_master when set; '' for a cluster of one task; else this task's
        (or the given task's) address with the rpc layer: 'grpc://host:port'.

        As TF 1.15, the rpc_layer argument is not used: TF_CONFIG's (or the constructor's) is.
        """
        del rpc_layer
        session_master = _tf_config_value("session_master")
        if session_master is not None:
            return session_master  # type: ignore[no-any-return]
        spec = self.cluster_spec()
        jobs = spec.jobs
        if not jobs or (len(jobs) == 1 and len(spec.job_tasks(jobs[0])) == 1):
            return ""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        return format_master_url(spec.task_address(task_type, task_id), self.rpc_layer)  # type: ignore[arg-type]
