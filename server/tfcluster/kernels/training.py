"""Kernels of the optimizers' update ops over xp (formulas as in TensorFlow's training_ops.cc).

A kernel computes the new values of its variable and slots from their arrays and writes them
into those arrays (kernels/in_place.py: in place unless a reader holds one), holding the
references' locks meanwhile (state.locked), so no update is ever lost whole. Scalar
hyperparameters are 0-d arrays of the variable's dtype, on the kernel's device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import _eigen_adam, _eigen_psqrt, in_place
from tfcluster.kernels._window import over_batch
from tfcluster.kernels.common import Compute, shape_of
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.state import locked
from tfcluster.runtime import thread_budget
from tfcluster.runtime.resources import VariableRef

# (current values of the refs, scalar/grad inputs) -> new values of the refs
UpdateFn = Callable[[list[Any], list[Any]], list[Any]]

# Elements per block of a blocked update (its temporary: 1 MB of float32, a core's cache;
# 1.15 ms of CPU for the conv net's 3136x1024 dense kernel where the one-pass update takes
# 1.4 ms, and 1.6 ms with blocks of 64K elements), and the variable size from which updates
# go in blocks.
_UPDATE_BLOCK = 1 << 18
_BLOCKED_FROM = 1 << 19


def _apply_kernel(node: Any, xp: Any, num_refs: int, fn: UpdateFn, grad_index: int = -1) -> Compute:
    """grad_index: the gradient's position among the non-reference inputs (the rest are
    scalar hyperparameters). fn gets the variables' own arrays and returns their new values
    (arrays it may have written in place, or new ones that are copied into them)."""
    dtype = node.attrs["T"].as_numpy_dtype
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        refs: list[VariableRef] = ins[:num_refs]
        others = [xp.asarray(x, dtype=dtype) for x in ins[num_refs:]]
        grad = others[grad_index]
        with locked(refs):
            _check_shapes(node, refs, others, grad)
            arrays = [in_place.writable_value(xp, r, name) for r in refs]
            try:
                news = fn(arrays, others)
                for a, new in zip(arrays, news):
                    if new is not a:
                        a[...] = new
            finally:
                for r, a in zip(refs, arrays):
                    in_place.done(r, a)
                del arrays
        return (refs[0],)

    return compute


def _check_shapes(node: Any, refs: list[VariableRef], others: list[Any], grad: Any) -> None:
    """TF's checks. Reads only shapes: in_place counts who holds a variable's array."""
    shape = tuple(shape_of(refs[0].read(node.name)))
    for r in refs[1:]:
        other = tuple(shape_of(r.read(node.name)))
        if other != shape:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"var and {r.name} do not have the same shape{list(shape)} {list(other)}",
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


def _gradient_step(xp: Any, var: Any, alpha: Any, delta: Any) -> None:
    """var -= delta * alpha, in place. A large variable on the CPU goes in blocks that each
    multiply into one reused cache-sized temporary (instead of a variable-sized one written
    to memory and read back), the blocks shared between the cores (_window.over_batch): the
    same operations element by element, so the same values."""
    if (
        xp is not np
        or var.size < _BLOCKED_FROM
        or not (var.flags.c_contiguous and delta.flags.c_contiguous)
    ):
        # One temporary (the step), subtracted in place.
        xp.subtract(var, xp.multiply(delta, alpha), out=var)
        return
    v, d = var.reshape(-1), delta.reshape(-1)
    size = v.size

    def blocks(rows: slice) -> None:
        start, stop = rows.start * _UPDATE_BLOCK, min(rows.stop * _UPDATE_BLOCK, size)
        step = np.empty(min(_UPDATE_BLOCK, stop - start), var.dtype)
        for a in range(start, stop, _UPDATE_BLOCK):
            b = min(a + _UPDATE_BLOCK, stop)
            part = step[: b - a]
            np.multiply(d[a:b], alpha, out=part)
            np.subtract(v[a:b], part, out=v[a:b])

    over_batch(np, -(-size // _UPDATE_BLOCK), var.nbytes + delta.nbytes, blocks)


@kernel("ApplyGradientDescent")
def apply_gradient_descent(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var,), (alpha, delta) = olds, o
        _gradient_step(xp, var, alpha, delta)
        return [var]

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
        if (
            xp is np
            and var.dtype == np.float32
            and _eigen_adam.apply_adam(
                var, m, v, (b1p, b2p, lr, b1, b2, eps), g, nesterov, thread_budget.current().intra
            )
        ):
            return [var, m, v]  # TF's float32 roots and shards (kernels/_eigen_adam.py)
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
        return [var - g * lr * _eigen_psqrt.xp_rsqrt(xp, accum), accum]

    return _apply_kernel(node, xp, 2, fn)


def _rms_prop_in_blocks(
    var: np.ndarray, ms: np.ndarray, mom: np.ndarray, scalars: list[Any], g: np.ndarray
) -> None:
    """The RMSProp update of a large float32 variable in place, block by cache-sized block
    (every temporary stays in the cache, where whole-tensor temporaries each go to memory and
    back), the blocks shared between the cores: the same operations element by element as
    the one-pass update, and the same square roots (Eigen's packets, the tensor's last
    size % 8 values exactly), so the same values."""
    lr, rho, momentum, eps = scalars
    v, s, m, d = var.reshape(-1), ms.reshape(-1), mom.reshape(-1), g.reshape(-1)
    size = v.size
    keep = 1 - rho

    def blocks(rows: slice) -> None:
        start, stop = rows.start * _UPDATE_BLOCK, min(rows.stop * _UPDATE_BLOCK, size)
        for a in range(start, stop, _UPDATE_BLOCK):
            b = min(a + _UPDATE_BLOCK, stop)
            grad, sq = d[a:b], s[a:b]
            t = grad * grad
            t -= sq
            t *= keep
            sq += t  # ms + (g * g - ms) * (1 - rho)
            np.add(sq, eps, out=t)
            # Blocks start at multiples of 8: only the last has the tensor's exact tail.
            root = _eigen_psqrt.sqrt_in_blocks(t, [(0, b - a)])
            np.multiply(lr, grad, out=t)
            t /= root  # lr * g / sqrt(ms + eps)
            mm = m[a:b]
            mm *= momentum
            mm += t
            v[a:b] -= mm

    over_batch(np, -(-size // _UPDATE_BLOCK), 4 * var.nbytes, blocks, blas=False)


@kernel("ApplyRMSProp")
def apply_rms_prop(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, ms, mom), (lr, rho, momentum, eps, g) = olds, o
        if (
            xp is np
            and var.dtype == np.float32
            and var.size >= _BLOCKED_FROM
            and all(a.flags.c_contiguous for a in (var, ms, mom, g))
        ):
            _rms_prop_in_blocks(var, ms, mom, [lr, rho, momentum, eps], g)
            return [var, ms, mom]
        ms = ms + (g * g - ms) * (1 - rho)
        mom = mom * momentum + lr * g / _eigen_psqrt.xp_sqrt(xp, ms + eps)
        return [var - mom, ms, mom]

    return _apply_kernel(node, xp, 3, fn)


@kernel("ApplyCenteredRMSProp")
def apply_centered_rms_prop(node: Any, xp: Any) -> Compute:
    def fn(olds: list[Any], o: list[Any]) -> list[Any]:
        (var, mg, ms, mom), (lr, rho, momentum, eps, g) = olds, o
        ms = ms + (g * g - ms) * (1 - rho)
        mg = mg + (g - mg) * (1 - rho)
        mom = mom * momentum + lr * g / _eigen_psqrt.xp_sqrt(xp, ms - mg * mg + eps)
        return [var - mom, mg, ms, mom]

    return _apply_kernel(node, xp, 4, fn)
