"""Op definitions of ScaleAndTranslate and its gradient (kernels/scale_translate.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import static_ints
from tfcluster.ops.op_util import Outputs


def _scale_and_translate_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    images, size = inputs[0], inputs[1]
    if images.shape.ndims not in (None, 4):
        raise ValueError(f"Shape must be rank 4 but is rank {images.shape.ndims}")
    dims = images.shape.as_list() if images.shape.ndims == 4 else [None] * 4
    hw = static_ints(size)
    h, w = (hw[0], hw[1]) if hw is not None and len(hw) == 2 else (None, None)
    return [(dtypes.float32, TensorShape([dims[0], h, w, dims[3]]))]


def _grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, inputs[1].shape)]


op_def_registry.register("ScaleAndTranslate", _scale_and_translate_infer)
op_def_registry.register("ScaleAndTranslateGrad", _grad_infer)
