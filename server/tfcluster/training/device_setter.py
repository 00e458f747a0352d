"""tf.train.replica_device_setter: variables to the ps tasks, everything else to the worker.

Semantics follow TF1's device_setter.py: ps ops (variables and other stateful containers)
get `ps_device` with a task from `ps_strategy` (round-robin by default), merged with the
op's own device; other ops get `worker_device` merged with the op's own device. Device strings
may be written without the leading slash ('job:worker/task:0'), as TF1 accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.framework import device_spec
from tfcluster.framework.tensor_shape import TensorShape

STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTree",
    "TreeEnsembleVariable",
)


class _RoundRobinStrategy:
    """Returns the next ps task in turn: 0, 1, ..., num_tasks - 1, 0, ..."""

    def __init__(self, num_tasks: int) -> None:
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def byte_size_load_fn(op: Any) -> int:
    """The byte size of a single-output op's output (a variable's size), for load balancing."""
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.base_dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined() and "shape" in op.attrs:
        shape = TensorShape(op._get_attr("shape"))
    if not shape.is_fully_defined():
        raise ValueError(f"Shape {shape} of op {op.name} is not fully defined")
    return int(shape.num_elements()) * elem_size


class GreedyLoadBalancingStrategy:
    """Puts each ps op on the ps task with the least load so far (`load_fn`: bytes by default)."""

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float] = byte_size_load_fn) -> None:
        if num_tasks <= 0:
            raise ValueError(f"num_tasks must be positive, got {num_tasks}")
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op: Any) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


class _ReplicaDeviceChooser:
    def __init__(
        self,
        ps_tasks: int,
        ps_device: str,
        worker_device: str,
        merge_devices: bool,
        ps_ops: Sequence[str],
        ps_strategy: Callable[[Any], int],
    ) -> None:
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = set(ps_ops)
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        if not self._merge_devices and op.device:
            return op.device  # type: ignore[no-any-return]
        current = device_spec.parse(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps = device_spec.parse(self._ps_device)
            # The task comes from the strategy only when the op's own job does not override ps.
            if ps.job and (not current.job or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return ps.make_merged_spec(current).to_string()
        worker = device_spec.parse(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def _cluster_dict(cluster: Any) -> dict[str, Any]:
    if hasattr(cluster, "as_dict"):
        return dict(cluster.as_dict())
    if isinstance(cluster, dict):
        return cluster
    return dict(ClusterSpec(cluster).as_dict())


def replica_device_setter(
    ps_tasks: int = 0,
    ps_device: str = "/job:ps",
    worker_device: str = "/job:worker",
    merge_devices: bool = True,
    cluster: Any = None,
    ps_ops: Sequence[str] | None = None,
    ps_strategy: Callable[[Any], int] | None = None,
) -> Callable[[Any], str] | None:
    """A device function for `tf.device`; None when there is no ps task (no constraint)."""
    if cluster is not None:
        jobs = _cluster_dict(cluster)
        ps_job = device_spec.parse(ps_device).job
        if ps_job not in jobs or jobs[ps_job] is None:
            return None
        ps_tasks = len(jobs[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(
        ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy
    )
    return chooser.device_function


__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn", "replica_device_setter"]
