"""Assert: fails the step with InvalidArgumentError when its condition is false."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, host_array
from tfcluster.kernels.registry import CPU_ONLY, kernel


def summarize(value: Any, n: int) -> str:
    """TF's SummarizeValue: the first n entries, space separated, '...' when there are more."""
    flat = host_array(value).reshape(-1)
    items = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in flat[:n]]
    text = " ".join(items)
    return f"{text}..." if flat.size > n else text


@kernel("Assert", devices=CPU_ONLY)
def assert_op(node: Any, xp: Any) -> Compute:
    n = int(node.attrs.get("summarize", 3))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        cond = np.asarray(host_array(ins[0]))
        if cond.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"In[0] expected to be a scalar bool, got shape {list(cond.shape)}"
            )
        if not bool(cond):
            shown = " ".join(f"[{summarize(x, n)}]" for x in ins[1:])
            raise errors.InvalidArgumentError(None, None, f"assertion failed: {shown}")
        return ()

    return compute
