"""The Assert kernel: nothing when its condition holds, else InvalidArgumentError with the
summarized data, worded as TF 1.15's ("assertion failed: [msg] [1 2 3...]")."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _element(value: Any) -> str:
    """One element as TF's PrintOneElement writes it (floats in the shortest of 6 or 9/17
    significant digits that reads back the same)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (np.floating, float)):
        f = np.asarray(value)
        if f.dtype == np.float64:
            text = f"{float(f):.15g}"
            return text if float(text) == float(f) else f"{float(f):.17g}"
        f32 = f.astype(np.float32)
        text = f"{float(f32):.6g}"
        return text if np.float32(text) == f32 else f"{float(f32):.9g}"
    if isinstance(value, (np.complexfloating, complex)):
        return f"({_element(np.real(value))},{_element(np.imag(value))})"
    return str(value)


def _one_dim(shape: tuple[int, ...], dim: int, flat: Any, limit: int, pos: list[int]) -> str:
    """TF's PrintOneDim: the innermost dims space separated, each outer dim in brackets."""
    if pos[0] >= limit:
        return ""
    out = []
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if pos[0] >= limit:
                if dim != 0:
                    out.append("...")
                break
            if i > 0:
                out.append(" ")
            out.append(_element(flat[pos[0]]))
            pos[0] += 1
        return "".join(out)
    for _ in range(shape[dim]):
        opened = pos[0] < limit
        if opened:
            out.append("[")
        out.append(_one_dim(shape, dim + 1, flat, limit, pos))
        if pos[0] < limit or opened:
            out.append("]")
    return "".join(out)


def summarize(value: Any, max_entries: int) -> str:
    """Tensor::SummarizeValue(max_entries) of TF 1.15 (print_v2 off)."""
    arr = host_array(value)
    flat = arr.reshape(-1)
    limit = flat.size if max_entries < 0 else min(max_entries, flat.size)
    if arr.ndim == 0:
        text = " ".join(_element(v) for v in flat[:limit])
    else:
        text = _one_dim(arr.shape, 0, flat, limit, [0])
    return text + ("..." if flat.size > limit else "")


@kernel("Assert", devices=CPU_ONLY)
def assert_kernel(node: Any, xp: Any) -> Compute:
    summarize_n = int(node.attrs.get("summarize", 3))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        condition = host_array(ins[0])
        if condition.ndim != 0:
            raise invalid(f"In[0] should be a scalar: {list(condition.shape)}")
        if bool(condition):
            return ()
        parts = [f"[{summarize(x, summarize_n)}]" for x in ins[1:]]
        raise invalid("assertion failed: " + " ".join(parts))

    return compute
