"""The gradient of ScaleAndTranslate (TF 1.15's image_grad): ScaleAndTranslateGrad, the
transpose of the same sampling weights."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops.op_util import make_op


@RegisterGradient("ScaleAndTranslate")
def _scale_and_translate_grad(op: Operation, grad: Tensor) -> Any:
    attrs = {
        "T": grad.dtype.base_dtype,
        "kernel_type": op._get_attr("kernel_type"),
        "antialias": op._get_attr("antialias"),
    }
    inputs = [grad, op.inputs[0], op.inputs[2], op.inputs[3]]
    g = make_op("ScaleAndTranslateGrad", inputs, attrs).outputs[0]
    return [g, None, None, None]
