"""LinSpace over xp: num evenly spaced values from start to stop, both included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("LinSpace", host=(0, 1, 2))
def lin_space(node: Any, xp: Any) -> Compute:
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        start_t, stop_t, num_t = ins
        for value, what in ((start_t, "start"), (stop_t, "stop"), (num_t, "num")):
            if u.host(value).ndim != 0:
                raise u.invalid(f"{what} must be a scalar, not shape {u.shape_str(value.shape)}")
        num = u.host_int(num_t, "num")
        if num <= 0:
            raise u.invalid(f"Requires num > 0: {num}")
        start = u.host(start_t).astype(dtype)
        stop = u.host(stop_t).astype(dtype)
        # TF's kernel works in the output's dtype: step = (stop - start) / (num - 1), each
        # value start + step * i rounded there (not numpy's float64 linspace), stop last.
        out = np.empty(num, dtype=dtype)
        if num > 1:
            step = (stop - start) / np.asarray(num - 1, dtype=dtype)
            out[:-1] = start + step * np.arange(num - 1).astype(dtype)
        out[-1] = stop if num > 1 else start
        return (xp.asarray(out),)

    return compute
