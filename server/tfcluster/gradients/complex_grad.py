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


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op: Operation, grad: Tensor) -> Any:
    # d|z| = Re(conj(z) dz) / |z|: the gradient is grad * z / |z| (0 where z is 0).
    # The ops in TF's order: the numerator's, then the modulus's.
    numerator = complex_ops.complex(grad, array_ops.zeros_like(grad)) * op.inputs[0]
    modulus = complex_ops.complex(op.outputs[0], array_ops.zeros_like(op.outputs[0]))
    return [math_ops.div_no_nan(numerator, modulus)]


@RegisterGradient("Angle")
def _angle_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    with control_dependencies([grad]):
        re = complex_ops.real(x)
        im = complex_ops.imag(x)
        z = math_ops.reciprocal(complex_ops.complex(im, re))
        complex_grad = complex_ops.complex(grad, array_ops.zeros_like(grad))
        return [math_ops.negative(complex_grad * z)]
