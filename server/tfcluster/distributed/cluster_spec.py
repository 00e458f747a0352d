"""tf.train.ClusterSpec: jobs of tasks, dense lists or sparse {index: address} maps.

Also the `--cluster_spec` flag syntax of the server command ('worker|h0:2222;h1:2222,ps|h2:2222')
and TF_CONFIG, which both describe a cluster and the task of this process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tfcluster.protos import cluster_pb2


class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs"."""

    def __init__(self, cluster: Any) -> None:
        if isinstance(cluster, dict):
            self._cluster_spec: dict[str, dict[int, str]] = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {_task_index(job_name, i): t for i, t in tasks.items()}
                else:
                    raise TypeError(
                        f"The tasks for job {job_name!r} must be a list or a dictionary from "
                        "integers to strings."
                    )
                self._cluster_spec[job_name] = job_tasks
            self._make_cluster_def()
        elif isinstance(cluster, cluster_pb2.ClusterDef):
            self._cluster_def = cluster_pb2.ClusterDef()
            self._cluster_def.CopyFrom(cluster)
            self._cluster_spec = {j.name: dict(j.tasks.items()) for j in self._cluster_def.job}
        elif isinstance(cluster, ClusterSpec):
            self._cluster_def = cluster_pb2.ClusterDef()
            self._cluster_def.MergeFrom(cluster.as_cluster_def())
            self._cluster_spec = {j.name: dict(j.tasks.items()) for j in self._cluster_def.job}
        else:
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of network "
                "addresses, or a `ClusterDef` protocol buffer"
            )

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ClusterSpec):
            return self._cluster_spec == other._cluster_spec
        return self._cluster_spec == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable-looking value type, as in TF

    def __str__(self) -> str:
        key_values = self.as_dict()
        items = [f"{k!r}: {key_values[k]!r}" for k in sorted(key_values)]
        return "ClusterSpec({" + ", ".join(items) + "})"

    def as_dict(self) -> dict[str, Any]:
        """Job name -> list of addresses (dense jobs) or {index: address} (sparse jobs)."""
        ret: dict[str, Any] = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self) -> cluster_pb2.ClusterDef:
        return self._cluster_def

    @property
    def jobs(self) -> list[str]:
        return list(self._cluster_spec.keys())

    def _job(self, job_name: str) -> dict[int, str]:
        try:
            return self._cluster_spec[job_name]
        except (KeyError, TypeError):
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name: str) -> int:
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name: str, task_index: int) -> str:
        job = self._job(job_name)
        try:
            return job[task_index]
        except (KeyError, TypeError):
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list[str | None]:
        """Addresses by task index; None where a sparse job has no task."""
        job = self._job(job_name)
        ret: list[str | None] = [None] * (max(job.keys()) + 1 if job else 0)
        for i, task in job.items():
            ret[i] = task
        return ret

    def _make_cluster_def(self) -> None:
        self._cluster_def = cluster_pb2.ClusterDef()
        # Sorted by job name, for deterministic protos.
        for job_name, tasks in sorted(self._cluster_spec.items(), key=lambda kv: str(kv[0])):
            if not isinstance(job_name, (str, bytes)):
                raise TypeError(f"Job name {job_name!r} must be bytes or unicode")
            job_def = self._cluster_def.job.add()
            job_def.name = job_name.decode() if isinstance(job_name, bytes) else job_name
            for i, address in sorted(tasks.items()):
                if not isinstance(address, (str, bytes)):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
                job_def.tasks[i] = address.decode() if isinstance(address, bytes) else address

    # ---- helpers for the runtime (not TF API) -------------------------------------------
    def task_names(self) -> list[str]:
        """'/job:J/replica:0/task:T' for every task, jobs sorted by name, then by index."""
        return [
            task_name(job, i) for job in sorted(self._cluster_spec) for i in self.task_indices(job)
        ]


def _task_index(job_name: Any, index: Any) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, str)):
        raise TypeError(f"Task indices of job {job_name!r} must be integers, got {index!r}")
    try:
        return int(index)
    except ValueError:
        raise TypeError(
            f"Task indices of job {job_name!r} must be integers, got {index!r}"
        ) from None


def task_name(job: str, index: int) -> str:
    return f"/job:{job}/replica:0/task:{index}"


def cluster_def_of(addresses: Mapping[str, str]) -> cluster_pb2.ClusterDef:
    """{'/job:J/replica:0/task:T': address} -> the ClusterDef a CreateWorkerSession carries."""
    jobs: dict[str, dict[int, str]] = {}
    for task, address in addresses.items():
        job, index = _split_task_name(task)
        jobs.setdefault(job, {})[index] = address
    return ClusterSpec(jobs).as_cluster_def()


def addresses_of(cluster_def: cluster_pb2.ClusterDef) -> dict[str, str]:
    """The inverse of cluster_def_of."""
    return {
        task_name(job.name, index): address
        for job in cluster_def.job
        for index, address in job.tasks.items()
    }


def _split_task_name(task: str) -> tuple[str, int]:
    parts = task.split("/")
    if len(parts) != 4 or not parts[1].startswith("job:") or not parts[3].startswith("task:"):
        raise ValueError(f"{task!r} is not a task name like '/job:worker/replica:0/task:0'")
    return parts[1][len("job:") :], int(parts[3][len("task:") :])


def parse_cluster_flag(spec: str) -> ClusterSpec:
    """'worker|h0:2222;h1:2222,ps|h2:2222' -> ClusterSpec; ValueError says what is wrong."""
    if not spec or not spec.strip():
        raise ValueError("--cluster_spec is empty")
    jobs: dict[str, list[str]] = {}
    for piece in spec.split(","):
        piece = piece.strip()
        if not piece:
            continue  # a trailing comma, as a flag written over several lines may have
        name, bar, tasks = piece.partition("|")
        name = name.strip()
        if not bar:
            raise ValueError(f"job '{piece}' in --cluster_spec is not of the form name|host:port")
        if not name:
            raise ValueError(f"job '{piece}' in --cluster_spec has no name")
        if name in jobs:
            raise ValueError(f"job '{name}' appears twice in --cluster_spec")
        addresses = [t.strip() for t in tasks.split(";")]
        for address in addresses:
            check_address(address, f"job '{name}'")
        jobs[name] = addresses
    if not jobs:
        raise ValueError("--cluster_spec names no job")
    return ClusterSpec(jobs)


def check_address(address: str, where: str) -> int:
    """Validates 'host:port'; returns the port."""
    host, colon, port = address.rpartition(":")
    if not colon or not host:
        raise ValueError(f"task address '{address}' of {where} is not host:port")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"task address '{address}' of {where} has an invalid port '{port}'")
    return int(port)


def parse_tf_config(text: str) -> tuple[ClusterSpec, str, int]:
    """TF_CONFIG JSON {"cluster": {...}, "task": {"type", "index"}} -> (cluster, job, index)."""
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None
    if not isinstance(config, Mapping):
        raise ValueError("TF_CONFIG must be a JSON object with 'cluster' and 'task'")
    cluster = config.get("cluster")
    task = config.get("task")
    if not isinstance(cluster, Mapping) or not cluster:
        raise ValueError("TF_CONFIG has no 'cluster' object")
    if not isinstance(task, Mapping) or "type" not in task:
        raise ValueError("TF_CONFIG has no 'task' object with a 'type'")
    try:
        spec = ClusterSpec(dict(cluster))
    except TypeError as e:
        raise ValueError(f"TF_CONFIG 'cluster' is invalid: {e}") from None
    for job in spec.jobs:
        for i in spec.task_indices(job):
            check_address(spec.task_address(job, i), f"job '{job}'")
    index = task.get("index", 0)
    if isinstance(index, bool) or not isinstance(index, (int, str)) or not str(index).isdigit():
        raise ValueError(f"TF_CONFIG task index {index!r} is not a non-negative integer")
    return spec, str(task["type"]), int(index)
