"""tf.distribute.CrossDeviceOps: how a strategy combines the replicas' values, in the graph.

ReductionToOneDevice adds the values up on one device and copies the result to each
destination. The all-reduce classes (HierarchicalCopyAllReduce, NcclAllReduce) give every
destination the sum made on the replicas' devices; tfcluster has no NCCL kernels, and TF's
NcclAllReduce has no CPU kernel either, so NcclAllReduce across CPU devices is refused with
TF's error class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.graph import Tensor, device
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.lib.distribute import device_util, reduce_util
from tfcluster.lib.distribute.values import DistributedValues, Mirrored, PerReplica
from tfcluster.ops import array_ops, math_ops


def _as_per_replica(value: Any) -> DistributedValues:
    if isinstance(value, DistributedValues):
        return value
    where = device_util.canonicalize(getattr(value, "device", "") or "")
    return PerReplica((where,), (value,))


def _aggregate(values: Sequence[Any], accumulation_fn: Callable[[list[Any]], Any]) -> Any:
    if any(isinstance(v, IndexedSlices) for v in values):
        slices = [v if isinstance(v, IndexedSlices) else _dense_as_slices(v) for v in values]
        return IndexedSlices(
            array_ops.concat([s.values for s in slices], axis=0),
            array_ops.concat([s.indices for s in slices], axis=0),
            slices[0].dense_shape,
        )
    return accumulation_fn(list(values))


def _dense_as_slices(value: Tensor) -> IndexedSlices:
    rows = array_ops.shape(value)[0]
    return IndexedSlices(value, math_ops.range(rows), array_ops.shape(value))


def _divide(value: Any, n: int) -> Any:
    if isinstance(value, IndexedSlices):
        return IndexedSlices(value.values / n, value.indices, value.dense_shape)
    return value / n


def _broadcast(value: Any, devices: Sequence[str], always_mirrored: bool = False) -> Any:
    """A copy of `value` on each device: a Mirrored, or (one device) the copy itself, as
    TF's simple_broadcast gives it."""
    if len(devices) == 1 and not always_mirrored:
        with device(devices[0]):
            return value if isinstance(value, IndexedSlices) else array_ops.identity(value)
    copies = []
    for d in devices:
        with device(d):
            copies.append(value if isinstance(value, IndexedSlices) else array_ops.identity(value))
    return Mirrored(devices, copies)


def reduce_non_distributed_value(
    reduce_op: reduce_util.ReduceOp, num_replicas: int, value: Any, destinations: Any
) -> Any:
    """A value that is the same on every replica (not a PerReplica): MEAN is the value
    itself; SUM only makes sense with one replica."""
    if isinstance(value, (int, float)) and value == 0:
        return 0
    if reduce_op == reduce_util.ReduceOp.MEAN:
        return value
    devices = device_util.devices_of(destinations)
    if num_replicas != 1 or len(devices) != 1:
        raise ValueError(
            f"A non-DistributedValues value {value} cannot be reduced with the given reduce op "
            f"{reduce_op}."
        )
    with device(devices[0]):
        return array_ops.identity(value)


class CrossDeviceOps:
    """Base class: reduce / batch_reduce / broadcast of the replicas' values."""

    def reduce(self, reduce_op: Any, per_replica_value: Any, destinations: Any) -> Mirrored:
        reduce_op = reduce_util.check(reduce_op)
        value = _as_per_replica(per_replica_value)
        devices = device_util.devices_of(destinations)
        if len(value.values) == 1 and value.devices == devices:
            return Mirrored(devices, value.values)
        return self.reduce_implementation(reduce_op, value, devices)

    def batch_reduce(
        self, reduce_op: Any, value_destination_pairs: Sequence[tuple[Any, Any]]
    ) -> list[Mirrored]:
        reduce_op = reduce_util.check(reduce_op)
        pairs = [
            (_as_per_replica(v), device_util.devices_of(d)) for v, d in value_destination_pairs
        ]
        if pairs and all(len(v.values) == 1 and v.devices == d for v, d in pairs):
            return [Mirrored(d, v.values) for v, d in pairs]
        return self.batch_reduce_implementation(reduce_op, pairs)

    def broadcast(self, tensor: Any, destinations: Any) -> Any:
        return _broadcast(tensor, device_util.devices_of(destinations))

    def reduce_implementation(
        self,
        reduce_op: reduce_util.ReduceOp,
        per_replica_value: DistributedValues,
        destinations: tuple[str, ...],  # TF's parameter name
    ) -> Mirrored:
        raise NotImplementedError("CrossDeviceOps.reduce_implementation is abstract")

    def batch_reduce_implementation(
        self,
        reduce_op: reduce_util.ReduceOp,
        value_destination_pairs: Sequence[
            tuple[DistributedValues, tuple[str, ...]]
        ],  # TF's parameter name
    ) -> list[Mirrored]:
        pairs = value_destination_pairs
        return [self.reduce_implementation(reduce_op, v, d) for v, d in pairs]


class ReductionToOneDevice(CrossDeviceOps):
    """Adds the values up on `reduce_to_device` (default: the first destination) with
    `accumulation_fn` (default tf.add_n), then copies the result to every destination."""

    def __init__(self, reduce_to_device: str | None = None, accumulation_fn: Any = None) -> None:
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn or math_ops.add_n

    def reduce_implementation(
        self,
        reduce_op: reduce_util.ReduceOp,
        per_replica_value: DistributedValues,
        destinations: tuple[str, ...],  # TF's parameter name
    ) -> Any:
        devices = destinations
        target = self.reduce_to_device or devices[0]
        with device(target):
            reduced = _aggregate(per_replica_value.values, self.accumulation_fn)
            if reduce_op == reduce_util.ReduceOp.MEAN:
                reduced = _divide(reduced, len(per_replica_value.values))
        return _broadcast(reduced, devices)


class AllReduceCrossDeviceOps(CrossDeviceOps):
    _requirer = "All-reduce"

    """All-reduce: every destination gets the sum (or mean) of the replicas' values. When the
    destinations are the replicas' own devices each sum is made on its device; otherwise it
    is reduced to one device and copied."""

    def __init__(self, all_reduce_alg: str = "nccl", num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(
                f"{self._requirer} requires num_packs >= 0, but {num_packs} is specified"
            )
        self._all_reduce_alg = all_reduce_alg
        self._num_packs = num_packs

    def _check_devices(self, devices: Sequence[str]) -> None:
        """What the algorithm needs of the devices (nothing by default)."""

    def reduce_implementation(
        self,
        reduce_op: reduce_util.ReduceOp,
        per_replica_value: DistributedValues,
        destinations: tuple[str, ...],  # TF's parameter name
    ) -> Mirrored:
        devices = destinations
        if per_replica_value.devices != devices:
            return ReductionToOneDevice().reduce_implementation(
                reduce_op, per_replica_value, devices
            )
        self._check_devices(devices)
        sums = []
        for d in devices:
            with device(d):
                total = _aggregate(per_replica_value.values, math_ops.add_n)
                if reduce_op == reduce_util.ReduceOp.MEAN:
                    total = _divide(total, len(per_replica_value.values))
                sums.append(total)
        return Mirrored(devices, sums)


class NcclAllReduce(AllReduceCrossDeviceOps):
    """All-reduce with NCCL, for GPUs: refused on CPU devices as TF refuses it (no CPU
    kernel for NcclAllReduce)."""

    _requirer = "NCCL all-reduce"

    def __init__(self, num_packs: int = 1) -> None:
        super().__init__("nccl", num_packs)

    def _check_devices(self, devices: Sequence[str]) -> None:
        cpus = [d for d in devices if device_util.is_cpu(d)]
        if cpus:
            raise errors.InvalidArgumentError(
                None,
                None,
                "No registered 'NcclAllReduce' OpKernel for CPU devices compatible with node "
                f"on {cpus[0]}: NCCL all-reduce needs GPUs; use ReductionToOneDevice or "
                "HierarchicalCopyAllReduce across CPU devices",
            )


class HierarchicalCopyAllReduce(AllReduceCrossDeviceOps):
    """All-reduce by copies between devices (TF's hierarchical copy for DGX-1 GPUs): the same
    sums, on any devices."""

    _requirer = "HierarchicalCopy"

    def __init__(self, num_packs: int = 1) -> None:
        super().__init__("hierarchical_copy", num_packs)


def choose_the_best(devices: Sequence[str]) -> CrossDeviceOps:
    """What MirroredStrategy uses when it is given none: TF picks NCCL only for GPUs it can
    reach, and reduces to one device otherwise (always, here: no NCCL)."""
    return ReductionToOneDevice()


def warn_as_choosing(devices: Sequence[str], gpu_count: int) -> None:
    """The warning TF 1.15's choose_the_best logs when a local MirroredStrategy is made without
    cross_device_ops: devices this process lacks, or a device that is not a GPU (then it
    reduces to one device). `devices` canonical, `gpu_count` this process's GPUs."""
    from tfcluster.lib.platform import tf_logging as logging

    local = {"/replica:0/task:0/device:CPU:0"} | {
        f"/replica:0/task:0/device:GPU:{i}" for i in range(gpu_count)
    }
    requested = set(devices)
    using = requested & local
    if len(using) != len(requested):
        # TF subtracts the machine's device names (not canonical) from the canonical ones
        # requested: its list names every requested device (in a set's order: sorted here).
        logging.warning(
            "Some requested devices in `tf.distribute.Strategy` are not visible to TensorFlow: %s",
            ",".join(sorted(requested)),
        )
    elif any("gpu" not in d.lower() for d in using):
        logging.warning(
            "There is non-GPU devices in `tf.distribute.Strategy`, not using nccl allreduce."
        )
