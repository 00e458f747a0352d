"""Gradients of the special functions, hyperbolic functions, atan2, xlogy/xdivy, mul_no_nan,
euclidean norm and cumulative logsumexp, with the formulas of TF's math_grad (broadcast
inputs get their gradient summed back to their shape)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.math_grad import reduce_to
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, constant_op, math_ops
from tfcluster.ops import special_math_ops as sm


def _c(value: float, like: Tensor) -> Tensor:
    return constant_op.constant(value, dtype=like.dtype.base_dtype)


@RegisterGradient("Erf")
def _erf_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    two_over_root_pi = _c(2.0 / math.sqrt(math.pi), x)
    with control_dependencies([grad]):
        return [grad * two_over_root_pi * math_ops.exp(-math_ops.square(x))]


@RegisterGradient("Erfc")
def _erfc_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    minus_two_over_root_pi = _c(-2.0 / math.sqrt(math.pi), x)
    with control_dependencies([grad]):
        return [grad * minus_two_over_root_pi * math_ops.exp(-math_ops.square(x))]


@RegisterGradient("Lgamma")
def _lgamma_grad(op: Operation, grad: Tensor) -> Any:
    with control_dependencies([grad]):
        return [grad * sm.digamma(op.inputs[0])]


@RegisterGradient("Digamma")
def _digamma_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    with control_dependencies([grad]):
        x = math_ops.conj(x)
        return [grad * sm.polygamma(_c(1, x), x)]


def _igamma_partials(op: Operation) -> tuple[Tensor, Tensor]:
    a, x = op.inputs
    partial_a = sm.igamma_grad_a(a, x)
    partial_x = math_ops.exp(-x + (a - _c(1.0, a)) * math_ops.log(x) - sm.lgamma(a))
    return partial_a, partial_x


@RegisterGradient("Igamma")
def _igamma_grad(op: Operation, grad: Tensor) -> Any:
    a, x = op.inputs
    with control_dependencies([grad]):
        partial_a, partial_x = _igamma_partials(op)
        return [reduce_to(partial_a * grad, a, x), reduce_to(partial_x * grad, x, a)]


@RegisterGradient("Igammac")
def _igammac_grad(op: Operation, grad: Tensor) -> Any:
    a, x = op.inputs
    with control_dependencies([grad]):
        partial_a, partial_x = _igamma_partials(op)
        return [reduce_to(-partial_a * grad, a, x), reduce_to(-partial_x * grad, x, a)]


@RegisterGradient("Betainc")
def _betainc_grad(op: Operation, grad: Tensor) -> Any:
    """Only x has a gradient (TF has none for a and b)."""
    a, b, x = op.inputs
    one = _c(1.0, x)
    log_beta = sm.lgamma(a) + sm.lgamma(b) - sm.lgamma(a + b)
    partial_x = math_ops.exp(
        (b - one) * math_ops.log(one - x) + (a - one) * math_ops.log(x) - log_beta
    )
    return [None, None, reduce_to(partial_x * grad, x, a + b)]


@RegisterGradient("Zeta")
def _zeta_grad(op: Operation, grad: Tensor) -> Any:
    x, q = op.inputs
    with control_dependencies([grad]):
        partial_q = -x * sm.zeta(x + _c(1.0, x), q)
        return [None, reduce_to(partial_q * grad, q, x)]


@RegisterGradient("Polygamma")
def _polygamma_grad(op: Operation, grad: Tensor) -> Any:
    n, x = op.inputs
    with control_dependencies([grad]):
        partial_x = sm.polygamma(n + _c(1.0, n), x)
        return [None, reduce_to(partial_x * grad, x, n)]


@RegisterGradient("BesselI0e")
def _bessel_i0e_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        return [grad * (sm.bessel_i1e(x) - math_ops.sign(x) * y)]


@RegisterGradient("BesselI1e")
def _bessel_i1e_grad(op: Operation, grad: Tensor) -> Any:
    # d/dx I1e = I0e - y (sign(x) + 1/x): 1/x is imputed near 0, where the limit is 1/2.
    x, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        eps = float(np.finfo(x.dtype.base_dtype.as_numpy_dtype).eps)
        zeros = array_ops.zeros_like(x)
        not_tiny = math_ops.greater(math_ops.abs(x), _c(eps, x))
        safe_x = math_ops.select(not_tiny, x, zeros + _c(eps, x))
        dy_dx = sm.bessel_i0e(safe_x) - y * (math_ops.sign(safe_x) + math_ops.reciprocal(safe_x))
        dy_dx = math_ops.select(not_tiny, dy_dx, zeros + _c(0.5, x))
        return [grad * dy_dx]


@RegisterGradient("Sinh")
def _sinh_grad(op: Operation, grad: Tensor) -> Any:
    with control_dependencies([grad]):
        return [grad * sm.cosh(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Cosh")
def _cosh_grad(op: Operation, grad: Tensor) -> Any:
    with control_dependencies([grad]):
        return [grad * sm.sinh(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Asinh")
def _asinh_grad(op: Operation, grad: Tensor) -> Any:
    with control_dependencies([grad]):
        return [grad / sm.cosh(math_ops.conj(op.outputs[0]))]


@RegisterGradient("Acosh")
def _acosh_grad(op: Operation, grad: Tensor) -> Any:
    with control_dependencies([grad]):
        return [grad / sm.sinh(math_ops.conj(op.outputs[0]))]


@RegisterGradient("Atanh")
def _atanh_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    with control_dependencies([grad]):
        x2 = math_ops.square(math_ops.conj(x))
        inv = math_ops.reciprocal(math_ops.subtract(_c(1, grad), x2))
        return [grad * inv]


@RegisterGradient("Atan2")
def _atan2_grad(op: Operation, grad: Tensor) -> Any:
    y, x = op.inputs
    with control_dependencies([grad]):
        grad_inv = grad / (math_ops.square(x) + math_ops.square(y))
        # As TF 1.15's: not summed over broadcast dimensions, so broadcasting inputs make
        # tf.gradients raise the shape ValueError there, as here.
        return [x * grad_inv, -y * grad_inv]


def _xlogy_or_xdivy_grad(
    op: Operation, grad: Tensor, partials: Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]
) -> Any:
    """TF 1.15's ops in its order: the broadcast axes first, then, under a control dependency
    on grad, x's indicator of non-zero, the partials, and each side summed and reshaped."""
    x, y = op.inputs
    sx = array_ops.shape(x)
    sy = array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    with control_dependencies([grad]):
        zero = math_ops.cast(0.0, dtype=x.dtype.base_dtype)
        not_zero_x = math_ops.cast(math_ops.not_equal(x, zero), dtype=x.dtype.base_dtype)
        partial_x, partial_y = partials(x, y, not_zero_x)
        return [
            array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx), sx),
            array_ops.reshape(math_ops.reduce_sum(partial_y * grad, ry), sy),
        ]


@RegisterGradient("Xlogy")
def _xlogy_grad(op: Operation, grad: Tensor) -> Any:
    return _xlogy_or_xdivy_grad(
        op, grad, lambda x, y, not_zero_x: (sm.xlogy(not_zero_x, y), sm.xdivy(x, y))
    )


@RegisterGradient("Xdivy")
def _xdivy_grad(op: Operation, grad: Tensor) -> Any:
    return _xlogy_or_xdivy_grad(
        op,
        grad,
        lambda x, y, not_zero_x: (
            sm.xdivy(not_zero_x, y),
            sm.xdivy(math_ops.negative(x), y**2),
        ),
    )


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    return [
        reduce_to(sm.multiply_no_nan(grad, y), x, y),
        reduce_to(sm.multiply_no_nan(x, grad), y, x),
    ]


# TF 1.15 marks EuclideanNorm not differentiable (its gradient came in 2.x): tf.gradients of
# reduce_euclidean_norm is None there, as here.
not_differentiable("EuclideanNorm")


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op: Operation, grad: Tensor) -> Any:
    """The positive and negative parts of the gradient pass through logs separately."""
    x, axis = op.inputs
    out = op.outputs[0]
    exclusive, reverse = op._get_attr("exclusive"), op._get_attr("reverse")
    lowest = array_ops.fill(array_ops.shape(grad), _c(float(grad.dtype.base_dtype.min), grad))
    zero = _c(0.0, grad)
    safe_pos = math_ops.select(math_ops.greater(grad, zero), grad, array_ops.ones_like(grad))
    safe_neg = math_ops.select(math_ops.less(grad, zero), -grad, array_ops.ones_like(grad))
    log_pos = math_ops.select(math_ops.greater(grad, zero), math_ops.log(safe_pos), lowest)
    log_neg = math_ops.select(math_ops.less(grad, zero), math_ops.log(safe_neg), lowest)
    out_pos = math_ops.exp(
        sm.cumulative_logsumexp(log_pos - out, axis, exclusive=exclusive, reverse=not reverse) + x
    )
    out_neg = math_ops.exp(
        sm.cumulative_logsumexp(log_neg - out, axis, exclusive=exclusive, reverse=not reverse) + x
    )
    return [out_pos - out_neg, None]


RegisterGradient("Rint")(lambda op, grad: [None])


@RegisterGradient("NextAfter")
def _next_after_grad(op: Operation, grad: Tensor) -> Any:
    """As TF 1.15: d/dx1 is one, d/dx2 zero (each summed to its input's shape)."""
    x1, x2 = op.inputs
    with control_dependencies([grad]):
        d1 = array_ops.ones(array_ops.shape(x1), dtype=x1.dtype) * grad
        d2 = array_ops.zeros(array_ops.shape(x2), dtype=x2.dtype) * grad
    return [reduce_to(d1, x1, x2), reduce_to(d2, x2, x1)]
