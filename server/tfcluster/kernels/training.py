"""Kernels of the optimizers' update ops over xp (formulas as in TensorFlow's training_ops.cc).

A kernel reads its variable and slots, computes new arrays and swaps them in, so a reader
never sees a half-applied update; with use_locking the references stay locked meanwhile (in
state.locked's order). Scalar hyperparameters are 0-d arrays of the variable's dtype, on the
kernel's device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, frozen
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.state import locked
from tfcluster.runtime.resources import VariableRef

# (current values of the refs, scalar/grad inputs) -> new values of the refs
UpdateFn = Callable[[list[Any], list[Any]], list[Any]]


def _apply_kernel(node: Any, xp: Any, num_refs: int, fn: UpdateFn, grad_index: int = -1) -> Compute:
    """grad_index: the gradient's position among the non-reference inputs (the rest are
    scalar hyperparameters)."""
    use_locking = bool(node.attrs.get("use_locking", False))
    dtype = node.attrs["T"].as_numpy_dtype
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        refs: list[VariableRef] = ins[:num_refs]
        others = [xp.asarray(x, dtype=dtype) for x in ins[num_refs:]]
        grad = others[grad_index]
        with locked(refs, use_locking):
            olds = [xp.asarray(r.read(name)) for r in refs]
            shape = olds[0].shape
            for r, old in zip(refs[1:], olds[1:]):
                if old.shape != shape:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"var and {r.name} do not have the same shape{list(shape)} "
                        f"{list(old.shape)}",
                    )
            if grad.shape != shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"var and grad do not have the same shape{list(shape)} {list(grad.shape)}",
                )
            for x in others:
                if x is not grad and x.ndim != 0:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"{node.op} expects scalar hyperparameters, got shape {list(x.shape)}",
                    )
            news = fn(olds, others)
            for r, new in zip(refs, news):
                # Read-only (numpy): a client that fetches the variable gets a copy, never
                # the variable's own array.
                r.value = frozen(xp.asarray(new, dtype=dtype))
                r.generation += 1
        return (refs[0],)

    return compute


@kernel("ApplyGradientDescent")
def apply_gradient_descent(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var,), (alpha, delta) = olds, o
        # One temporary: the step, then var - step written into it.
        new = xp.multiply(delta, alpha)
        if isinstance(new, xp.ndarray) and new.ndim:
            xp.subtract(var, new, out=new)
            return [new]
        return [var - new]

    return _apply_kernel(node, xp, 1, fn)


@kernel("ApplyMomentum")
def apply_momentum(node: Any, xp: Any) -> Compute:
    nesterov = bool(node.attrs.get("use_nesterov", False))

    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum), (lr, grad, momentum) = olds, o
        accum = accum * momentum + grad
        if nesterov:
            return [var - (grad * lr + accum * momentum * lr), accum]
        return [var - accum * lr, accum]

    return _apply_kernel(node, xp, 2, fn, grad_index=1)


@kernel("ApplyAdam")
def apply_adam(node: Any, xp: Any) -> Compute:
    nesterov = bool(node.attrs.get("use_nesterov", False))

    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, m, v), (b1p, b2p, lr, b1, b2, eps, g) = olds, o
        alpha = lr * xp.sqrt(1 - b2p) / (1 - b1p)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        step = (g * (1 - b1) + b1 * m) if nesterov else m
        return [var - step * alpha / (xp.sqrt(v) + eps), m, v]

    return _apply_kernel(node, xp, 3, fn)


@kernel("ApplyAdagrad")
def apply_adagrad(node: Any, xp: Any) -> Compute:
    update_slots = bool(node.attrs.get("update_slots", True))

    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, accum), (lr, g) = olds, o
        if update_slots:
            accum = accum + g * g
        return [var - lr * g / xp.sqrt(accum), accum]

    return _apply_kernel(node, xp, 2, fn)


@kernel("ApplyRMSProp")
def apply_rms_prop(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, ms, mom), (lr, rho, momentum, eps, g) = olds, o
        ms = ms + (g * g - ms) * (1 - rho)
        mom = mom * momentum + lr * g / xp.sqrt(ms + eps)
        return [var - mom, ms, mom]

    return _apply_kernel(node, xp, 3, fn)


@kernel("ApplyCenteredRMSProp")
def apply_centered_rms_prop(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, mg, ms, mom), (lr, rho, momentum, eps, g) = olds, o
        ms = ms + (g * g - ms) * (1 - rho)
        mg = mg + (g - mg) * (1 - rho)
        mom = mom * momentum + lr * g / xp.sqrt(ms - mg * mg + eps)
        return [var - mom, mg, ms, mom]

    return _apply_kernel(node, xp, 4, fn)
