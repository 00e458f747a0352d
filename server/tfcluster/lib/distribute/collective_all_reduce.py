"""TF 1.15's CollectiveAllReduce cross-device ops and CollectiveKeys
(tensorflow/python/distribute/cross_device_ops.py, cross_device_utils.py): what
MultiWorkerMirroredStrategy reduces with. Every replica's value, on every worker, is one
member of a CollectiveReduce (dense) or two CollectiveGathers (IndexedSlices: values and
indices); the keys are counted as TF counts them, so each worker's graph has the same ops
as TF builds, and a graph TF wrote runs as it is."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import device_spec
from tfcluster.framework.graph import control_dependencies, device, name_scope
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.lib.distribute import device_util, reduce_util
from tfcluster.lib.distribute.cross_device_ops import CrossDeviceOps
from tfcluster.lib.distribute.values import DistributedValues, Mirrored, PerReplica
from tfcluster.ops import array_ops, collective_ops

_thread_local = threading.local()
_lock = threading.Lock()


class CollectiveKeys:
    """Group keys per set of devices (task left out: every worker has the same devices),
    instance keys counted per thread from 100 for reductions (as TF, in every strategy of
    the thread) and per object from 1000000 for variables' initial values."""

    def __init__(
        self,
        group_key_start: int = 1,
        op_instance_key_start: int = 100,
        variable_instance_key_start: int = 1000000,
    ) -> None:
        self._group_key = group_key_start
        self._group_key_table: dict[str, int] = {}
        assert op_instance_key_start != variable_instance_key_start
        self._op_instance_key_start = op_instance_key_start
        self._variable_instance_key = variable_instance_key_start

    def get_group_key(self, devices: Sequence[str]) -> int:
        parsed = [device_spec.parse(d) for d in devices]
        names = sorted(f"{d.device_type or 'CPU'}:{d.device_index or 0}" for d in parsed)
        key_id = ",".join(names)
        with _lock:
            if key_id not in self._group_key_table:
                self._group_key_table[key_id] = self._group_key
                self._group_key += 1
            return self._group_key_table[key_id]

    def get_op_instance_key(self) -> int:
        if not hasattr(_thread_local, "op_instance_key"):
            _thread_local.op_instance_key = self._op_instance_key_start
        key: int = _thread_local.op_instance_key
        _thread_local.op_instance_key += 1
        return key

    def get_variable_instance_key(self) -> int:
        key = self._variable_instance_key
        self._variable_instance_key += 1
        return key


def build_collective_reduce(
    input_tensors: Sequence[Any],
    num_workers: int,
    keys: CollectiveKeys,
    reduction_op: str = "Add",
    unary_op: str = "Id",
) -> list[Any]:
    """One CollectiveReduce per local device (TF: cross_device_utils.build_collective_reduce)."""
    group_size = len(input_tensors) * num_workers
    if group_size < 2:
        return list(input_tensors)
    devices = [t.device for t in input_tensors]
    group_key = keys.get_group_key(devices)
    instance_key = keys.get_op_instance_key()
    out = []
    for t, d in zip(input_tensors, devices):
        with device(d):
            out.append(
                collective_ops.all_reduce(
                    t, group_size, group_key, instance_key, reduction_op, unary_op, [0]
                )
            )
    return out


def build_collective_gather(
    input_tensors: Sequence[Any], num_workers: int, keys: CollectiveKeys
) -> list[Any]:
    group_size = len(input_tensors) * num_workers
    if group_size < 2:
        return list(input_tensors)
    devices = [t.device for t in input_tensors]
    group_key = keys.get_group_key(devices)
    instance_key = keys.get_op_instance_key()
    out = []
    for t, d in zip(input_tensors, devices):
        with device(d):
            out.append(collective_ops.all_gather(t, group_size, group_key, instance_key))
    return out


def _as_per_replica(value: Any) -> DistributedValues:
    if isinstance(value, DistributedValues):
        return value
    where = device_util.canonicalize(getattr(value, "device", "") or "")
    return PerReplica((where,), (value,))


class CollectiveAllReduce(CrossDeviceOps):
    """All-reduce of every replica's value across every worker with collective ops."""

    def __init__(
        self,
        num_workers: int = 1,
        num_gpus_per_worker: int = 0,
        all_reduce_merge_scope: int = 32,
        collective_keys: CollectiveKeys | None = None,
    ) -> None:
        self._num_workers = num_workers
        self._num_gpus = num_gpus_per_worker
        self._all_reduce_merge_scope = all_reduce_merge_scope
        self._collective_keys = collective_keys or CollectiveKeys()

    def reduce(self, reduce_op: Any, per_replica_value: Any, destinations: Any) -> Mirrored:
        reduce_op = reduce_util.check(reduce_op)
        value = _as_per_replica(per_replica_value)
        devices = device_util.devices_of(destinations)
        if self._num_workers == 1 and len(value.values) == 1 and value.devices == devices:
            return Mirrored(devices, value.values)
        return self.reduce_implementation(reduce_op, value, devices)

    def batch_reduce(
        self, reduce_op: Any, value_destination_pairs: Sequence[tuple[Any, Any]]
    ) -> list[Mirrored]:
        reduce_op = reduce_util.check(reduce_op)
        pairs = [
            (_as_per_replica(v), device_util.devices_of(d)) for v, d in value_destination_pairs
        ]
        if all(v.devices == d for v, d in pairs):
            return self._batch_all_reduce(reduce_op, [v for v, _ in pairs])
        return [self.reduce_implementation(reduce_op, v, d) for v, d in pairs]

    def reduce_implementation(
        self,
        reduce_op: reduce_util.ReduceOp,
        per_replica_value: DistributedValues,
        destinations: tuple[str, ...],  # TF's parameter name
    ) -> Mirrored:
        devices = destinations
        reduced = self._batch_all_reduce(reduce_op, [per_replica_value])[0]
        if reduced.devices == devices:
            return reduced
        # Other destinations: copies of the result, after the reduction ran.
        copies = []
        with control_dependencies(list(reduced.values)):
            for d in devices:
                with device(d):
                    source = reduced.values[reduced.devices.index(d) if d in reduced.devices else 0]
                    copies.append(array_ops.identity(source))
        return Mirrored(devices, copies)

    def _batch_all_reduce(
        self, reduce_op: reduce_util.ReduceOp, values: Sequence[DistributedValues]
    ) -> list[Mirrored]:
        # As TF: the dense values first, then the IndexedSlices, each in their own chunks.
        dense = [i for i, v in enumerate(values) if not isinstance(v.values[0], IndexedSlices)]
        sparse = [i for i, v in enumerate(values) if isinstance(v.values[0], IndexedSlices)]
        out: list[Any] = [None] * len(values)
        for group, reducer in ((dense, self._reduce_dense), (sparse, self._reduce_sparse)):
            scope = self._all_reduce_merge_scope
            for start in range(0, len(group), scope):
                chunk = group[start : start + scope]
                with name_scope("allreduce"):
                    for i in chunk:
                        out[i] = self._mirrored(reduce_op, values[i], reducer(values[i]))
        return out

    def _reduce_dense(self, value: DistributedValues) -> list[Any]:
        return build_collective_reduce(
            list(value.values), self._num_workers, self._collective_keys, "Add", "Id"
        )

    def _reduce_sparse(self, value: DistributedValues) -> list[Any]:
        slices = list(value.values)
        gathered_values = build_collective_gather(
            [s.values for s in slices], self._num_workers, self._collective_keys
        )
        gathered_indices = build_collective_gather(
            [s.indices for s in slices], self._num_workers, self._collective_keys
        )
        return [
            IndexedSlices(v, i, dense_shape=s.dense_shape)
            for v, i, s in zip(gathered_values, gathered_indices, slices)
        ]

    def _mirrored(
        self, reduce_op: reduce_util.ReduceOp, value: DistributedValues, reduced: list[Any]
    ) -> Mirrored:
        num_replicas = len(value.values) * self._num_workers
        if reduce_op == reduce_util.ReduceOp.MEAN:
            means = []
            for v in reduced:
                with device(v.device):
                    if isinstance(v, IndexedSlices):
                        means.append(
                            IndexedSlices(v.values / num_replicas, v.indices, v.dense_shape)
                        )
                    else:
                        means.append(v / num_replicas)
            reduced = means
        return Mirrored(value.devices, reduced)
