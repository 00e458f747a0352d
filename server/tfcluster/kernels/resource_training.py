"""The optimizers' updates of resource variables (ResourceApply*), and the dense rules TF 1.15
has beyond tf.train's (AdaMax, AdagradV2, AddSign, PowerSign, Keras's momentum, Adam with
AMSGrad), over xp with the formulas of TensorFlow's training_ops.cc.

Every rule has one body: the ref kernel's (kernels/training.py, kernels/dense_updates.py, or
here). A ResourceApply* kernel is that body run on the variables its handles name
(resource_variables.on_resources). The sparse twins register in kernels/sparse_training.py.
"""

from __future__ import annotations

from typing import Any

from tfcluster.kernels import dense_updates, training
from tfcluster.kernels._eigen_psqrt import xp_sqrt
from tfcluster.kernels.common import Compute
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.resource_variables import XpFactory, on_resources
from tfcluster.kernels.training import _apply_kernel


@kernel("ApplyAdaMax")
def apply_ada_max(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, m, v), (b1p, lr, b1, b2, eps, g) = olds, o
        m = m + (g - m) * (1 - b1)
        v = xp.maximum(b2 * v, xp.abs(g))
        return [var - lr / (1 - b1p) * (m / (v + eps)), m, v]

    return _apply_kernel(node, xp, 3, fn)


@kernel("ApplyAdagradV2")
def apply_adagrad_v2(node: Any, xp: Any) -> Compute:
    update_slots = bool(node.attrs.get("update_slots", True))

    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum), (lr, eps, g) = olds, o
        if update_slots:
            accum = accum + g * g
        return [var - g * lr / (xp_sqrt(xp, accum) + eps), accum]

    return _apply_kernel(node, xp, 2, fn)


@kernel("ApplyAddSign")
def apply_add_sign(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, m), (lr, alpha, sign_decay, beta, g) = olds, o
        m = m * beta + g * (1 - beta)
        sign_gm = xp.sign(g) * xp.sign(m)
        return [var - lr * (alpha + sign_decay * sign_gm) * g, m]

    return _apply_kernel(node, xp, 2, fn)


@kernel("ApplyPowerSign")
def apply_power_sign(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, m), (lr, logbase, sign_decay, beta, g) = olds, o
        m = m * beta + g * (1 - beta)
        sign_gm = xp.sign(g) * xp.sign(m)
        return [var - lr * xp.exp(logbase * sign_decay * sign_gm) * g, m]

    return _apply_kernel(node, xp, 2, fn)


def keras_momentum(node: Any, xp: Any) -> Compute:
    """Keras's SGD momentum: the accumulator holds the (negative) step itself."""
    nesterov = bool(node.attrs.get("use_nesterov", False))

    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum), (lr, g, momentum) = olds, o
        accum = accum * momentum - g * lr
        if nesterov:
            return [var + (accum * momentum - g * lr), accum]
        return [var + accum, accum]

    return _apply_kernel(node, xp, 2, fn, grad_index=1)


def adam_with_amsgrad(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, m, v, vhat), (b1p, b2p, lr, b1, b2, eps, g) = olds, o
        alpha = lr * xp.sqrt(1 - b2p) / (1 - b1p)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        vhat = xp.maximum(vhat, v)
        return [var - m * alpha / (xp.sqrt(vhat) + eps), m, v, vhat]

    return _apply_kernel(node, xp, 4, fn)


# rule -> (its body, how many variables it updates)
_DENSE: dict[str, tuple[XpFactory, int]] = {
    "GradientDescent": (training.apply_gradient_descent, 1),
    "Momentum": (training.apply_momentum, 2),
    "KerasMomentum": (keras_momentum, 2),
    "Adam": (training.apply_adam, 3),
    "AdamWithAmsgrad": (adam_with_amsgrad, 4),
    "AdaMax": (apply_ada_max, 3),
    "Adadelta": (dense_updates.apply_adadelta, 3),
    "Adagrad": (training.apply_adagrad, 2),
    "AdagradV2": (apply_adagrad_v2, 2),
    "AdagradDA": (dense_updates.apply_adagrad_da, 3),
    "CenteredRMSProp": (training.apply_centered_rms_prop, 4),
    "RMSProp": (training.apply_rms_prop, 3),
    "Ftrl": (dense_updates.apply_ftrl, 3),
    "FtrlV2": (dense_updates.apply_ftrl_v2, 3),
    "ProximalAdagrad": (dense_updates.apply_proximal_adagrad, 2),
    "ProximalGradientDescent": (dense_updates.apply_proximal_gradient_descent, 1),
    "AddSign": (apply_add_sign, 2),
    "PowerSign": (apply_power_sign, 2),
}

for _rule, (_body, _num) in _DENSE.items():
    kernel(f"ResourceApply{_rule}")(on_resources(_body, _num, update=True))
