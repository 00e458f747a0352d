"""Kernels of tf.function's call ops: run the called body with the caller's step context."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels.functional import _Function
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _call_kernel(node: Any, xp: Any) -> Any:
    fn = _Function(node.attrs["f"], node.device, f"{node.name} f")
    if len(node.inputs) != fn.num_args:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{node.name}: function '{node.attrs['f'].name}' takes {fn.num_args} arguments, "
            f"the call passes {len(node.inputs)}",
        )

    def compute(ctx: Any, ins: list[Any]) -> Any:
        return fn(ctx, ins)

    return compute


kernel("PartitionedCall", devices=CPU_ONLY)(_call_kernel)
kernel("StatefulPartitionedCall", devices=CPU_ONLY)(_call_kernel)
