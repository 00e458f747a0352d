"""Kernels that only order execution."""

from __future__ import annotations

from typing import Any

from tfcluster.kernels.registry import register_for_all_devices

_EMPTY: tuple[Any, ...] = ()


@register_for_all_devices("NoOp")
def no_op(node: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return _EMPTY

    return compute
