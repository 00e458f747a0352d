"""ShapeN: the shapes of several tensors from one op (host values, as TF keeps them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import shape_of
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
