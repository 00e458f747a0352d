"""Staging areas (TF's stage_op.cc and map_stage_op.cc), kept in their task's ResourceMgr
under the shared_name (or the node's name):

- StagingArea (Stage, Unstage, StagePeek, StageSize, StageClear): tuples first in, first out.
- MapStagingArea (Map*) and its ordered version (OrderedMap*): tuples under int64 keys, put
  a few components at a time (an incomplete element until all are there); a get may take
  some components, the element leaving once all are taken; the ordered map hands out the
  smallest key first.

A put waits while the area holds `capacity` elements or the bytes would pass
`memory_limit` (a tuple larger than the limit is ResourceExhaustedError); a get or peek
waits for its element. Waits end with the step (its deadline, a cancellation).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import wait_until

Values = list[Any]


def _nbytes(values: Sequence[Any]) -> int:
    return sum(np.asarray(v).nbytes for v in values if v is not None)


class _Bounded:
    """Capacity and memory accounting shared by both kinds of area."""

    def __init__(self, name: str, capacity: int, memory_limit: int) -> None:
        self.name = name
        self.capacity = capacity
        self.memory_limit = memory_limit
        self.bytes = 0
        self._cond = threading.Condition()

    def _count(self) -> int:
        raise NotImplementedError

    def _check_fits(self, size: int) -> None:
        if self.memory_limit and size > self.memory_limit:
            raise errors.ResourceExhaustedError(
                None,
                None,
                f"Attempted to insert tensors with combined size of '{size}' bytes into "
                f"Staging Area with a memory limit of '{self.memory_limit}'.",
            )

    def _has_room(self, size: int) -> bool:
        if self.capacity and self._count() >= self.capacity:
            return False
        return not (self.memory_limit and self.bytes + size > self.memory_limit)

    def _wait_for_room(self, ctx: Any, size: int) -> None:
        self._check_fits(size)
        wait_until(self._cond, lambda: self._has_room(size), ctx)


class StagingAreaResource(_Bounded):
    def __init__(self, name: str, capacity: int, memory_limit: int) -> None:
        super().__init__(name, capacity, memory_limit)
        self._items: collections.deque[Values] = collections.deque()

    def _count(self) -> int:
        return len(self._items)

    def put(self, ctx: Any, values: Values) -> None:
        size = _nbytes(values)
        with self._cond:
            self._wait_for_room(ctx, size)
            self._items.append(values)
            self.bytes += size
            self._cond.notify_all()

    def get(self, ctx: Any) -> Values:
        with self._cond:
            wait_until(self._cond, lambda: bool(self._items), ctx)
            values = self._items.popleft()
            self.bytes -= _nbytes(values)
            self._cond.notify_all()
            return values

    def peek(self, ctx: Any, index: int) -> Values:
        with self._cond:
            wait_until(self._cond, lambda: index < len(self._items), ctx)
            return self._items[index]

    def size(self) -> int:
        with self._cond:
            return len(self._items)

    def clear(self) -> None:
        with self._cond:
            self._items.clear()
            self.bytes = 0
            self._cond.notify_all()


class MapStagingResource(_Bounded):
    def __init__(self, name: str, capacity: int, memory_limit: int, ordered: bool) -> None:
        super().__init__(name, capacity, memory_limit)
        self.ordered = ordered
        # key -> components (None where not put yet, or already taken)
        self._complete: dict[int, Values] = {}
        self._incomplete: dict[int, Values] = {}

    def _count(self) -> int:
        return len(self._complete)

    def put(self, ctx: Any, key: int, indices: list[int], values: Values, width: int) -> None:
        for i in indices:
            if not 0 <= i < width:
                raise invalid(f"Index '{i}' for key '{key}' was out of bounds '{width}'.")
        size = _nbytes(values)
        with self._cond:
            element = self._incomplete.get(key)
            if element is None and key in self._complete:
                raise invalid(f"Key '{key}' already exists in the Staging Area.")
            if element is None:
                self._wait_for_room(ctx, size)
                element = self._incomplete.get(key) or [None] * width
            else:
                self._check_fits(size)
            for i, v in zip(indices, values):
                if element[i] is not None:
                    raise invalid(
                        f"The tensor for index '{i}' for key '{key}' was already initialized "
                        f"'{1}' times."
                    )
                element[i] = v
            self.bytes += size
            if all(v is not None for v in element):
                self._incomplete.pop(key, None)
                self._complete[key] = element
            else:
                self._incomplete[key] = element
            self._cond.notify_all()

    def _take(self, key: int, indices: list[int], remove: bool) -> Values:
        element = self._complete[key]
        out = []
        for i in indices:
            if not 0 <= i < len(element):
                raise invalid(f"Index '{i}' for key '{key}' was out of bounds '{len(element)}'.")
            if element[i] is None:
                raise invalid(f"Tensor at index '{i}' for key '{key}' has already been removed.")
            out.append(element[i])
        if remove:
            for i in indices:
                self.bytes -= _nbytes([element[i]])
                element[i] = None
            if all(v is None for v in element):
                del self._complete[key]
            self._cond.notify_all()
        return out

    def get(self, ctx: Any, key: int, indices: list[int], remove: bool) -> Values:
        with self._cond:
            wait_until(self._cond, lambda: key in self._complete, ctx)
            return self._take(key, indices, remove)

    def get_any(self, ctx: Any, indices: list[int]) -> tuple[int, Values]:
        with self._cond:
            wait_until(self._cond, lambda: bool(self._complete), ctx)
            key = min(self._complete) if self.ordered else next(iter(self._complete))
            return key, self._take(key, indices, remove=True)

    def sizes(self) -> tuple[int, int]:
        with self._cond:
            return len(self._complete), len(self._incomplete)

    def clear(self) -> None:
        with self._cond:
            self._complete.clear()
            self._incomplete.clear()
            self.bytes = 0
            self._cond.notify_all()


# ---- kernels -------------------------------------------------------------------------------


def _area_getter(
    node: Any, make: Callable[[str, int, int], Any], fits: Callable[[Any], bool]
) -> Callable[[Any], Any]:
    """The node's area: its shared_name, or the node's own name (TF's ContainerInfo with the
    node name as default: Stage and Unstage meet through a shared_name)."""
    container = node.attrs.get("container") or ""
    name = node.attrs.get("shared_name") or node.name
    if isinstance(name, bytes):
        name = name.decode()
    capacity = int(node.attrs.get("capacity", 0))
    memory_limit = int(node.attrs.get("memory_limit", 0))

    def get(ctx: Any) -> Any:
        area = ctx.resources.lookup_or_create(
            container, name, lambda: make(name, capacity, memory_limit)
        )
        if not fits(area):
            raise invalid(f"Resource '{name}' is a {type(area).__name__}, not {node.op}'s area")
        return area

    return get


def _types(node: Any) -> list[dtypes.DType]:
    return [dtypes.as_dtype(t).base_dtype for t in node.attrs.get("dtypes") or []]


def _check_out_types(values: Values, types: list[dtypes.DType], where: str) -> tuple[Any, ...]:
    if len(values) != len(types):
        raise invalid(f"{where}: {len(types)} dtypes for {len(values)} staged tensors")
    out = []
    for v, want in zip(values, types):
        a = np.asarray(v)
        got = dtypes.string if a.dtype == object else dtypes.as_dtype(a.dtype)
        if got != want:
            raise invalid(f"{where}: a staged tensor is {got.name}, the op asks for {want.name}")
        out.append(a)
    return tuple(out)


def _stage_area(node: Any) -> Callable[[Any], StagingAreaResource]:
    return _area_getter(
        node,
        lambda name, cap, mem: StagingAreaResource(name, cap, mem),
        lambda area: isinstance(area, StagingAreaResource),
    )


@kernel("Stage", devices=CPU_ONLY)
def stage(node: Any, xp: Any) -> Any:
    area = _stage_area(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        area(ctx).put(ctx, [np.array(v) for v in ins])
        return ()

    return compute


@kernel("Unstage", devices=CPU_ONLY)
def unstage(node: Any, xp: Any) -> Any:
    area, types = _stage_area(node), _types(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return _check_out_types(area(ctx).get(ctx), types, node.name)

    return compute


@kernel("StagePeek", devices=CPU_ONLY)
def stage_peek(node: Any, xp: Any) -> Any:
    area, types = _stage_area(node), _types(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        index = int(np.asarray(ins[0]))
        return _check_out_types(area(ctx).peek(ctx, index), types, node.name)

    return compute


@kernel("StageSize", devices=CPU_ONLY)
def stage_size(node: Any, xp: Any) -> Any:
    area = _stage_area(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(area(ctx).size()),)

    return compute


@kernel("StageClear", devices=CPU_ONLY)
def stage_clear(node: Any, xp: Any) -> Any:
    area = _stage_area(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        area(ctx).clear()
        return ()

    return compute


def _map_kernels(prefix: str, ordered: bool) -> None:
    def map_area(node: Any) -> Callable[[Any], MapStagingResource]:
        return _area_getter(
            node,
            lambda name, cap, mem: MapStagingResource(name, cap, mem, ordered),
            lambda area: isinstance(area, MapStagingResource) and area.ordered == ordered,
        )

    def indices_of(value: Any) -> list[int]:
        return [int(i) for i in np.asarray(value).reshape(-1)]

    @kernel(f"{prefix}Stage", devices=CPU_ONLY)
    def map_stage(node: Any, xp: Any) -> Any:
        area, width = map_area(node), len(_types(node))

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            key, indices = int(np.asarray(ins[0])), indices_of(ins[1])
            values = [np.array(v) for v in ins[2:]]
            if len(indices) != len(values):
                raise invalid(
                    f"Number of indices '{len(indices)}' does not match number of values "
                    f"'{len(values)}'"
                )
            area(ctx).put(ctx, key, indices, values, width)
            return ()

        return compute

    def getter(remove: bool) -> Any:
        def factory(node: Any, xp: Any) -> Any:
            area, types = map_area(node), _types(node)

            def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
                key, indices = int(np.asarray(ins[0])), indices_of(ins[1])
                values = area(ctx).get(ctx, key, indices, remove)
                return _check_out_types(values, types, node.name)

            return compute

        return factory

    kernel(f"{prefix}Unstage", devices=CPU_ONLY)(getter(remove=True))
    kernel(f"{prefix}Peek", devices=CPU_ONLY)(getter(remove=False))

    @kernel(f"{prefix}UnstageNoKey", devices=CPU_ONLY)
    def map_unstage_no_key(node: Any, xp: Any) -> Any:
        area, types = map_area(node), _types(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            key, values = area(ctx).get_any(ctx, indices_of(ins[0]))
            return (np.int64(key), *_check_out_types(values, types, node.name))

        return compute

    @kernel(f"{prefix}Size", devices=CPU_ONLY)
    def map_size(node: Any, xp: Any) -> Any:
        area = map_area(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (np.int32(area(ctx).sizes()[0]),)

        return compute

    @kernel(f"{prefix}IncompleteSize", devices=CPU_ONLY)
    def map_incomplete_size(node: Any, xp: Any) -> Any:
        area = map_area(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (np.int32(area(ctx).sizes()[1]),)

        return compute

    @kernel(f"{prefix}Clear", devices=CPU_ONLY)
    def map_clear(node: Any, xp: Any) -> Any:
        area = map_area(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            area(ctx).clear()
            return ()

        return compute


_map_kernels("Map", ordered=False)
_map_kernels("OrderedMap", ordered=True)
