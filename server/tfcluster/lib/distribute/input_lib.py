"""Input for the replicas of a strategy: InputContext (what an input_fn is told), and the
distributed dataset/iterator whose `get_next()` gives each replica its part of a step.

A dataset given to experimental_distribute_dataset / make_dataset_iterator is batched by the
global batch size: each element is split along its first dimension into one slice per
replica (TF rebatches it the same way). A dataset made per worker by an input_fn
(make_input_fn_iterator, experimental_distribute_datasets_from_function) is not split: each
replica takes the next element in turn.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from tfcluster.framework.graph import Operation, device, name_scope
from tfcluster.lib.distribute import values as values_lib
from tfcluster.ops import array_ops, math_ops, nest
from tfcluster.ops.control_flow_ops import group


class InputReplicationMode(enum.Enum):
    """How input is replicated: PER_WORKER, one input pipeline per worker."""

    PER_WORKER = "PER_WORKER"


class InputContext:
    """What an input_fn is told: how many input pipelines there are, which one it builds,
    and how many replicas consume the global batch."""

    def __init__(
        self,
        num_input_pipelines: int = 1,
        input_pipeline_id: int = 0,
        num_replicas_in_sync: int = 1,
    ) -> None:
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                f"`num_replicas_in_sync` {self._num_replicas_in_sync!r} "
            )
        return global_batch_size // self._num_replicas_in_sync


def _split_element(element: Any, parts: int) -> list[Any]:
    """Slice i of every tensor of `element`: rows [i*k, (i+1)*k) with k = ceil(rows/parts)."""
    if parts == 1:
        return [element]
    flat = nest.flatten(element)
    sliced: list[list[Any]] = [[] for _ in range(parts)]
    for t in flat:
        rows = array_ops.shape(t)[0]
        k = math_ops.floordiv(rows + (parts - 1), parts)
        for i in range(parts):
            sliced[i].append(t[i * k : (i + 1) * k])
    return [nest.pack_sequence_as(element, s) for s in sliced]


class DistributedIterator:
    """get_next(): a PerReplica of each replica's element (the element itself with one
    replica); `initializer` (and initialize()) restart the input."""

    def __init__(
        self, iterator: Any, devices: Sequence[str], input_device: str | None, split: bool
    ) -> None:
        self._iterator = iterator
        self._devices = tuple(devices)
        self._input_device = input_device
        self._split = split

    def get_next(self, name: str | None = None) -> Any:
        n = len(self._devices)
        with (
            name_scope(name or None),
            device(self._input_device) if self._input_device else _nothing(),
        ):
            if self._split:
                parts = _split_element(self._iterator.get_next(), n)
            else:
                parts = [self._iterator.get_next() for _ in range(n)]
        return values_lib.regroup(self._devices, parts)

    def __next__(self) -> Any:
        # TF 1.15: next(iterator) is get_next() (graph tensors; OutOfRange ends an eager loop).
        from tfcluster.framework import errors

        try:
            return self.get_next()
        except errors.OutOfRangeError:
            raise StopIteration from None

    def next(self) -> Any:
        return self.__next__()

    @property
    def initializer(self) -> Operation:
        return group(self._iterator.initializer)

    def initialize(self) -> list[Operation]:
        return [self._iterator.initializer]

    @property
    def output_types(self) -> Any:
        return self._iterator.output_types

    @property
    def output_shapes(self) -> Any:
        return self._iterator.output_shapes

    @property
    def output_classes(self) -> Any:
        return self._iterator.output_classes


# TF 1.15's distributed datasets make DistributedIteratorV1s: its name shows in messages
# (`'DistributedIteratorV1' object is not iterable`).
DistributedIterator.__name__ = DistributedIterator.__qualname__ = "DistributedIteratorV1"


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class DistributedDataset:
    """A dataset whose iterators feed every replica of this worker."""

    def __init__(
        self, dataset: Any, devices: Sequence[str], input_device: str | None, split: bool
    ) -> None:
        self._dataset = dataset
        self._devices = tuple(devices)
        self._input_device = input_device
        self._split = split

    def _iterator(self, one_shot: bool) -> DistributedIterator:
        with device(self._input_device) if self._input_device else _nothing():
            it = (
                self._dataset.make_one_shot_iterator()
                if one_shot
                else self._dataset.make_initializable_iterator()
            )
        return DistributedIterator(it, self._devices, self._input_device, self._split)

    def make_initializable_iterator(self) -> DistributedIterator:
        return self._iterator(one_shot=False)

    def make_one_shot_iterator(self) -> DistributedIterator:
        return self._iterator(one_shot=True)

    def __iter__(self) -> Any:
        raise RuntimeError(
            "__iter__() is only supported inside of tf.function or when eager execution is "
            "enabled; in graph mode use make_initializable_iterator() or "
            "make_one_shot_iterator()"
        )


def iterator_for_input(
    dataset: Any, devices: Sequence[str], input_device: str | None
) -> DistributedIterator:
    """The iterator of an input_fn's result: a Dataset (each replica takes the next element),
    or an object with get_next/initializer (an iterator the input_fn made itself)."""
    if hasattr(dataset, "make_initializable_iterator"):
        return DistributedDataset(
            dataset, devices, input_device, split=False
        ).make_initializable_iterator()
    if hasattr(dataset, "get_next"):
        return DistributedIterator(dataset, devices, input_device, split=False)
    raise ValueError(
        f"input_fn must return a tf.data.Dataset or an iterator, got {type(dataset).__name__}"
    )
