"""Kernels for ConditionalAccumulator, and the resource it keeps (queues: kernels/queues.py).

The accumulator lives in the task's ResourceMgr (ctx.resources), looked up by container and
shared name, so every session on the task shares it. take_grad waits on a condition
variable until enough gradients arrived, and gives up when the step's deadline passes, when
the step is cancelled or aborted, or when the accumulator is closed.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName, shape_ok, wait_until

_log = logging.getLogger(__name__)


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
        if not shape_ok(self.shape, g.shape):
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
            wait_until(
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


def accumulator_input(ins: list[Any], node_name: str, kind: type[Any], what: str) -> Any:
    """Input 0 as an accumulator of `kind`, or InvalidArgumentError naming the node."""
    a = ins[0]
    if not isinstance(a, kind):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not {what} handle ({type(a).__name__})"
        )
    return a


def _accumulator(ins: list[Any], node_name: str) -> AccumulatorResource:
    acc: AccumulatorResource = accumulator_input(
        ins, node_name, AccumulatorResource, "an accumulator"
    )
    return acc


def accumulator_creator(node: Any, kind: type[Any]) -> Any:
    """The compute of a (Sparse)ConditionalAccumulator node: find or make the shared resource."""
    where = ResourceName(node)
    dtype = node.attrs["dtype"]
    shape = TensorShape(node.attrs.get("shape"))
    reduction = node.attrs.get("reduction_type", "MEAN")
    if isinstance(reduction, bytes):
        reduction = reduction.decode()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = where.resolve(ctx.resources)
        acc = ctx.resources.lookup_or_create(
            where.container, name, lambda: kind(name, dtype, shape, reduction)
        )
        if not isinstance(acc, kind) or acc.dtype != dtype:
            raise errors.InvalidArgumentError(
                None, None, f"Shared accumulator '{name}' exists with a different type or dtype"
            )
        return (acc,)

    return compute


@kernel("ResourceConditionalAccumulator", devices=CPU_ONLY)
@kernel("ConditionalAccumulator", devices=CPU_ONLY)
def conditional_accumulator(node: Any, xp: Any) -> Any:
    return accumulator_creator(node, AccumulatorResource)


@kernel("ResourceAccumulatorApplyGradient", devices=CPU_ONLY)
@kernel("AccumulatorApplyGradient", devices=CPU_ONLY)
def accumulator_apply_gradient(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _accumulator(ins, node.name).apply(int(np.asarray(ins[1])), ins[2])
        return ()

    return compute


@kernel("ResourceAccumulatorTakeGradient", devices=CPU_ONLY)
@kernel("AccumulatorTakeGradient", devices=CPU_ONLY)
def accumulator_take_gradient(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_accumulator(ins, node.name).take(ctx, int(np.asarray(ins[1]))),)

    return compute


@kernel("ResourceAccumulatorSetGlobalStep", devices=CPU_ONLY)
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


@kernel("ResourceAccumulatorNumAccumulated", devices=CPU_ONLY)
@kernel("AccumulatorNumAccumulated", devices=CPU_ONLY)
def accumulator_num_accumulated(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(_accumulator(ins, node.name).count),)

    return compute
