"""Gradients of complex/real/imag/angle (TF's math_grad)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.math_grad import reduce_to
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, complex_ops, math_ops


@RegisterGradient("Complex")
def _complex_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    return [
        reduce_to(complex_ops.real(grad), x, y),
        reduce_to(complex_ops.imag(grad), y, x),
    ]


@RegisterGradient("Real")
def _real_grad(op: Operation, grad: Tensor) -> Any:
    return [complex_ops.complex(grad, array_ops.zeros_like(grad))]


@RegisterGradient("Imag")
def _imag_grad(op: Operation, grad: Tensor) -> Any:
    return [complex_ops.complex(array_ops.zeros_like(grad), grad)]


@RegisterGradient("Angle")
def _angle_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    with control_dependencies([grad]):
        re = complex_ops.real(x)
        im = complex_ops.imag(x)
        z = math_ops.reciprocal(complex_ops.complex(im, re))
        complex_grad = complex_ops.complex(grad, array_ops.zeros_like(grad))
        return [math_ops.negative(complex_grad * z)]
