"""Gradients of the Optional ops, as TF 1.15's optional_grad: an optional's gradient is an
optional of its components' gradients, and back."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import optional_ops


@RegisterGradient("OptionalFromValue")
def _optional_from_value_grad(op: Operation, grad: Tensor) -> Any:
    attrs = {
        "output_types": [t.dtype.base_dtype for t in op.inputs],
        "output_shapes": [t.shape for t in op.inputs],
    }
    return optional_ops.optional_get_value(grad, attrs)


@RegisterGradient("OptionalGetValue")
def _optional_get_value_grad(op: Operation, *grads: Tensor) -> Any:
    return [optional_ops.optional_from_value(list(grads))]
