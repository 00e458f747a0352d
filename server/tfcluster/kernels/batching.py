"""Kernel of BatchFunction: calls from concurrent steps wait (up to batch_timeout_micros)
to be batched with others, up to max_batch_size rows, padded to the next allowed batch
size; one of the waiting calls runs the function on the batch and each call gets its rows
of the results back.

A batcher is a resource (its shared_name), so the calls of every session of a task share it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.functional import _Function
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName


class _Call:
    __slots__ = ("done", "error", "inputs", "results", "rows")

    def __init__(self, inputs: list[np.ndarray], rows: int) -> None:
        self.inputs = inputs
        self.rows = rows
        self.results: list[Any] | None = None
        self.error: BaseException | None = None
        self.done = False


class Batcher:
    def __init__(self, max_batch_size: int, timeout_s: float, allowed: list[int]) -> None:
        self.max_batch_size = max_batch_size
        self.timeout_s = timeout_s
        self.allowed = sorted(allowed)
        self._cond = threading.Condition()
        self._pending: list[_Call] = []
        self._first_at = 0.0

    def call(
        self, ctx: Any, fn: _Function, inputs: list[np.ndarray], captures: list[Any]
    ) -> list[Any]:
        rows = int(inputs[0].shape[0]) if inputs and inputs[0].ndim else 0
        for x in inputs:
            if x.ndim == 0 or int(x.shape[0]) != rows:
                raise errors.InvalidArgumentError(
                    None, None, "BatchFunction inputs must have the same size in dimension 0"
                )
        if rows > self.max_batch_size:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Task size {rows} is larger than maximum batch size {self.max_batch_size}",
            )
        me = _Call(inputs, rows)
        batch: list[_Call] | None = None
        with self._cond:
            if not self._pending:
                self._first_at = time.monotonic()
            self._pending.append(me)
            self._cond.notify_all()
            while not me.done:
                full = sum(c.rows for c in self._pending) >= self.max_batch_size
                waited = time.monotonic() - self._first_at
                if self._pending and (full or waited >= self.timeout_s):
                    batch = self._take()
                    break
                left = ctx.time_left()
                wait = max(self.timeout_s - waited, 0.0005)
                self._cond.wait(wait if left is None else min(wait, left))
        if batch is not None:
            self._run(ctx, fn, batch, captures)
        if me.error is not None:
            raise me.error
        assert me.results is not None
        return me.results

    def _take(self) -> list[_Call]:
        batch: list[_Call] = []
        size = 0
        while self._pending and size + self._pending[0].rows <= self.max_batch_size:
            c = self._pending.pop(0)
            batch.append(c)
            size += c.rows
        if self._pending:
            self._first_at = time.monotonic()
        return batch

    def _run(self, ctx: Any, fn: _Function, batch: list[_Call], captures: list[Any]) -> None:
        try:
            total = sum(c.rows for c in batch)
            padded = next((s for s in self.allowed if s >= total), total)
            joined = []
            for i in range(len(batch[0].inputs)):
                parts = [c.inputs[i] for c in batch]
                x = np.concatenate(parts, axis=0)
                if padded > total:  # padding rows: copies of the first, dropped afterwards
                    pad = np.repeat(x[:1], padded - total, axis=0)
                    x = np.concatenate([x, pad], axis=0)
                joined.append(x)
            outs = [np.asarray(o) for o in fn(ctx, [*joined, *captures])]
            start = 0
            for c in batch:
                c.results = [o[start : start + c.rows] for o in outs]
                start += c.rows
        except BaseException as e:  # every call of the batch gets the batch's error
            for c in batch:
                c.error = e
        with self._cond:
            for c in batch:
                c.done = True
            self._cond.notify_all()


@kernel("BatchFunction", devices=CPU_ONLY)
def batch_function(node: Any, xp: Any) -> Any:
    a = node.attrs
    fn = _Function(a["f"], node.device, f"{node.name} f")
    num_in = len(a["Tin"])
    where = ResourceName(node)
    max_batch_size = int(a["max_batch_size"])
    allowed = [int(s) for s in a.get("allowed_batch_sizes") or []]
    if allowed and allowed[-1] != max_batch_size:
        raise errors.InvalidArgumentError(
            None, None, "The largest allowed batch size must be equal to max_batch_size"
        )
    timeout_s = int(a["batch_timeout_micros"]) / 1e6

    def compute(ctx: Any, ins: list[Any]) -> Any:
        name = where.resolve(ctx.resources)
        batcher = ctx.resources.lookup_or_create(
            where.container, name, lambda: Batcher(max_batch_size, timeout_s, allowed)
        )
        inputs = [np.asarray(x) for x in ins[:num_in]]
        return tuple(batcher.call(ctx, fn, inputs, list(ins[num_in:])))

    return compute
