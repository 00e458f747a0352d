"""Kernels of tf.function's call ops and of Case: run the called body (the branch picked)
with the caller's step context."""

from __future__ import annotations

from typing import Any

import numpy as np

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


@kernel("Case", devices=CPU_ONLY)
def _case_kernel(node: Any, xp: Any) -> Any:
    branches = [
        _Function(f, node.device, f"{node.name} branches[{k}]")
        for k, f in enumerate(node.attrs.get("branches") or ())
    ]
    if not branches:
        raise errors.InvalidArgumentError(None, None, f"{node.name}: Case has no branches")
    num_args = len(node.inputs) - 1
    for k, fn in enumerate(branches):
        if fn.num_args != num_args:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{node.name}: branch {k} takes {fn.num_args} arguments, the op passes {num_args}",
            )
    last = len(branches) - 1

    def compute(ctx: Any, ins: list[Any]) -> Any:
        index = np.asarray(ins[0])
        if index.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"branch_index must be a scalar, got shape {list(index.shape)}"
            )
        k = int(index)
        return branches[k if 0 <= k <= last else last](ctx, ins[1:])

    return compute
