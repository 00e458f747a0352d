"""CountUpTo: a scalar int variable counted up under its lock, OutOfRangeError at the limit
(the epoch counter of tf.train.limit_epochs)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, frozen
from tfcluster.kernels.registry import CPU_ONLY, kernel


@kernel("CountUpTo", devices=CPU_ONLY)
def count_up_to(node: Any, xp: Any) -> Compute:
    limit = int(node.attrs["limit"])
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = ins[0]
        with ref.lock:
            value = np.asarray(ref.read(name))
            if value.ndim != 0:
                raise errors.InvalidArgumentError(
                    None, None, f"input is not a scalar: [{','.join(map(str, value.shape))}]"
                )
            before = value.copy()
            if int(before) >= limit:
                raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
            ref.value = frozen(np.array(int(before) + 1, dtype=before.dtype))
            ref.generation += 1
        return (before,)

    return compute
