"""Gradients of the debugging ops: Print passes its input's gradient through, CheckNumerics
checks the gradient too (as TF does); asserts and prints have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import numerics

not_differentiable("Assert")


@RegisterGradient("Print")
def _print_grad(op: Operation, *grads: Tensor) -> list[Any]:
    return [grads[0]] + [None] * (len(op.inputs) - 1)


@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op: Operation, grad: Tensor) -> Tensor:
    message = "Not a number (NaN) or infinity (Inf) values detected in gradient. " + str(
        op._get_attr("message")
    )
    return numerics.check_numerics(grad, message)
