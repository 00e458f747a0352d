"""Kernels of tensor lists: the per-iteration values a while loop kept for its gradient."""

from __future__ import annotations

from typing import Any

from tfcluster.kernels.common import invalid, scalar_int
from tfcluster.kernels.registry import CPU_ONLY, kernel


@kernel("TensorListGetItem", devices=CPU_ONLY)
def tensor_list_get_item(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        items = ins[0]
        if not isinstance(items, list):
            raise invalid(f"{node.name}: input 0 is not a tensor list")
        index = scalar_int(ins[1], "index")
        if not 0 <= index < len(items):
            raise invalid(f"Trying to access element {index} in a list with {len(items)} elements.")
        return (items[index],)

    return compute
