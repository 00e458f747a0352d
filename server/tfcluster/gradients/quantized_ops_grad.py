"""The quantized arithmetic ops have no gradients (TF registers none: tf.gradients through them
fails); QuantizeAndDequantize (V1) and V3 pass the gradient straight through to their input,
as TF 1.15's array_grad does."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient


@RegisterGradient("QuantizeAndDequantize")
def _quantize_and_dequantize_grad(op: Operation, grad: Tensor) -> Any:
    return [grad]


@RegisterGradient("QuantizeAndDequantizeV3")
def _quantize_and_dequantize_v3_grad(op: Operation, grad: Tensor) -> Any:
    return [grad, None, None, None]
