"""Scatter kernels over xp: updates of variables at rows (Scatter*) or at n-d indices
(ScatterNd*), and their functional twins on tensors (TensorScatter*).

A variable's rows are written in place, as TF's are, when nothing but the variable holds its
array; else the variable gets a new array and readers keep the old one (kernels/in_place.py):
a scatter into a big embedding costs what its rows cost. One vectorised update: repeated
indices accumulate for add/sub/mul/div/max/min, and for updates one of the repeated rows wins,
as in TF. The functional TensorScatter* ops write into a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels import in_place
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.segment_reduction import reduce_rows

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _truncating_divide(xp: Any, x: Any, y: Any) -> Any:
    if x.dtype.kind in "fc":
        return x / y
    if bool(xp.any(y == 0)):
        raise u.invalid("Integer division by zero")
    quotient = xp.abs(x) // xp.abs(y)
    return xp.where((x < 0) != (y < 0), -quotient, quotient)


def apply_rows(
    xp: Any, mode: str, base: Any, rows: Any, updates: Any, into_base: bool = False
) -> Any:
    """base ([n, inner]) with `updates` ([k, inner]) applied at row indices `rows`: a copy, or
    base itself written (into_base)."""
    out = base if into_base else base.copy()
    if rows.size == 0:
        return out
    if mode == "update":
        u.scatter_last(xp, out, rows, updates)
    elif mode == "add":
        u.scatter_add(xp, out, rows, updates)
    elif mode == "sub":
        u.scatter_add(xp, out, rows, -updates)
    elif mode == "max":
        u.scatter_max(xp, out, rows, updates)
    elif mode == "min":
        u.scatter_min(xp, out, rows, updates)
    elif mode in ("mul", "div"):
        # x * a * b == x * (a * b): the updates of each row are multiplied together first
        # (also for integer division, where trunc(trunc(x / a) / b) == trunc(x / (a * b))).
        factors, count = reduce_rows(xp, "prod", updates, rows, out.shape[0])
        touched = count > 0
        if mode == "mul":
            out[touched] = out[touched] * factors[touched]
        else:
            out[touched] = _truncating_divide(xp, out[touched], factors[touched])
    else:
        raise ValueError(f"unknown scatter mode {mode}")
    return out


def _scatter_rows(
    xp: Any, mode: str, params: Any, indices: Any, updates: Any, into_params: bool = False
) -> Any:
    """Scatter* on a value: rows of params at `indices` (any shape); params (C-contiguous)
    written itself with into_params, once every argument checked."""
    if params.ndim < 1:
        raise u.invalid("Parameter must be at least a vector")
    want = tuple(indices.shape) + tuple(params.shape[1:])
    if updates.ndim != 0 and tuple(updates.shape) != want:
        raise u.invalid(
            "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {u.shape_str(updates.shape)}, indices.shape "
            f"{u.shape_str(indices.shape)}, params.shape {u.shape_str(params.shape)}"
        )
    flat = indices.reshape(-1).astype(np.int64, copy=False)
    if flat.size and (flat.min() < 0 or flat.max() >= params.shape[0]):
        i = int(xp.nonzero((flat < 0) | (flat >= params.shape[0]))[0][0])
        raise u.invalid(f"indices[{i}] = {int(flat[i])} is not in [0, {params.shape[0]})")
    base = params.reshape((params.shape[0], -1))
    rows = updates if tuple(updates.shape) == want else xp.broadcast_to(updates, want)
    rows = rows.reshape((flat.size, base.shape[1]))
    out = apply_rows(xp, mode, base, flat, rows.astype(params.dtype, copy=False), into_params)
    return out.reshape(params.shape)


def nd_rows(xp: Any, shape: tuple[int, ...], indices: Any, what: str) -> tuple[Any, int]:
    """Flat row numbers (into shape[:depth]) of n-d indices [..., depth], checked."""
    if indices.ndim < 1:
        raise u.invalid(
            f"Indices must be at least a vector, got shape {u.shape_str(indices.shape)}"
        )
    depth = indices.shape[-1]
    if depth > len(shape):
        raise u.invalid(
            f"Dimensions [0,{depth}) of indices[shape={u.shape_str(indices.shape)}] must be "
            f"at most the rank of {what} {u.shape_str(shape)}"
        )
    flat = indices.reshape(-1, depth).astype(np.int64)
    limits = xp.asarray(np.asarray(shape[:depth], dtype=np.int64))
    bad = xp.nonzero(xp.any((flat < 0) | (flat >= limits), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise u.invalid(
            f"indices[{i}] = {u.host(flat[i]).tolist()} does not index into {what} "
            f"{u.shape_str(shape)}"
        )
    strides = np.cumprod([*shape[1:depth], 1][::-1])[::-1].astype(np.int64)
    rows = (flat * xp.asarray(strides)).sum(axis=1)
    return rows, depth


def scatter_nd_value(
    xp: Any, mode: str, params: Any, indices: Any, updates: Any, into_params: bool = False
) -> Any:
    """params with updates applied at n-d indices (ScatterNd*, TensorScatter*): a copy, or
    params (C-contiguous) itself with into_params, once every argument checked."""
    shape = tuple(params.shape)
    rows, depth = nd_rows(xp, shape, indices, "shape")
    want = tuple(indices.shape[:-1]) + shape[depth:]
    if tuple(updates.shape) != want:
        raise u.invalid(
            f"updates.shape {u.shape_str(updates.shape)} must be indices.shape[:-1] + "
            f"params.shape[indices.shape[-1]:] = {u.shape_str(want)}"
        )
    outer = int(np.prod(shape[:depth], dtype=np.int64))
    base = params.reshape((outer, -1))
    values = updates.reshape((rows.shape[0], base.shape[1])).astype(params.dtype, copy=False)
    return apply_rows(xp, mode, base, rows, values, into_params).reshape(shape)


def _variable_scatter(mode: str, nd: bool) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        name = node.name

        def update(ref: Any, indices: Any, updates: Any) -> None:
            fn = scatter_nd_value if nd else _scatter_rows
            target = in_place.writable_value(xp, ref, name)
            try:
                fn(xp, mode, target, indices, updates, True)
            finally:
                in_place.done(ref, target)
                del target

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            ref, indices, updates = ins
            # Always locked: see state.locked.
            with ref.lock:
                update(ref, indices, updates)
            return (ref,)

        return compute

    return factory


# The resource variables' ResourceScatter* run the same bodies (kernels/resource_variables.py).
variable_scatter = _variable_scatter

for _mode in ("update", "add", "sub", "mul", "div", "max", "min"):
    kernel(f"Scatter{_mode.capitalize()}")(_variable_scatter(_mode, nd=False))
for _mode in ("update", "add", "sub"):
    kernel(f"ScatterNd{_mode.capitalize()}")(_variable_scatter(_mode, nd=True))


def _tensor_scatter(mode: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            tensor, indices, updates = ins
            return (scatter_nd_value(xp, mode, tensor, indices, updates),)

        return compute

    return factory


for _mode in ("update", "add", "sub"):
    kernel(f"TensorScatter{_mode.capitalize()}")(_tensor_scatter(_mode))
