"""SelectV2: where(condition, t, e) with the three broadcast together (numpy's rules)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid, shape_str
from tfcluster.kernels.registry import kernel


@kernel("SelectV2")
def select_v2(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        c, t, e = (xp.asarray(v) for v in ins)
        try:
            np.broadcast_shapes(c.shape, t.shape, e.shape)
        except ValueError:
            raise invalid(
                f"condition {shape_str(c.shape)}, then {shape_str(t.shape)} and else "
                f"{shape_str(e.shape)} must be broadcastable"
            ) from None
        return (xp.where(c, t, e),)

    return compute
