"""Kernels of the dense updates of Adadelta, FTRL, the proximal optimizers and AdagradDA over
xp, with the formulas of TensorFlow's training_ops.cc (the functors ApplyAdadelta, ApplyFtrl,
ApplyFtrlV2, ApplyProximalGradientDescent, ApplyProximalAdagrad, ApplyAdagradDA).

They share kernels/training.py's frame: new values computed from the variable and slots, then
written into their arrays under the variables' locks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels import _libm_float
from tfcluster.kernels._eigen_psqrt import xp_rsqrt, xp_sqrt
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.training import _apply_kernel


@kernel("ApplyAdadelta")
def apply_adadelta(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum, accum_update), (lr, rho, eps, g) = olds, o
        accum = accum * rho + g * g * (1 - rho)
        update = xp_sqrt(xp, accum_update + eps) * xp_rsqrt(xp, accum + eps) * g
        accum_update = accum_update * rho + update * update * (1 - rho)
        return [var - update * lr, accum, accum_update]

    return _apply_kernel(node, xp, 3, fn)


def proximal_step(xp: Any, prox: Any, lr: Any, l1: Any, l2: Any) -> Any:
    """TF's Fobos step from prox = var - lr * grad: soft-threshold by lr * l1 (when l1 > 0),
    then shrink by 1 + l2 * lr (lr may be a per-element rate)."""
    if float(l1) > 0:
        shrunk = xp.sign(prox) * xp.maximum(xp.abs(prox) - lr * l1, 0)
        return shrunk / (1 + l2 * lr)
    return prox / (1 + l2 * lr)


@kernel("ApplyProximalGradientDescent")
def apply_proximal_gradient_descent(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var,), (alpha, l1, l2, delta) = olds, o
        return [proximal_step(xp, var - delta * alpha, alpha, l1, l2)]

    return _apply_kernel(node, xp, 1, fn)


def check_proximal_adagrad_scalars(lr: Any, l1: Any, l2: Any) -> None:
    """TF's CPU kernels refuse a rate that is not positive and negative strengths."""
    if not float(lr) > 0:
        raise invalid("lr is not a positive scalar: []")
    if not float(l1) >= 0:
        raise invalid("l1 regularization strength is not a non-negative scalar: []")
    if not float(l2) >= 0:
        raise invalid("l2 regularization strength is not a non-negative scalar: []")


@kernel("ApplyProximalAdagrad")
def apply_proximal_adagrad(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum), (lr, l1, l2, g) = olds, o
        check_proximal_adagrad_scalars(lr, l1, l2)
        accum = accum + g * g
        # TF's rate is lr * accum.rsqrt() inside each of its two expressions: var - g * rate
        # on Eigen's packets (their fast-math rsqrt); the shrink step, whose sign() Eigen
        # does not vectorise, value by value (1 / std::sqrt).
        prox = var - g * (lr * xp_rsqrt(xp, accum))
        rate = lr * (1 / xp.sqrt(accum)) if float(l1) > 0 else lr * xp_rsqrt(xp, accum)
        return [proximal_step(xp, prox, rate, l1, l2), accum]

    return _apply_kernel(node, xp, 2, fn)


@kernel("ApplyAdagradDA")
def apply_adagrad_da(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (_, ga, gga), (g, lr, l1, l2, step) = olds, o
        ga = ga + g
        gga = gga + g * g
        denominator = l2 * step * lr + xp.sqrt(gga)
        if float(l1) > 0:
            numerator = -lr * xp.sign(ga) * xp.maximum(xp.abs(ga) - step * l1, 0)
        else:
            numerator = -lr * ga
        return [numerator / denominator, ga, gga]

    return _apply_kernel(node, xp, 3, fn, grad_index=0)


def ftrl_power(xp: Any, accum: Any, lr_power: Any) -> Any:
    """accum ** -lr_power, as sqrt for TF's special case lr_power == -0.5. TF's CPU kernels
    take a float32 power value by value with glibc's powf (Eigen's pow has no packet form),
    which numpy's own float32 power rounds otherwise in about one value in six."""
    if float(lr_power) == -0.5:
        return xp.sqrt(accum)
    if xp is np and getattr(accum, "dtype", None) == np.float32:
        base = np.asarray(accum)
        return _libm_float.powf(base, np.full_like(base, -np.float32(lr_power)))
    return accum ** (-lr_power)


def ftrl(
    xp: Any, var: Any, accum: Any, linear: Any, g: Any, shrunk_g: Any, hyper: list[Any]
) -> list[Any]:
    """One FTRL-proximal step (TF's ApplyFtrl/ApplyFtrlV2): `shrunk_g` is the gradient with
    the L2 shrinkage term (g itself without it); the accumulator adds g squared."""
    lr, l1, l2, lr_power = hyper
    new_accum = accum + g * g
    if float(lr_power) == -0.5:
        # TF's linear update runs on Eigen's packets (their fast-math roots); its var
        # update, whose sign() Eigen does not vectorise, value by value (std::sqrt).
        sigma = (xp_sqrt(xp, new_accum) - xp_sqrt(xp, accum)) / lr
        quadratic = xp.sqrt(new_accum) / lr + 2 * l2
    else:
        sigma = (ftrl_power(xp, new_accum, lr_power) - ftrl_power(xp, accum, lr_power)) / lr
        quadratic = ftrl_power(xp, new_accum, lr_power) / lr + 2 * l2
    linear = linear + (shrunk_g - sigma * var)  # TF's linear += grad - sigma * var
    pre_shrink = (l1 * xp.sign(linear) - linear) / quadratic
    var = xp.where(xp.abs(linear) > l1, pre_shrink, xp.zeros_like(pre_shrink))
    return [var, new_accum, linear]


@kernel("ApplyFtrl")
def apply_ftrl(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum, linear), (g, lr, l1, l2, lr_power) = olds, o
        return ftrl(xp, var, accum, linear, g, g, [lr, l1, l2, lr_power])

    return _apply_kernel(node, xp, 3, fn, grad_index=0)


@kernel("ApplyFtrlV2")
def apply_ftrl_v2(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum, linear), (g, lr, l1, l2, l2_shrinkage, lr_power) = olds, o
        shrunk = g + 2 * l2_shrinkage * var
        return ftrl(xp, var, accum, linear, g, shrunk, [lr, l1, l2, lr_power])

    return _apply_kernel(node, xp, 3, fn, grad_index=0)
