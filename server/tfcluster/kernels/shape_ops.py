"""ShapeN: the shapes of several tensors from one op, and ConcatOffset, where a concat's
gradient slices its gradient (host values, as TF keeps them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import host_ints, invalid, scalar_int, shape_of, shape_str
from tfcluster.kernels.registry import kernel


# Like Shape: reads only its inputs' shapes (host or device, never copied), so it runs on a
# GPU too (TF has a GPU kernel: the conv gradients read their shapes through one ShapeN).
@kernel("ShapeN", keep_inputs=True)
def shape_n(node: Any, xp: Any) -> Any:
    out_type = node.attrs.get("out_type")
    dtype = np.dtype(out_type.as_numpy_dtype) if out_type is not None else np.dtype(np.int32)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return tuple(np.array(shape_of(x), dtype=dtype) for x in ins)

    return compute


# On the host on either device, as TF's GPU kernel keeps it: the concat gradient on a GPU
# reads it where its Slices read their begin and size.
@kernel("ConcatOffset", all_host=True)
def concat_offset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shapes = [host_ints(s) for s in ins[1:]]
        first = shapes[0]
        rank = len(first)
        axis = scalar_int(ins[0], "concat_dim")
        if not -rank <= axis < rank:
            raise invalid(f"Concat dim is out of range: {axis} vs. {rank}")
        axis %= rank
        offsets = []
        offset = 0
        for i, shape in enumerate(shapes):
            if len(shape) != rank:
                raise invalid(f"input {i} should contain {rank} elements, but got {len(shape)}")
            for d in range(rank):
                if d != axis and shape[d] != first[d]:
                    raise invalid(
                        f"All dimensions except {axis} must match. Input {i} has shape "
                        f"{shape_str(shape)} and doesn't match input 0 with shape "
                        f"{shape_str(first)}."
                    )
            out = np.zeros(rank, np.int32)
            out[axis] = offset
            offsets.append(out)
            offset += shape[axis]
        return tuple(offsets)

    return compute
