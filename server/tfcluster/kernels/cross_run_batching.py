"""Kernels of Batch, Unbatch and UnbatchGrad (see ops/cross_run_batching_ops.py).

Batch: each call (one per step running it) gets a random int64 id and waits, up to
batch_timeout_micros from the batch's first call or until max_batch_size rows gathered, to
join one batch; the batch's last call gets every call's rows concatenated (padded to the next
allowed batch size with copies of the first row) and the batch index [id, start, end] of
each call, the others empty tensors. Unbatch: the call holding the batch splits it by the
index, and each call takes its own rows (waiting up to timeout_micros for them).
UnbatchGrad: the reverse for gradients: every call leaves its rows' gradient, and the call
holding the batch index gathers them in batch order. All three are resources of their
container/shared_name, so the calls of every session of a task meet there.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName


class _Task:
    __slots__ = ("done", "id", "outputs", "rows", "tensors")

    def __init__(self, tensors: list[np.ndarray], rows: int) -> None:
        self.id = secrets.randbits(64) - (1 << 63)
        self.tensors = tensors
        self.rows = rows
        self.outputs: list[np.ndarray] | None = None
        self.done = False


class _BatchQueue:
    def __init__(self, max_batch_size: int, timeout_s: float, allowed: list[int]) -> None:
        self.max_batch_size = max_batch_size
        self.timeout_s = timeout_s
        self.allowed = allowed
        self._cond = threading.Condition()
        self._pending: list[_Task] = []
        self._first_at = 0.0

    def join(self, ctx: Any, tensors: list[np.ndarray]) -> _Task:
        rows = int(tensors[0].shape[0]) if tensors and tensors[0].ndim else 0
        if any(t.ndim == 0 or int(t.shape[0]) != rows for t in tensors):
            raise invalid(
                "Batching input tensors supplied in a given op invocation must have equal "
                "0th-dimension size"
            )
        if rows > self.max_batch_size:
            raise invalid(
                f"Task size {rows} is larger than maximum batch size {self.max_batch_size}"
            )
        me = _Task(tensors, rows)
        with self._cond:
            if not self._pending:
                self._first_at = time.monotonic()
            self._pending.append(me)
            self._cond.notify_all()
            while not me.done:
                full = sum(t.rows for t in self._pending) >= self.max_batch_size
                waited = time.monotonic() - self._first_at
                if self._pending and (full or waited >= self.timeout_s):
                    self._close_batch()
                    break
                left = ctx.time_left()
                wait = max(self.timeout_s - waited, 0.0005)
                self._cond.wait(wait if left is None else min(wait, left))
        return me

    def _close_batch(self) -> None:
        """Takes the pending calls that fit in one batch; the last of them gets it."""
        batch: list[_Task] = []
        size = 0
        while self._pending and size + self._pending[0].rows <= self.max_batch_size:
            task = self._pending.pop(0)
            batch.append(task)
            size += task.rows
        if self._pending:
            self._first_at = time.monotonic()
        padded = next((s for s in self.allowed if s >= size), size)
        joined = []
        for i in range(len(batch[0].tensors)):
            x = np.concatenate([t.tensors[i] for t in batch], axis=0)
            if padded > size:
                x = np.concatenate([x, np.repeat(x[:1], padded - size, axis=0)], axis=0)
            joined.append(x)
        index = np.zeros((len(batch), 3), dtype=np.int64)
        start = 0
        for row, task in zip(index, batch):
            row[:] = (task.id, start, start + task.rows)
            start += task.rows
        for task in batch:
            if task is batch[-1]:
                task.outputs = [*joined, index]
            else:
                empty = [np.zeros((0, *t.shape[1:]), dtype=t.dtype) for t in task.tensors]
                task.outputs = [*empty, np.zeros((0, 3), dtype=np.int64)]
            task.done = True
        self._cond.notify_all()


@kernel("Batch", devices=CPU_ONLY)
def batch(node: Any, xp: Any) -> Compute:
    a = node.attrs
    where = ResourceName(node)
    max_batch_size = int(a["max_batch_size"])
    allowed = [int(s) for s in a.get("allowed_batch_sizes") or []]
    timeout_s = int(a["batch_timeout_micros"]) / 1e6

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if allowed and allowed[-1] != max_batch_size:
            raise invalid("final entry in allowed_batch_sizes must equal max_batch_size")
        name = where.resolve(ctx.resources)
        queue = ctx.resources.lookup_or_create(
            where.container, name, lambda: _BatchQueue(max_batch_size, timeout_s, allowed)
        )
        task = queue.join(ctx, [np.asarray(x) for x in ins])
        assert task.outputs is not None
        return (*task.outputs, np.array(task.id, dtype=np.int64))

    return compute


class _Exchange:
    """Rows (or gradients) by call id, for calls waiting on another call's batch."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._by_id: dict[int, np.ndarray] = {}

    def put(self, key: int, value: np.ndarray) -> None:
        with self._cond:
            self._by_id[key] = value
            self._cond.notify_all()

    def take(self, ctx: Any, keys: list[int], timeout_s: float) -> list[np.ndarray]:
        until = time.monotonic() + timeout_s
        with self._cond:
            while not all(k in self._by_id for k in keys):
                left = until - time.monotonic()
                if left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, "Batched data did not arrive within timeout window."
                    )
                step_left = ctx.time_left()
                self._cond.wait(left if step_left is None else min(left, step_left))
            return [self._by_id.pop(k) for k in keys]


def _exchange(node: Any, where: ResourceName, ctx: Any) -> _Exchange:
    name = where.resolve(ctx.resources)
    return ctx.resources.lookup_or_create(where.container, name, _Exchange)  # type: ignore[no-any-return]


def _index(value: Any) -> np.ndarray:
    index = np.asarray(value, dtype=np.int64)
    if index.ndim != 2 or index.shape[1] != 3:
        raise invalid(f"batch_index must be a matrix with 3 columns, got shape {list(index.shape)}")
    return index


@kernel("Unbatch", devices=CPU_ONLY)
def unbatch(node: Any, xp: Any) -> Compute:
    where = ResourceName(node)
    timeout_s = int(node.attrs["timeout_micros"]) / 1e6

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data, index, me = np.asarray(ins[0]), _index(ins[1]), int(np.asarray(ins[2]))
        exchange = _exchange(node, where, ctx)
        for key, start, end in index.tolist():
            if end > data.shape[0] or start > end:
                raise invalid(f"batch_index row [{key}, {start}, {end}] is outside the batch")
            exchange.put(key, data[start:end])
        return (exchange.take(ctx, [me], timeout_s)[0],)

    return compute


@kernel("UnbatchGrad", devices=CPU_ONLY)
def unbatch_grad(node: Any, xp: Any) -> Compute:
    where = ResourceName(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        original, index, grad = np.asarray(ins[0]), _index(ins[1]), np.asarray(ins[2])
        me = int(np.asarray(ins[3]))
        exchange = _exchange(node, where, ctx)
        exchange.put(me, grad)
        if index.shape[0] == 0:
            return (np.zeros((0, *grad.shape[1:]), dtype=grad.dtype),)
        parts = exchange.take(ctx, [int(k) for k in index[:, 0]], _GRAD_TIMEOUT_S)
        return (np.concatenate(parts, axis=0) if parts else original[:0],)

    return compute


# UnbatchGrad has no timeout attr: the batch's gradients come from steps already running.
_GRAD_TIMEOUT_S = 60.0
