"""Kernels of the string ops: values are numpy object arrays of bytes (the CPU only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.tensor_format import summarize


def _bytes_scalar(value: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


@kernel("StringFormat", devices=CPU_ONLY)
def string_format(node: Any, xp: Any) -> Any:
    template = str(node.attrs["template"])
    placeholder = str(node.attrs.get("placeholder", "{}"))
    count = int(node.attrs.get("summarize", 3))
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(node.inputs):
        raise invalid(
            f"num placeholders in template and num inputs must match: {len(pieces) - 1} vs. "
            f"{len(node.inputs)}"
        )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out = [pieces[0]]
        for value, piece in zip(ins, pieces[1:]):
            out.append(summarize(host_array(value), count, print_v2=True))
            out.append(piece)
        return (_bytes_scalar("".join(out).encode()),)

    return compute
