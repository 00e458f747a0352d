"""Barriers (TF's barrier_ops): keyed elements filled one component at a time by
BarrierInsertMany; an element whose components are all there becomes ready, and
BarrierTakeMany takes ready ones in the order of their index (the insert call that first
brought their key, counted from the lowest int64; ties in the order they completed).

Closing refuses new keys but lets incomplete elements complete; with cancel_pending_enqueues
the incomplete ones are dropped and every insert fails. A take on a closed barrier fails
with OutOfRangeError once it can never be served (allow_small_batch: takes what is ready)."""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName, shape_ok, shape_text, wait_until

_INT64_MIN = -(2**63)


class BarrierResource:
    def __init__(self, name: str, types: list[dtypes.DType], shapes: list[TensorShape]) -> None:
        self.name = name
        self.dtypes = types
        self.shapes = shapes
        self.closed = False
        self.cancelled = False
        self._cond = threading.Condition()
        # key -> [index, component values (None where not inserted yet)]
        self._incomplete: dict[bytes, list[Any]] = {}
        self._ready: list[tuple[int, int, bytes, list[np.ndarray]]] = []
        self._next_index = _INT64_MIN
        self._completed = itertools.count()

    def ready_size(self) -> int:
        return len(self._ready)

    def incomplete_size(self) -> int:
        return len(self._incomplete)

    def _check_values(self, component: int, keys: np.ndarray, values: np.ndarray) -> None:
        if not 0 <= component < len(self.dtypes):
            raise invalid(
                f"The component ID is out of range (component {component} of a barrier of "
                f"{len(self.dtypes)} components)"
            )
        want = self.dtypes[component]
        got = dtypes.string if values.dtype == object else dtypes.as_dtype(values.dtype)
        if got != want:
            raise invalid(
                f"Invalid input type for component {component} of barrier '{self.name}': "
                f"expected {want.name}, got {got.name}"
            )
        if keys.ndim != 1:
            raise invalid(f"Keys must be a vector, got {shape_text(keys.shape)}")
        if values.ndim == 0 or values.shape[0] != keys.shape[0]:
            raise invalid(
                f"Shape mismatch: keys have {keys.shape[0]} elements, values have shape "
                f"{shape_text(values.shape)}"
            )
        if not shape_ok(self.shapes[component], values.shape[1:]):
            expected = TensorShape([keys.shape[0]]).concatenate(self.shapes[component])
            raise invalid(
                f"Shape mismatch in tuple component {component}. Expected "
                f"{shape_text(expected)}, got {shape_text(values.shape)}"
            )

    def insert_many(self, component: int, keys: np.ndarray, values: np.ndarray) -> None:
        self._check_values(component, keys, values)
        names = [k if isinstance(k, bytes) else str(k).encode() for k in keys.tolist()]
        with self._cond:
            if self.cancelled:
                raise errors.CancelledError(
                    None, None, f"Barrier '{self.name}' is closed and its inserts are cancelled"
                )
            for key in names:
                element = self._incomplete.get(key)
                if element is None and self.closed:
                    raise errors.CancelledError(
                        None,
                        None,
                        f"Barrier '{self.name}' is closed, but attempted to insert a brand "
                        f"new key: {key.decode(errors='replace')}",
                    )
                if element is not None and element[1][component] is not None:
                    raise invalid(
                        f"Key {key.decode(errors='replace')} already has a value for "
                        f"component {component} in barrier {self.name}"
                    )
            index = self._next_index
            fresh = False
            for key, value in zip(names, values):
                element = self._incomplete.get(key)
                if element is None:
                    element = [index, [None] * len(self.dtypes)]
                    self._incomplete[key] = element
                    fresh = True
                element[1][component] = np.array(value)
                if all(v is not None for v in element[1]):
                    del self._incomplete[key]
                    entry = (element[0], next(self._completed), key, element[1])
                    heapq.heappush(self._ready, entry)
            if fresh:
                self._next_index += 1
            self._cond.notify_all()

    def close(self, cancel_pending_enqueues: bool = False) -> None:
        with self._cond:
            self.closed = True
            if cancel_pending_enqueues:
                self.cancelled = True
                self._incomplete.clear()
            self._cond.notify_all()

    def _insufficient(self, requested: int) -> errors.OpError:
        return errors.OutOfRangeError(
            None,
            None,
            f"Barrier '{self.name}' is closed and has insufficient elements (requested "
            f"{requested}, total size {len(self._ready) + len(self._incomplete)})",
        )

    def take_many(self, ctx: Any, n: int, small_ok: bool) -> list[tuple[int, bytes, Any]]:
        with self._cond:

            def servable() -> bool:
                if len(self._ready) >= n:
                    return True
                # Closed: a small batch, or the error below once n can never be ready.
                return self.closed and (small_ok or len(self._ready) + len(self._incomplete) < n)

            wait_until(self._cond, servable, ctx)
            k = min(n, len(self._ready))
            if k < n and not (small_ok and k > 0):
                raise self._insufficient(n)
            taken = [heapq.heappop(self._ready) for _ in range(k)]
            return [(index, key, values) for index, _, key, values in taken]


def barrier_of(value: Any, node_name: str) -> BarrierResource:
    if not isinstance(value, BarrierResource):
        raise invalid(f"{node_name}: input 0 is not a barrier handle ({type(value).__name__})")
    return value


@kernel("Barrier", devices=CPU_ONLY)
def barrier(node: Any, xp: Any) -> Any:
    where = ResourceName(node)
    types = [dtypes.as_dtype(t).base_dtype for t in node.attrs["component_types"]]
    shapes = [TensorShape(s) for s in node.attrs.get("shapes") or []]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if len(shapes) != len(types):
            raise invalid("All of the component shapes must be specified")
        name = where.resolve(ctx.resources)
        b = ctx.resources.lookup_or_create(
            where.container, name, lambda: BarrierResource(name, types, shapes)
        )
        if not isinstance(b, BarrierResource) or b.dtypes != types:
            raise invalid(f"Shared barrier '{name}' has different component types")
        return (b,)

    return compute


@kernel("BarrierInsertMany", devices=CPU_ONLY)
def barrier_insert_many(node: Any, xp: Any) -> Any:
    component = int(node.attrs["component_index"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        barrier_of(ins[0], node.name).insert_many(component, np.asarray(ins[1]), np.asarray(ins[2]))
        return ()

    return compute


@kernel("BarrierTakeMany", devices=CPU_ONLY)
def barrier_take_many(node: Any, xp: Any) -> Any:
    types = [dtypes.as_dtype(t).base_dtype for t in node.attrs["component_types"]]
    small_ok = bool(node.attrs.get("allow_small_batch", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        b = barrier_of(ins[0], node.name)
        if types != b.dtypes:
            raise invalid(
                f"Barrier '{b.name}' has component types "
                f"{', '.join(d.name for d in b.dtypes)} but requested component types were "
                f"{', '.join(d.name for d in types)}"
            )
        n = int(np.asarray(ins[1]))
        taken = b.take_many(ctx, n, small_ok)
        indices = np.array([t[0] for t in taken], dtype=np.int64)
        keys = np.empty(len(taken), dtype=object)
        keys[:] = [t[1] for t in taken]
        values = []
        for i, dt in enumerate(types):
            parts = [t[2][i] for t in taken]
            shape = [int(d or 0) for d in b.shapes[i].as_list()]
            np_type = object if dt == dtypes.string else dt.as_numpy_dtype
            values.append(np.stack(parts) if parts else np.empty([0, *shape], np_type))
        return (indices, keys, *values)

    return compute


@kernel("BarrierClose", devices=CPU_ONLY)
def barrier_close(node: Any, xp: Any) -> Any:
    cancel = bool(node.attrs.get("cancel_pending_enqueues", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        barrier_of(ins[0], node.name).close(cancel_pending_enqueues=cancel)
        return ()

    return compute


@kernel("BarrierReadySize", devices=CPU_ONLY)
def barrier_ready_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(barrier_of(ins[0], node.name).ready_size()),)

    return compute


@kernel("BarrierIncompleteSize", devices=CPU_ONLY)
def barrier_incomplete_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(barrier_of(ins[0], node.name).incomplete_size()),)

    return compute
