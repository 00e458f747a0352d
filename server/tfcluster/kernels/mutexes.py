"""Kernels of the resource mutex ops (tf.CriticalSection).

A MutexV2 resource is a lock owned by at most one holder. MutexLock waits for it (bounded by
the step's deadline, ended by cancellation) and returns a `MutexLockValue`; ConsumeMutexLock
gives it back. As TF releases a lock when the step that took it ends (the lock tensor is
freed), the mutex keeps only a weak reference to its holder: a lock whose step failed (the
step cancelled, or its values freed without the lock consumed) is taken back by the next
waiter, so a failed step never leaves the mutex held.
"""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName

_POLL_SECONDS = 0.05
_COLLECT_AFTER_SECONDS = 1.0


class MutexResource:
    def __init__(self, name: str) -> None:
        self.name = name
        self._cond = threading.Condition()
        self._holder: weakref.ref[MutexLockValue] | None = None

    def _held(self) -> bool:
        holder = None if self._holder is None else self._holder()
        return holder is not None and not holder.consumed and not holder.step_over()

    def acquire(self, ctx: Any) -> MutexLockValue:
        lock = MutexLockValue(self, ctx)
        waited = 0.0
        with self._cond:
            while self._held():
                left = ctx.time_left()  # raises once cancelled or past the deadline
                wait = _POLL_SECONDS if left is None else min(left, _POLL_SECONDS)
                self._cond.wait(wait)
                waited += wait
                if waited >= _COLLECT_AFTER_SECONDS:
                    # A failed step's values may be held in a reference cycle (its
                    # traceback): collecting frees its lock.
                    waited = 0.0
                    gc.collect()
            self._holder = weakref.ref(lock)
        return lock

    def release(self, lock: MutexLockValue) -> None:
        with self._cond:
            if self._holder is not None and self._holder() is lock:
                self._holder = None
                self._cond.notify_all()


class MutexLockValue:
    """A taken mutex (the variant MutexLock returns)."""

    def __init__(self, mutex: MutexResource, ctx: Any) -> None:
        self.mutex = mutex
        self._cancelled = ctx.cancelled  # set when the step is cancelled
        self.consumed = False

    def step_over(self) -> bool:
        return bool(self._cancelled.is_set())


def _unbox(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        return value.item()
    return value


@kernel("MutexV2", devices=CPU_ONLY)
def mutex_v2(node: Any, xp: Any) -> Any:
    where = ResourceName(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = where.resolve(ctx.resources)
        m = ctx.resources.lookup_or_create(where.container, name, lambda: MutexResource(name))
        if not isinstance(m, MutexResource):
            raise errors.InvalidArgumentError(
                None, None, f"Resource '{name}' is not a mutex ({type(m).__name__})"
            )
        return (m,)

    return compute


@kernel("MutexLock", devices=CPU_ONLY)
def mutex_lock(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        m = _unbox(ins[0])
        if not isinstance(m, MutexResource):
            raise errors.InvalidArgumentError(
                None, None, f"{node.name}: input 0 is not a mutex ({type(m).__name__})"
            )
        return (m.acquire(ctx),)

    return compute


@kernel("ConsumeMutexLock", devices=CPU_ONLY)
def consume_mutex_lock(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lock = _unbox(ins[0])
        if not isinstance(lock, MutexLockValue):
            raise errors.InvalidArgumentError(
                None, None, f"{node.name}: input 0 is not a mutex lock ({type(lock).__name__})"
            )
        if lock.consumed:
            raise errors.InvalidArgumentError(None, None, f"{node.name}: lock consumed twice")
        lock.consumed = True
        lock.mutex.release(lock)
        return ()

    return compute
