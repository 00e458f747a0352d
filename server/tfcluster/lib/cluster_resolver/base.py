"""tf.distribute.cluster_resolver's base class, SimpleClusterResolver and UnionResolver.

A cluster resolver tells a program which cluster it is part of (a ClusterSpec), which task
it is, and the master URL a session connects to ('grpc://host:port').
"""

from __future__ import annotations

import abc
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.runtime import gpu


def format_master_url(master: str, rpc_layer: str | None = None) -> str:
    return f"{rpc_layer}://{master}" if rpc_layer else master


def local_accelerators() -> dict[str, int]:
    """The GPUs this process sees (through cupy); {} without any."""
    count = len(gpu.local_gpus())
    return {"GPU": count} if count else {}


class ClusterResolver(abc.ABC):
    """Abstract class for all implementations of ClusterResolvers.

    Subclasses also provide task_type, task_id and rpc_layer (attributes or properties).
    """

    task_type: Any
    task_id: Any
    rpc_layer: Any

    @abc.abstractmethod
    def cluster_spec(self) -> ClusterSpec:
        """The cluster as it is now (resolved again on every call)."""

    @abc.abstractmethod
    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """The name or URL of the session master."""

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        """Accelerator type -> count. TF asks the master's devices; tfcluster tasks are
        started alike, so this process's own GPUs answer for the task."""
        del task_type, task_id, config_proto
        return local_accelerators()

    @property
    def environment(self) -> str:
        """'google' inside Google, '' elsewhere."""
        return ""


class SimpleClusterResolver(ClusterResolver):
    """Simple implementation of ClusterResolver that accepts a ClusterSpec."""

    def __init__(
        self,
        cluster_spec: ClusterSpec,
        master: str = "",
        task_type: str | None = None,
        task_id: int | None = None,
        environment: str = "",
        num_accelerators: dict[str, int] | None = None,
        rpc_layer: str | None = None,
    ) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a ClusterSpec.")
        self._cluster_spec = cluster_spec
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._master = master

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """A task_type and task_id given override the master passed to the constructor."""
        if task_type is not None and task_id is not None:
            master = self._cluster_spec.task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer or self._rpc_layer)

    @property  # type: ignore[override]
    def task_type(self) -> str | None:
        return self._task_type

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property  # type: ignore[override]
    def task_id(self) -> int | None:
        return self._task_id

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str:
        return self._environment

    @property  # type: ignore[override]
    def rpc_layer(self) -> str | None:
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        """What the constructor was given ({} when nothing): no detection here, as in TF."""
        del task_type, task_id, config_proto
        return {} if self._num_accelerators is None else self._num_accelerators


class UnionResolver(ClusterResolver):
    """The union of other resolvers' clusters; the other properties come from the first one
    unless given here (rpc_layer, task_type, task_id)."""

    def __init__(self, *args: ClusterResolver, **kwargs: Any) -> None:
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        if not all(isinstance(r, ClusterResolver) for r in args):
            raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self) -> ClusterSpec:
        """Jobs listed as lists by every resolver are concatenated in order; a job that any
        resolver gives as {index: address} is merged by index, and an index given twice
        raises KeyError."""
        specs = [r.cluster_spec().as_dict() for r in self._cluster_resolvers]
        sparse_jobs = {
            job for spec in specs for job, tasks in spec.items() if isinstance(tasks, dict)
        }
        merged: dict[str, Any] = {}
        for spec in specs:
            for job, tasks in spec.items():
                if job not in sparse_jobs:
                    merged.setdefault(job, []).extend(tasks)
                    continue
                by_index = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                known = merged.setdefault(job, {})
                duplicates = set(by_index) & set(known)
                if duplicates:
                    raise KeyError(
                        f"Duplicate keys detected when merging two ClusterSpecs: {duplicates!r}"
                    )
                known.update(by_index)
        return ClusterSpec(merged)

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        if task_type is not None and task_id is not None:
            address = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(address, rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property  # type: ignore[override]
    def task_type(self) -> Any:
        return self._task_type or self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property  # type: ignore[override]
    def task_id(self) -> Any:
        # `or`, as TF: an override of task 0 falls through to the first resolver's task.
        return self._task_id or self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str:
        return self._cluster_resolvers[0].environment

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)

    @property  # type: ignore[override]
    def rpc_layer(self) -> Any:
        return self._rpc_layer or self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer
