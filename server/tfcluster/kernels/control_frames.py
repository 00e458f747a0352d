"""Kernels of TF1's dataflow control flow (ops/v1_control_flow_ops.py). They compute the
values; which frame and iteration an output belongs to, and which nodes a dead output
reaches, is the frame executor's part (runtime/frame_executor.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import register_for_all_devices
from tfcluster.runtime.dead_tensor import DEAD

_EMPTY: tuple[Any, ...] = ()


def _predicate(value: Any, node_name: str) -> bool:
    if getattr(value, "ndim", 0) != 0:
        raise invalid(
            f"The second input must be a scalar, but it has shape {list(value.shape)} "
            f"(Switch {node_name})"
        )
    return bool(value)


def _switch(node: Any) -> Any:
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        # Output 0 carries the value when the predicate is false, output 1 when it is true.
        return (DEAD, ins[0]) if _predicate(ins[1], name) else (ins[0], DEAD)

    return compute


def _merge(node: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        for i, value in enumerate(ins):
            if value is not DEAD:
                return (value, np.asarray(i, np.int32))
        return (DEAD, DEAD)

    return compute


def _forward(node: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (ins[0],)

    return compute


def _loop_cond(node: Any) -> Any:
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if getattr(ins[0], "ndim", 0) != 0:
            raise invalid(f"LoopCond {name}: the input must be a scalar bool")
        return (ins[0],)

    return compute


def _control_trigger(node: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return _EMPTY

    return compute


for _op in ("Switch", "RefSwitch"):
    register_for_all_devices(_op)(_switch)
for _op in ("Merge", "RefMerge"):
    register_for_all_devices(_op)(_merge)
for _op in ("Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"):
    register_for_all_devices(_op)(_forward)
register_for_all_devices("LoopCond")(_loop_cond)
register_for_all_devices("ControlTrigger")(_control_trigger)
