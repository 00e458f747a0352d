"""MultiDeviceIterator ops: one iterator over a dataset whose elements go round-robin to the
shards of several devices (element i to shard i % n); each device's GetNextFromShard takes its
shard's next element, reading ahead of the other shards as much as it must. Init starts a new
incarnation (its id counts up from 1): a GetNextFromShard naming another is refused, as in TF.
The iterator is a resource of its task (MultiDeviceIterator's container/shared_name), or
anonymous with a deleter (AnonymousMultiDeviceIterator)."""

from __future__ import annotations

import collections
import itertools
import threading
import weakref
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.common import Compute, invalid, scalar_int
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName

_PREFIX = b"tfcluster-multi-device-iterator:"
_anonymous_ids = itertools.count()
# Every live iterator by (task resources id, container, name): string handles find it.
_live: weakref.WeakValueDictionary[tuple[int, str, str], MultiDeviceIteratorResource] = (
    weakref.WeakValueDictionary()
)


class MultiDeviceIteratorResource:
    def __init__(
        self, container: str, name: str, devices: list[str], specs: list[Any], resources: Any
    ) -> None:
        self.container, self.name = container, name
        self.devices = devices
        self.specs = specs
        self.resources = resources
        self._lock = threading.Lock()
        self._incarnation = 0
        self._pipeline: base.Pipeline | None = None
        self._it: base.ElementIterator | None = None
        self._shards: list[collections.deque[base.Element]] = [collections.deque() for _ in devices]
        self._taken = 0  # elements read from the dataset in this incarnation
        _live[(id(resources), container, name)] = self

    def init(self, dataset: base.Dataset, device: str) -> int:
        with self._lock:
            self._close_locked()
            self._pipeline = base.Pipeline(self.resources, device)
            self._it = dataset.iterate(self._pipeline)
            self._shards = [collections.deque() for _ in self.devices]
            self._taken = 0
            self._incarnation += 1
            return self._incarnation

    def get_next(self, ctx: Any, shard: int, incarnation: int) -> list[Any]:
        if not 0 <= shard < len(self.devices):
            raise invalid(f"shard_num {shard} is not in [0, {len(self.devices)})")
        with self._lock:
            if self._it is None and self._incarnation == 0:
                raise errors.FailedPreconditionError(
                    None, None, "The MultiDeviceIterator has not been initialized: run its init"
                )
            if incarnation != self._incarnation:
                raise invalid(
                    f"Invalid incarnation id. Provided: {incarnation}; Expected: "
                    f"{self._incarnation}"
                )
            queue = self._shards[shard]
            while not queue and self._it is not None:
                with base.StepScope(ctx):
                    element = self._it.next()
                if element is None:
                    self._close_locked()
                    break
                self._shards[self._taken % len(self._shards)].append(element)
                self._taken += 1
            if not queue:
                raise errors.OutOfRangeError(None, None, "End of sequence")
            element = queue.popleft()
        base.check_element(element, self.specs, "GetNextFromShard")
        return base.element_tensors(element, self.specs)

    def _close_locked(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None
        if self._pipeline is not None:
            self._pipeline.close()
            self._pipeline = None

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        with self._lock:
            self._close_locked()


def _resource(value: Any, node_name: str) -> MultiDeviceIteratorResource:
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object:
        value = value[()]
    if not isinstance(value, MultiDeviceIteratorResource):
        raise invalid(f"{node_name}: input 0 is not a MultiDeviceIterator handle")
    return value


def _devices(node: Any) -> list[str]:
    return [d.decode() if isinstance(d, bytes) else str(d) for d in node.attrs["devices"]]


@kernel("MultiDeviceIterator", devices=CPU_ONLY)
def multi_device_iterator(node: Any, xp: Any) -> Compute:
    where = ResourceName(node)
    specs = base.leaf_specs(node.attrs)
    devices = _devices(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = where.resolve(ctx.resources)
        made = ctx.resources.lookup_or_create(
            where.container,
            name,
            lambda: MultiDeviceIteratorResource(
                where.container, name, devices, specs, ctx.resources
            ),
        )
        return (_resource(made, node.name),)

    return compute


class _Deleter:
    """AnonymousMultiDeviceIterator's deleter: when it goes, so does the iterator."""

    __slots__ = ("__weakref__",)

    def __init__(self, it: MultiDeviceIteratorResource) -> None:
        weakref.finalize(self, it.close)


@kernel("AnonymousMultiDeviceIterator", devices=CPU_ONLY)
def anonymous_multi_device_iterator(node: Any, xp: Any) -> Compute:
    specs = base.leaf_specs(node.attrs)
    devices = _devices(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = f"_AnonymousMultiDeviceIterator{next(_anonymous_ids)}"
        it = MultiDeviceIteratorResource("", name, devices, specs, ctx.resources)
        deleter = np.empty((), dtype=object)
        deleter[()] = _Deleter(it)
        return (it, deleter)

    return compute


@kernel("DeleteMultiDeviceIterator", devices=CPU_ONLY)
def delete_multi_device_iterator(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _resource(ins[0], node.name)
        it.close()
        ctx.resources.remove(it.container, it.name, it)
        return ()

    return compute


@kernel("MultiDeviceIteratorInit", devices=CPU_ONLY)
def multi_device_iterator_init(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dataset = ins[0]
        if not isinstance(dataset, base.Dataset):
            raise invalid(f"{node.name}: input 0 is not a dataset ({type(dataset).__name__})")
        scalar_int(ins[2], "max_buffer_size")
        incarnation = _resource(ins[1], node.name).init(dataset, node.device)
        return (np.array(incarnation, dtype=np.int64),)

    return compute


@kernel("MultiDeviceIteratorGetNextFromShard", devices=CPU_ONLY)
def multi_device_iterator_get_next_from_shard(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _resource(ins[0], node.name)
        shard = scalar_int(ins[1], "shard_num")
        return tuple(it.get_next(ctx, shard, scalar_int(ins[2], "incarnation_id")))

    return compute


@kernel("MultiDeviceIteratorToStringHandle", devices=CPU_ONLY)
def multi_device_iterator_to_string_handle(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _resource(ins[0], node.name)
        out = np.empty((), dtype=object)
        out[()] = _PREFIX + f"{id(it.resources)}|{it.container}|{it.name}".encode()
        return (out,)

    return compute


@kernel("MultiDeviceIteratorFromStringHandle", devices=CPU_ONLY)
def multi_device_iterator_from_string_handle(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw = np.asarray(ins[0], dtype=object).reshape(-1)
        handle = raw[0] if raw.size == 1 else None
        if isinstance(handle, str):
            handle = handle.encode()
        parts = (
            handle[len(_PREFIX) :].decode("utf-8", "replace").split("|")
            if isinstance(handle, bytes) and handle.startswith(_PREFIX)
            else []
        )
        it = None
        if len(parts) == 3 and parts[0].isdigit():
            it = _live.get((int(parts[0]), parts[1], parts[2]))
        if it is None:
            raise invalid("Could not parse string_handle as a valid ResourceHandle")
        return (it,)

    return compute
