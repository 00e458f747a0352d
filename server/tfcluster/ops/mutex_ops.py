"""The resource mutex ops tf.CriticalSection is built from: MutexV2 (the mutex resource),
MutexLock (waits for and takes it, returning the lock) and ConsumeMutexLock (gives it back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([]))]


def _lock_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.variant, TensorShape([]))]


op_def_registry.register("MutexV2", _handle_infer, stateful=True)
op_def_registry.register("MutexLock", _lock_infer, ref_inputs=[0], stateful=True)
op_def_registry.register("ConsumeMutexLock", op_def_registry.no_outputs, stateful=True)


def mutex_v2(container: str = "", shared_name: str = "", name: str | None = None) -> Tensor:
    attrs = {"container": container, "shared_name": shared_name}
    return make_op("MutexV2", [], attrs, name=name or "MutexV2").outputs[0]


def mutex_lock(mutex: Tensor, name: str | None = None) -> Tensor:
    return make_op("MutexLock", [mutex], {}, name=name or "MutexLock").outputs[0]


def consume_mutex_lock(mutex_lock: Tensor, name: str | None = None) -> Operation:
    return make_op("ConsumeMutexLock", [mutex_lock], {}, name=name or "ConsumeMutexLock")


__all__ = ["consume_mutex_lock", "mutex_lock", "mutex_v2"]
