"""Kernels of the sparse updates (SparseApply*): only the rows of a variable, and of its slots,
that `indices` names change, written in place (kernels/in_place.py), so a step on a huge
embedding costs what its touched rows cost. Formulas and checks follow TensorFlow's
training_ops.cc (its CPU kernels; TF has no GPU ones, these run on either device).

Rows named more than once are updated once per occurrence, in order, as TF's loops over
indices do: the update runs in rounds (the first occurrence of every row, then the second,
...), each round vectorised over rows that are all different. The optimizers sum duplicate
rows first (Optimizer._apply_sparse_duplicate_indices), so one round is the usual case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_psqrt, in_place
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.common import Compute, invalid, shape_of, shape_str
from tfcluster.kernels.dense_updates import (
    check_proximal_adagrad_scalars,
    ftrl_power,
    proximal_step,
)
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.resource_variables import on_resources
from tfcluster.kernels.state import locked
from tfcluster.runtime.resources import VariableRef

# (rows of var and slots, the gradient's rows, hyperparameters by name) -> their new rows
RowsFn = Callable[[list[Any], Any, dict[str, Any]], list[Any]]
# Hyperparameters checked before anything changes (TF's CPU kernels refuse some values).
CheckFn = Callable[[dict[str, Any]], None]


def _sparse_kernel(
    node: Any,
    xp: Any,
    names: Sequence[str],
    num_refs: int,
    fn: RowsFn,
    check: CheckFn | None = None,
    inner_check: bool = False,
) -> Compute:
    """names: the op's inputs in order (variable and slots first, then the others, among
    them 'grad' and 'indices'). inner_check: TF refuses rows of no elements for this op."""
    dtype = node.attrs["T"].as_numpy_dtype
    node_name = node.name
    grad_at = names.index("grad")
    indices_at = names.index("indices")
    # (position, name) of the scalar hyperparameters among the inputs.
    scalars = [
        (i, n) for i, n in enumerate(names) if i >= num_refs and n not in ("grad", "indices")
    ]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        refs: list[VariableRef] = ins[:num_refs]
        hyper = {}
        for i, n in scalars:
            x = ins[i]
            if shape_of(x) != ():
                raise invalid(f"{n} is not a scalar: {shape_str(shape_of(x))}")
            hyper[n] = np.asarray(x) if n == "global_step" else xp.asarray(x, dtype=dtype)
        if check is not None:
            check(hyper)
        indices = np.asarray(ins[indices_at])
        grad = xp.asarray(ins[grad_at], dtype=dtype)
        with locked(refs):
            shape = _check_shapes(refs, names, node_name, grad, indices, inner_check)
            if indices.size == 0:
                return (refs[0],)
            if int(indices.min()) < 0 or int(indices.max()) >= shape[0]:
                i = int(np.nonzero((indices < 0) | (indices >= shape[0]))[0][0])
                raise invalid(f"Index {int(indices[i])} at offset {i} in indices is out of range")
            arrays = [in_place.writable_value(xp, r, node_name) for r in refs]
            try:
                for rows, grad_rows in _rounds(xp, indices, grad):
                    new = fn([a[rows] for a in arrays], grad_rows, hyper)
                    for a, values in zip(arrays, new):
                        a[rows] = values
            finally:
                for r, a in zip(refs, arrays):
                    in_place.done(r, a)
                del arrays
        return (refs[0],)

    return compute


def _check_shapes(
    refs: list[VariableRef],
    names: Sequence[str],
    node_name: str,
    grad: Any,
    indices: np.ndarray,
    inner_check: bool,
) -> tuple[int, ...]:
    """TF's argument checks, in its order; the variable's shape. Reads only shapes, so that
    no array of a variable is held here (in_place counts who holds them)."""
    shape = refs[0].read(node_name).shape
    for name, r in zip(names[1:], refs[1:]):
        other = r.read(node_name).shape
        if other != shape:
            raise invalid(
                f"var and {name} do not have the same shape{shape_str(shape)} {shape_str(other)}"
            )
    if not shape:
        raise invalid("var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise invalid("indices must be one-dimensional")
    if grad.ndim < 1 or grad.ndim != len(shape):
        raise invalid(
            f"var and grad must match in rank: var {shape_str(shape)}, grad {shape_str(grad.shape)}"
        )
    for d in range(1, len(shape)):
        if shape[d] != grad.shape[d]:
            raise invalid(f"var and grad must match in dimension {d}")
    if grad.shape[0] != indices.shape[0]:
        raise invalid("grad must be the same size as indices in the first dimension.")
    if inner_check and int(np.prod(shape[1:], dtype=np.int64)) <= 0:
        raise invalid("Inner dimension should be greater than zero.")
    return shape


def _rounds(xp: Any, indices: np.ndarray, grad: Any) -> Iterator[tuple[Any, Any]]:
    """(rows, their gradient rows) per round: every row at most once in a round, the k-th
    occurrence of a row in round k."""
    rounds = u.occurrence_rounds(indices)
    if rounds is None:
        yield xp.asarray(indices), grad
        return
    for at in rounds:
        yield xp.asarray(indices[at]), grad[xp.asarray(at)]


def _register(
    op: str,
    names: Sequence[str],
    num_refs: int,
    fn_of: Callable[[Any, Any], RowsFn],
    check: CheckFn | None = None,
    inner_check: bool = False,
    ref_op: bool = True,
) -> None:
    """The kernels of `op` and of its resource twin `Resource<op>` (the same body on the
    variables the handles name); fn_of(node, xp) makes its row update. The row numbers (and
    AdagradDA's step count) stay in host memory on a GPU, as TF's kernels read them.
    ref_op=False: TF has only the resource op (Keras's momentum)."""

    def factory(node: Any, xp: Any) -> Compute:
        return _sparse_kernel(node, xp, names, num_refs, fn_of(node, xp), check, inner_check)

    host = [i for i, n in enumerate(names) if n in ("indices", "global_step")]
    if ref_op:
        kernel(op, host=host)(factory)
    kernel(f"Resource{op}", host=host)(on_resources(factory, num_refs, update=True))


# ---- the updates, one per op -------------------------------------------------------------
def _momentum(node: Any, xp: Any) -> RowsFn:
    nesterov = bool(node.attrs.get("use_nesterov", False))

    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum = rows
        lr, momentum = h["lr"], h["momentum"]
        accum = accum * momentum + g
        if nesterov:
            return [var - (lr * g + lr * momentum * accum), accum]
        return [var - lr * accum, accum]

    return fn


def _adagrad(node: Any, xp: Any) -> RowsFn:
    update_slots = bool(node.attrs.get("update_slots", True))

    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum = rows
        if update_slots:
            accum = accum + g * g
        if var.ndim == 1:
            # TF's loop over single values: lr * g / std::sqrt(a).
            return [var - h["lr"] * g / xp.sqrt(accum), accum]
        # TF's rows (inner dimension over 1): lr * g * a.rsqrt(), by Eigen's packets.
        return [var - h["lr"] * g * _eigen_psqrt.xp_rsqrt_rows(xp, accum), accum]

    return fn


def _adagrad_v2(node: Any, xp: Any) -> RowsFn:
    update_slots = bool(node.attrs.get("update_slots", True))

    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum = rows
        if update_slots:
            accum = accum + g * g
        # TF's rows: lr * g / (a.sqrt() + epsilon), the root by Eigen's packets.
        return [var - h["lr"] * g / (_eigen_psqrt.xp_sqrt_rows(xp, accum) + h["epsilon"]), accum]

    return fn


def _keras_momentum(node: Any, xp: Any) -> RowsFn:
    nesterov = bool(node.attrs.get("use_nesterov", False))

    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum = rows
        lr, momentum = h["lr"], h["momentum"]
        accum = accum * momentum - g * lr
        if nesterov:
            return [var + (accum * momentum - g * lr), accum]
        return [var + accum, accum]

    return fn


def _rms_prop(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, ms, mom = rows
        rho = h["rho"]
        ms = ms * rho + g * g * (1 - rho)
        # TF's rows: (ms + eps).rsqrt() * lr * g, the rsqrt by Eigen's packets.
        rate = _eigen_psqrt.xp_rsqrt_rows(xp, ms + h["epsilon"])
        mom = mom * h["momentum"] + rate * h["lr"] * g
        return [var - mom, ms, mom]

    return fn


def _centered_rms_prop(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, mg, ms, mom = rows
        rho = h["rho"]
        ms = ms * rho + g * g * (1 - rho)
        mg = mg * rho + g * (1 - rho)
        denominator = ms + h["epsilon"] - mg * mg
        rate = _eigen_psqrt.xp_rsqrt_rows(xp, denominator)
        mom = mom * h["momentum"] + rate * h["lr"] * g
        return [var - mom, mg, ms, mom]

    return fn


def _adadelta(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum, accum_update = rows
        rho, eps = h["rho"], h["epsilon"]
        accum = accum * rho + g * g * (1 - rho)
        if var.ndim == 1:
            update = xp.sqrt(accum_update + eps) / xp.sqrt(accum + eps) * g
            accum_update = accum_update * rho + update * update * (1 - rho)
            return [var - update * h["lr"], accum, accum_update]
        # TF's rows: sqrt(au + eps) * rsqrt(acc + eps) * g, its roots by Eigen's packets.
        rate = _eigen_psqrt.xp_rsqrt_rows(xp, accum + eps)
        update = _eigen_psqrt.xp_sqrt_rows(xp, accum_update + eps) * rate * g
        accum_update = accum_update * rho + update * update * (1 - rho)
        return [var - update * h["lr"], accum, accum_update]

    return fn


def _proximal_gradient_descent(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        (var,) = rows
        alpha = h["alpha"]
        return [proximal_step(xp, var - g * alpha, alpha, h["l1"], h["l2"])]

    return fn


def _proximal_adagrad(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        var, accum = rows
        accum = accum + g * g
        if var.ndim == 1:
            # TF's loop over single values: its shrink divides by 1.0 + l2 * rate in double.
            rate = h["lr"] / xp.sqrt(accum)
            prox = var - rate * g
            if float(h["l1"]) > 0:
                prox = xp.sign(prox) * xp.maximum(xp.abs(prox) - rate * h["l1"], 0)
            shrink = 1.0 + (h["l2"] * rate).astype(xp.float64)
            return [(prox.astype(xp.float64) / shrink).astype(var.dtype), accum]
        # TF's rows: the rate lr * a.rsqrt() inside each of two expressions, var - g * rate
        # by Eigen's packets; the shrink step with l1 (its sign() not vectorised) value by
        # value, without l1 by packets.
        packed_rate = h["lr"] * _eigen_psqrt.xp_rsqrt_rows(xp, accum)
        prox = var - g * packed_rate
        rate = h["lr"] * (1 / xp.sqrt(accum)) if float(h["l1"]) > 0 else packed_rate
        return [proximal_step(xp, prox, rate, h["l1"], h["l2"]), accum]

    return fn


def _adagrad_da_values(xp: Any, ga: Any, gga: Any, g: Any, h: dict[str, Any]) -> list[Any]:
    """TF's loop over a rank-1 variable's single values, in double: the accumulators add the
    gradient in double, the step -sign(ga) * lr * max(|ga| - step * l1, 0) (or -ga * lr)
    over step * l2 * lr + sqrt(gga)."""
    f64 = xp.float64
    lr, l1, l2 = (xp.asarray(h[k]).astype(f64) for k in ("lr", "l1", "l2"))
    step = float(np.asarray(h["global_step"]))
    g64 = g.astype(f64)
    ga = (ga.astype(f64) + g64).astype(ga.dtype)
    gga = (gga.astype(f64) + g64 * g64).astype(gga.dtype)
    denominator = step * l2 * lr + xp.sqrt(gga).astype(f64)
    if float(l1) > 0:
        numerator = xp.sign(-ga).astype(f64) * lr * xp.maximum(xp.abs(ga) - step * l1, 0.0)
    else:
        numerator = -ga.astype(f64) * lr
    return [(numerator / denominator).astype(ga.dtype), ga, gga]


def _adagrad_da(node: Any, xp: Any) -> RowsFn:
    def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
        _, ga, gga = rows
        if ga.ndim == 1:
            return _adagrad_da_values(xp, ga, gga, g, h)
        lr, l1, l2 = h["lr"], h["l1"], h["l2"]
        step = xp.asarray(h["global_step"].astype(ga.dtype))
        ga = ga + g
        gga = gga + g * g
        # TF's row form: -sign(ga) * max(|ga| / step - l1, 0) / (l2 + sqrt(gga) / (step * lr))
        # (sign() not vectorised: exact roots), without l1 -(ga / step) / (...) by packets.
        if float(l1) > 0:
            numerator = -xp.sign(ga) * xp.maximum(xp.abs(ga) / step - l1, 0)
            root = xp.sqrt(gga)
        else:
            numerator = -(ga / step)
            root = _eigen_psqrt.xp_sqrt_rows(xp, gga)
        return [numerator / (l2 + root / (step * lr)), ga, gga]

    return fn


def _ftrl(shrinkage: bool) -> Callable[[Any, Any], RowsFn]:
    def fn_of(node: Any, xp: Any) -> RowsFn:
        def fn(rows: list[Any], g: Any, h: dict[str, Any]) -> list[Any]:
            var, accum, linear = rows
            lr, l1, l2, lr_power = h["lr"], h["l1"], h["l2"], h["lr_power"]
            shrunk = g + 2 * h["l2_shrinkage"] * var if shrinkage else g
            if var.ndim == 1:
                new_accum = accum + g * g
                sigma = ftrl_power(xp, new_accum, lr_power) - ftrl_power(xp, accum, lr_power)
                sigma = sigma / lr
                linear = linear + shrunk - sigma * var
                quadratic = ftrl_power(xp, new_accum, lr_power) / lr + 2 * l2
                var = (xp.clip(linear, -l1, l1) - linear) / quadratic
                return [var, new_accum, linear]
            # TF's rows: one Eigen expression each, roots by packets; `linear += grad -
            # sigma * var`.
            new_accum = accum + g * g
            if float(lr_power) == -0.5:
                new_root = _eigen_psqrt.xp_sqrt_rows(xp, new_accum)
                sigma = (new_root - _eigen_psqrt.xp_sqrt_rows(xp, accum)) / lr
            else:
                new_root = ftrl_power(xp, new_accum, lr_power)
                sigma = (new_root - ftrl_power(xp, accum, lr_power)) / lr
            linear = linear + (shrunk - sigma * var)
            quadratic = new_root / lr + 2 * l2
            var = (xp.clip(linear, -l1, l1) - linear) / quadratic
            return [var, new_accum, linear]

        return fn

    return fn_of


def _check_ftrl(h: dict[str, Any]) -> None:
    if not float(h["lr"]) > 0:
        raise invalid("lr is not a positive scalar: []")
    if not float(h["l1"]) >= 0:
        raise invalid("l1 regularization strength is not a non-negative scalar: []")
    if not float(h["l2"]) >= 0:
        raise invalid("l2 regularization strength is not a non-negative scalar: []")
    if "l2_shrinkage" in h and not float(h["l2_shrinkage"]) >= 0:
        raise invalid("l2 shrinkage regularization strength is not a non-negative scalar: []")
    if not float(h["lr_power"]) <= 0:
        raise invalid("lr_power is not a non-positive scalar: []")


def _check_proximal_adagrad(h: dict[str, Any]) -> None:
    check_proximal_adagrad_scalars(h["lr"], h["l1"], h["l2"])


_register(
    "SparseApplyMomentum", ("var", "accum", "lr", "grad", "indices", "momentum"), 2, _momentum
)
_register("SparseApplyAdagrad", ("var", "accum", "lr", "grad", "indices"), 2, _adagrad, None, True)
_register(
    "SparseApplyAdagradV2",
    ("var", "accum", "lr", "epsilon", "grad", "indices"),
    2,
    _adagrad_v2,
    None,
    True,
)
_register(
    "SparseApplyKerasMomentum",
    ("var", "accum", "lr", "grad", "indices", "momentum"),
    2,
    _keras_momentum,
    ref_op=False,
)
_register(
    "SparseApplyRMSProp",
    ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
    3,
    _rms_prop,
)
_register(
    "SparseApplyCenteredRMSProp",
    ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
    4,
    _centered_rms_prop,
)
_register(
    "SparseApplyAdadelta",
    ("var", "accum_grad", "accum_update", "lr", "rho", "epsilon", "grad", "indices"),
    3,
    _adadelta,
)
_register(
    "SparseApplyProximalGradientDescent",
    ("var", "alpha", "l1", "l2", "grad", "indices"),
    1,
    _proximal_gradient_descent,
    None,
    True,
)
_register(
    "SparseApplyProximalAdagrad",
    ("var", "accum", "lr", "l1", "l2", "grad", "indices"),
    2,
    _proximal_adagrad,
    _check_proximal_adagrad,
    True,
)
_register(
    "SparseApplyAdagradDA",
    (
        "var",
        "accum",
        "accum",
        "grad",
        "indices",
        "lr",
        "l1",
        "l2",
        "global_step",
    ),
    3,
    _adagrad_da,
    None,
    True,
)
_register(
    "SparseApplyFtrl",
    ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "lr_power"),
    3,
    _ftrl(shrinkage=False),
    _check_ftrl,
    True,
)
_register(
    "SparseApplyFtrlV2",
    ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "l2_shrinkage", "lr_power"),
    3,
    _ftrl(shrinkage=True),
    _check_ftrl,
    True,
)
