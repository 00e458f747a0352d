"""Kernels for FIFOQueue and ConditionalAccumulator, and the resources they keep.

The resources live in the task's ResourceMgr (ctx.resources), looked up by container and
shared name, so every session on the task shares them. Blocking kernels (a dequeue on an
empty queue, an enqueue on a full one, take_grad before enough gradients arrived) wait on a
condition variable and give up when the step's deadline passes, when the step is cancelled
or aborted, or when the resource is closed.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.registry import CPU_ONLY, kernel

_log = logging.getLogger(__name__)
_private_ids = itertools.count(1)

# How often a blocked kernel wakes up to check for cancellation even without a notify.
_POLL_SECS = 0.05


def _wait(cond: threading.Condition, ready: Callable[[], bool], ctx: Any) -> None:
    """Waits (holding `cond`) until ready(); raises if the step ends first."""
    while not ready():
        left = ctx.time_left()  # raises CancelledError / DeadlineExceededError
        aborted = getattr(ctx.rendezvous, "_aborted", None)
        if aborted is not None:
            raise errors.CancelledError(None, None, f"Step was aborted: {aborted}")
        cond.wait(_POLL_SECS if left is None else min(_POLL_SECS, left))


def _shape_ok(shape: TensorShape, got: Sequence[int]) -> bool:
    if shape.ndims is None:
        return True
    want = shape.as_list()
    return len(want) == len(got) and all(w is None or w == g for w, g in zip(want, got))


def _resource_name(node: Any) -> tuple[str, str]:
    """(container, name): the shared name, or a name private to this kernel instance."""
    shared = node.attrs.get("shared_name") or ""
    name = shared or f"_{next(_private_ids)}_{node.name}"
    return node.attrs.get("container") or "", name


# ---- FIFOQueue ---------------------------------------------------------------------------


class FIFOQueueResource:
    def __init__(
        self, name: str, dtypes_: Sequence[Any], shapes: Sequence[TensorShape], capacity: int
    ) -> None:
        self.name = name
        self.dtypes = list(dtypes_)
        self.np_dtypes = [d.as_numpy_dtype for d in self.dtypes]
        self.shapes = list(shapes) or [TensorShape(None)] * len(self.dtypes)
        self.capacity = capacity
        self._items: collections.deque[tuple[Any, ...]] = collections.deque()
        self._cond = threading.Condition()
        self.closed = False
        self._cancelled = False

    def _full(self) -> bool:
        return 0 <= self.capacity <= len(self._items)

    def _closed_error(self) -> errors.OpError:
        return errors.CancelledError(None, None, f"FIFOQueue '{self.name}' is closed.")

    def check_components(self, values: Sequence[Any], many: bool) -> list[np.ndarray]:
        if len(values) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected {len(self.dtypes)} components for queue {self.name}, got {len(values)}",
            )
        out = []
        for i, (v, np_dtype, shape) in enumerate(zip(values, self.np_dtypes, self.shapes)):
            arr = np.asarray(v) if np_dtype is object else np.asarray(v, dtype=np_dtype)
            got = arr.shape[1:] if many else arr.shape
            if many and arr.ndim == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"EnqueueMany requires rank >= 1 components (component {i})"
                )
            if not _shape_ok(shape, got):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Shape mismatch in tuple component {i}. Expected {shape.as_list()}, got "
                    f"{list(got)}",
                )
            out.append(arr)
        if many and len({a.shape[0] for a in out}) > 1:
            raise errors.InvalidArgumentError(
                None, None, "EnqueueMany requires the same leading dimension in every component"
            )
        return out

    def enqueue(self, ctx: Any, items: Sequence[tuple[Any, ...]]) -> None:
        with self._cond:
            for item in items:
                if self.closed:
                    raise self._closed_error()
                # A pending enqueue survives a plain close; close(cancel...) cancels it.
                _wait(self._cond, lambda: not self._full() or self._cancelled, ctx)
                if self._cancelled:
                    raise self._closed_error()
                self._items.append(item)
                self._cond.notify_all()

    def dequeue(self, ctx: Any, n: int, up_to: bool = False) -> list[tuple[Any, ...]]:
        """n items in order; up_to returns fewer (at least one) once the queue is closed."""
        taken: list[tuple[Any, ...]] = []
        with self._cond:
            while True:
                while self._items and len(taken) < n:
                    taken.append(self._items.popleft())
                self._cond.notify_all()
                if len(taken) == n:
                    return taken
                if self.closed:
                    if up_to and taken:
                        return taken
                    # Put the partial batch back in front, as TensorFlow does.
                    size = len(self._items) + len(taken)
                    self._items.extendleft(reversed(taken))
                    raise errors.OutOfRangeError(
                        None,
                        None,
                        f"FIFOQueue '{self.name}' is closed and has insufficient elements "
                        f"(requested {n}, current size {size})",
                    )
                _wait(self._cond, lambda: bool(self._items) or self.closed, ctx)

    def size(self) -> int:
        return len(self._items)

    def close(self, cancel_pending_enqueues: bool = False) -> None:
        with self._cond:
            self.closed = True
            self._cancelled = self._cancelled or cancel_pending_enqueues
            self._cond.notify_all()


def _queue(ins: list[Any], node_name: str) -> FIFOQueueResource:
    q = ins[0]
    if not isinstance(q, FIFOQueueResource):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not a queue handle ({type(q).__name__})"
        )
    return q


@kernel("FIFOQueueV2", devices=CPU_ONLY)
def fifo_queue(node: Any, xp: Any) -> Any:
    container, name = _resource_name(node)
    types = list(node.attrs["component_types"])
    shapes = [TensorShape(s) for s in node.attrs.get("shapes") or []]
    capacity = int(node.attrs.get("capacity", -1))
    if shapes and len(shapes) != len(types):
        raise errors.InvalidArgumentError(
            None, None, f"FIFOQueue {node.name}: {len(shapes)} shapes for {len(types)} components"
        )

    def make() -> FIFOQueueResource:
        return FIFOQueueResource(name, types, shapes, capacity)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = ctx.resources.lookup_or_create(container, name, make)
        if not isinstance(q, FIFOQueueResource) or q.dtypes != types or q.capacity != capacity:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shared queue '{name}' has component types "
                f"{[getattr(d, 'name', d) for d in getattr(q, 'dtypes', [])]} and capacity "
                f"{getattr(q, 'capacity', '?')} but requested component types were "
                f"{[d.name for d in types]} and capacity {capacity}",
            )
        return (q,)

    return compute


@kernel("QueueEnqueueV2", devices=CPU_ONLY)
def queue_enqueue(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = _queue(ins, node.name)
        comps = q.check_components(ins[1:], many=False)
        q.enqueue(ctx, [tuple(comps)])
        return ()

    return compute


@kernel("QueueEnqueueManyV2", devices=CPU_ONLY)
def queue_enqueue_many(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = _queue(ins, node.name)
        comps = q.check_components(ins[1:], many=True)
        n = comps[0].shape[0] if comps else 0
        q.enqueue(ctx, [tuple(c[i] for c in comps) for i in range(n)])
        return ()

    return compute


@kernel("QueueDequeueV2", devices=CPU_ONLY)
def queue_dequeue(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (item,) = _queue(ins, node.name).dequeue(ctx, 1)
        return tuple(item)

    return compute


def _batch(q: FIFOQueueResource, items: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    out = []
    for i, np_dtype in enumerate(q.np_dtypes):
        parts = [it[i] for it in items]
        if parts:
            out.append(np.stack(parts))
        else:
            shape = q.shapes[i].as_list() if q.shapes[i].ndims is not None else []
            out.append(np.zeros([0, *[d or 0 for d in shape]], dtype=np_dtype))
    return tuple(out)


def _dequeue_many(node: Any, up_to: bool) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = _queue(ins, node.name)
        n = int(np.asarray(ins[1]))
        if n < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Requested {n} elements from queue {q.name}: n must be >= 0"
            )
        if n == 0:
            return _batch(q, [])
        return _batch(q, q.dequeue(ctx, n, up_to=up_to))

    return compute


@kernel("QueueDequeueManyV2", devices=CPU_ONLY)
def queue_dequeue_many(node: Any, xp: Any) -> Any:
    return _dequeue_many(node, up_to=False)


@kernel("QueueDequeueUpToV2", devices=CPU_ONLY)
def queue_dequeue_up_to(node: Any, xp: Any) -> Any:
    return _dequeue_many(node, up_to=True)


@kernel("QueueSizeV2", devices=CPU_ONLY)
def queue_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(_queue(ins, node.name).size()),)

    return compute


@kernel("QueueIsClosedV2", devices=CPU_ONLY)
def queue_is_closed(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.bool_(_queue(ins, node.name).closed),)

    return compute


@kernel("QueueCloseV2", devices=CPU_ONLY)
def queue_close(node: Any, xp: Any) -> Any:
    cancel = bool(node.attrs.get("cancel_pending_enqueues", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _queue(ins, node.name).close(cancel)
        return ()

    return compute


# ---- ConditionalAccumulator ----------------------------------------------------------------


class AccumulatorResource:
    def __init__(self, name: str, dtype: Any, shape: TensorShape, reduction: str) -> None:
        self.name = name
        self.dtype = dtype
        self.np_dtype = dtype.as_numpy_dtype
        self.shape = shape
        self.reduction = reduction
        self.global_step = 0
        self._sum: np.ndarray | None = None
        self.count = 0
        self._cond = threading.Condition()
        self._closed = False
        # Bumped by cancel_pending_takes: a take that saw another value gives up.
        self._cancel_generation = 0

    def apply(self, local_step: int, grad: Any) -> None:
        g = np.asarray(grad, dtype=self.np_dtype)
        if not _shape_ok(self.shape, g.shape):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shape mismatch: expected {self.shape.as_list()}, got {list(g.shape)} "
                f"(accumulator {self.name})",
            )
        with self._cond:
            if self._sum is not None and self._sum.shape != g.shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Shape mismatch: expected {list(self._sum.shape)}, got {list(g.shape)} "
                    f"(accumulator {self.name})",
                )
            if local_step < self.global_step:
                # A stale gradient: computed for a step the accumulator has moved past.
                _log.debug(
                    "Dropped a stale gradient in %s: local step %d < global step %d",
                    self.name,
                    local_step,
                    self.global_step,
                )
                return
            self._sum = g.copy() if self._sum is None else self._sum + g
            self.count += 1
            self._cond.notify_all()

    def take(self, ctx: Any, num_required: int) -> np.ndarray:
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}"
            )
        with self._cond:
            generation = self._cancel_generation
            _wait(
                self._cond,
                lambda: (
                    self.count >= num_required
                    or self._closed
                    or self._cancel_generation != generation
                ),
                ctx,
            )
            if self._closed or self._cancel_generation != generation:
                raise errors.CancelledError(
                    None, None, f"take_grad on ConditionalAccumulator {self.name} was cancelled"
                )
            assert self._sum is not None
            total, n = self._sum, self.count
            self._sum, self.count = None, 0
            self.global_step += 1
        if self.reduction == "MEAN":
            return (total / n).astype(self.np_dtype, copy=False)
        return total

    def set_global_step(self, step: int) -> None:
        with self._cond:
            if step < self.global_step:
                _log.warning(
                    "ConditionalAccumulator %s: new global step %d is lower than %d",
                    self.name,
                    step,
                    self.global_step,
                )
            self.global_step = step

    def cancel_pending_takes(self) -> None:
        with self._cond:
            self._cancel_generation += 1
            self._cond.notify_all()

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


def _accumulator(ins: list[Any], node_name: str) -> AccumulatorResource:
    a = ins[0]
    if not isinstance(a, AccumulatorResource):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not an accumulator handle ({type(a).__name__})"
        )
    return a


@kernel("ConditionalAccumulator", devices=CPU_ONLY)
def conditional_accumulator(node: Any, xp: Any) -> Any:
    container, name = _resource_name(node)
    dtype = node.attrs["dtype"]
    shape = TensorShape(node.attrs.get("shape"))
    reduction = node.attrs.get("reduction_type", "MEAN")
    if isinstance(reduction, bytes):
        reduction = reduction.decode()

    def make() -> AccumulatorResource:
        return AccumulatorResource(name, dtype, shape, reduction)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        acc = ctx.resources.lookup_or_create(container, name, make)
        if not isinstance(acc, AccumulatorResource) or acc.dtype != dtype:
            raise errors.InvalidArgumentError(
                None, None, f"Shared accumulator '{name}' exists with a different type or dtype"
            )
        return (acc,)

    return compute


@kernel("AccumulatorApplyGradient", devices=CPU_ONLY)
def accumulator_apply_gradient(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _accumulator(ins, node.name).apply(int(np.asarray(ins[1])), ins[2])
        return ()

    return compute


@kernel("AccumulatorTakeGradient", devices=CPU_ONLY)
def accumulator_take_gradient(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_accumulator(ins, node.name).take(ctx, int(np.asarray(ins[1]))),)

    return compute


@kernel("AccumulatorSetGlobalStep", devices=CPU_ONLY)
def accumulator_set_global_step(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _accumulator(ins, node.name).set_global_step(int(np.asarray(ins[1])))
        return ()

    return compute


@kernel("_AccumulatorCancelTakes", devices=CPU_ONLY)
def accumulator_cancel_takes(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _accumulator(ins, node.name).cancel_pending_takes()
        return ()

    return compute


@kernel("AccumulatorNumAccumulated", devices=CPU_ONLY)
def accumulator_num_accumulated(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(_accumulator(ins, node.name).count),)

    return compute
