"""SlurmClusterResolver: a cluster from the Slurm job step this process runs in.

The rank and the task count come from SLURM_PROCID / SLURM_NTASKS (OMPI_COMM_WORLD_* under
mpirun), the nodes from `scontrol show hostname` as TF 1.15 does; where scontrol is not on
the PATH the step's node list (SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST) is expanded
here, as later TF versions do.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.cluster_resolver.base import ClusterResolver, format_master_url
from tfcluster.settings import environment

_BRACKETS = re.compile(r"\[([^\]]*)\]")


def expand_hostlist(hostlist: str) -> list[str]:
    """Slurm's compressed host list ('n[1-3,07],gpu[01-02]x') as host names, in order."""
    hosts: list[str] = []
    for item in _split_top_level(hostlist):
        parts = _BRACKETS.split(item)  # literal, ranges, literal, ranges, ..., literal
        choices = [[p] if i % 2 == 0 else _expand_ranges(p) for i, p in enumerate(parts)]
        hosts.extend("".join(combo) for combo in itertools.product(*choices))
    return hosts


def _split_top_level(hostlist: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(hostlist):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            items.append(hostlist[start:i])
            start = i + 1
    items.append(hostlist[start:])
    return [item for item in (s.strip() for s in items) if item]


def _expand_ranges(ranges: str) -> list[str]:
    out: list[str] = []
    for part in ranges.split(","):
        low, _, high = part.partition("-")
        if not high:
            out.append(low)
            continue
        width = len(low)  # zero padding is kept: [01-10] -> 01 ... 10
        out.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return out


class SlurmClusterResolver(ClusterResolver):
    """ClusterResolver for system with Slurm workload manager: `jobs` maps job names to task
    counts; tasks are packed onto the step's nodes in order, `tasks_per_node` per node, each
    on port_base + its slot and given gpus_per_task of the node's GPUs."""

    def __init__(
        self,
        jobs: dict[str, int],
        port_base: int = 8888,
        gpus_per_node: int = 1,
        gpus_per_task: int = 1,
        tasks_per_node: int | None = None,
        auto_set_gpu: bool = True,
        rpc_layer: str = "grpc",
    ) -> None:
        env = environment.slurm_variables()
        if "OMPI_COMM_WORLD_RANK" in env:
            self._rank = int(env["OMPI_COMM_WORLD_RANK"])
            num_tasks = int(env["OMPI_COMM_WORLD_SIZE"])
        else:
            # KeyError when not in a Slurm step, as TF.
            self._rank = int(env["SLURM_PROCID"])
            num_tasks = int(env["SLURM_NTASKS"])
        self._jobs = dict(sorted(jobs.items()))
        self._port_base = port_base
        if tasks_per_node is not None:
            self._tasks_per_node = tasks_per_node
        elif "SLURM_NTASKS_PER_NODE" in env:
            self._tasks_per_node = int(env["SLURM_NTASKS_PER_NODE"])
        else:
            raise RuntimeError("Neither `tasks_per_node` or SLURM_NTASKS_PER_NODE is set.")
        self._gpus_per_node = gpus_per_node
        self._gpus_per_task = gpus_per_task
        self._auto_set_gpu = auto_set_gpu
        self.task_type: str | None = None
        self.task_id: int | None = None
        self.rpc_layer = rpc_layer
        self._gpu_allocation: list[str] = []
        self._cluster_allocation: dict[str, list[str]] = {}
        # TF's own wording, 'then' included.
        if self._tasks_per_node * self._gpus_per_task > self._gpus_per_node:
            raise RuntimeError("Requested more GPUs per node then available.")
        if sum(self._jobs.values()) != num_tasks:
            raise RuntimeError("Requested more tasks then assigned tasks.")

    def _resolve_hostnames(self) -> list[str]:
        if shutil.which("scontrol"):
            out = subprocess.check_output(["scontrol", "show", "hostname"])
            return out.decode("utf-8").strip().split("\n")
        env = environment.slurm_variables()  # read again, as scontrol would be asked again
        nodelist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST")
        if not nodelist:
            raise RuntimeError(
                "Cannot find the nodes of this Slurm job: scontrol is not on the PATH and "
                "neither SLURM_STEP_NODELIST nor SLURM_JOB_NODELIST is set."
            )
        return expand_hostlist(nodelist)

    def cluster_spec(self) -> ClusterSpec:
        """Resolves the nodes again, sets task_type/task_id of this rank, and (auto_set_gpu)
        CUDA_VISIBLE_DEVICES to this task's GPUs."""
        task_list: list[str] = []
        self._gpu_allocation = []
        self._cluster_allocation = {}
        gpu_offsets = range(0, self._gpus_per_node, self._gpus_per_task)
        for host in self._resolve_hostnames():
            for port_offset, gpu_offset in zip(range(self._tasks_per_node), gpu_offsets):
                task_list.append(f"{host}:{self._port_base + port_offset}")
                gpus = range(gpu_offset, gpu_offset + self._gpus_per_task)
                self._gpu_allocation.append(",".join(str(g) for g in gpus))
        start = 0
        for task_type, num_tasks in self._jobs.items():
            end = start + num_tasks
            self._cluster_allocation[task_type] = task_list[start:end]
            if start <= self._rank < end:
                self.task_type = task_type
                self.task_id = self._rank - start
            start = end
        if self._auto_set_gpu is True:
            environment.set_cuda_visible_devices(self._gpu_allocation[self._rank])
        return ClusterSpec(self._cluster_allocation)

    def get_task_info(self) -> tuple[str | None, int | None]:
        """(job name, task index) of this process, known once cluster_spec() has run."""
        return self.task_type, self.task_id

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is not None and task_id is not None:
            address = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(address, rpc_layer or self.rpc_layer)
        return ""

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        """gpus_per_node, as given (TF does not look)."""
        del task_type, task_id, config_proto
        return {"GPU": self._gpus_per_node}
