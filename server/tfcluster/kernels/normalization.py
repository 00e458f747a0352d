"""Fused batch normalisation over xp: FusedBatchNormV3 (training: the batch's statistics;
inference: the given ones), NHWC/NCHW and their 5-D forms, and its gradient. Statistics are
computed in float32 or wider whatever the input dtype (TF's U type for half inputs).

The reserve outputs carry the batch mean and the biased batch variance to the gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import kernel

_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _channel_axis(fmt: str, ndim: int, name: str) -> int:
    if fmt not in _FORMATS:
        raise invalid(f"Invalid data format: {fmt} ({name})")
    if ndim != len(fmt):
        raise invalid(f"input must be {len(fmt)}-dimensional, got rank {ndim} ({name})")
    return 1 if fmt.startswith("NC") else ndim - 1


def _shaped(v: Any, axis: int, ndim: int) -> Any:
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _stat_dtype(dtype: Any) -> Any:
    return np.float32 if np.dtype(dtype) == np.float16 else dtype


@kernel("FusedBatchNormV3")
def fused_batch_norm(node: Any, xp: Any) -> Compute:
    eps = float(node.attrs.get("epsilon", 1e-4))
    fmt = str(node.attrs.get("data_format", "NHWC"))
    training = bool(node.attrs.get("is_training", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, scale, offset, mean, var = (xp.asarray(v) for v in ins)
        axis = _channel_axis(fmt, x.ndim, node.name)
        c = x.shape[axis]
        for v, what in ((scale, "scale"), (offset, "offset")):
            if v.shape != (c,):
                raise invalid(f"{what} must have shape [{c}], got {list(v.shape)} ({node.name})")
        u = scale.dtype
        xf = x.astype(_stat_dtype(x.dtype), copy=False)
        axes = tuple(i for i in range(x.ndim) if i != axis)
        if training:
            count = x.size // c if c else 0
            batch_mean = xf.mean(axis=axes)
            centered = xf - _shaped(batch_mean, axis, x.ndim)
            batch_var = (centered * centered).mean(axis=axes)
            inv = 1.0 / xp.sqrt(batch_var + eps)
            y = centered * _shaped(inv * scale, axis, x.ndim) + _shaped(offset, axis, x.ndim)
            unbiased = batch_var * (count / max(count - 1, 1))
            return (
                y.astype(x.dtype),
                batch_mean.astype(u),
                unbiased.astype(u),
                batch_mean.astype(u),
                batch_var.astype(u),
                xp.zeros((0,), u),
            )
        for v, what in ((mean, "mean"), (var, "variance")):
            if v.shape != (c,):
                raise invalid(f"{what} must have shape [{c}], got {list(v.shape)} ({node.name})")
        inv = 1.0 / xp.sqrt(var + eps)
        y = (xf - _shaped(mean, axis, x.ndim)) * _shaped(inv * scale, axis, x.ndim) + _shaped(
            offset, axis, x.ndim
        )
        return (y.astype(x.dtype), mean, var, mean, var, xp.zeros((0,), u))

    return compute


@kernel("FusedBatchNormGradV3")
def fused_batch_norm_grad(node: Any, xp: Any) -> Compute:
    eps = float(node.attrs.get("epsilon", 1e-4))
    fmt = str(node.attrs.get("data_format", "NHWC"))
    training = bool(node.attrs.get("is_training", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dy, x, scale, mean, var = (xp.asarray(v) for v in ins[:5])
        axis = _channel_axis(fmt, x.ndim, node.name)
        if dy.shape != x.shape:
            raise invalid(
                f"y_backprop {list(dy.shape)} and x {list(x.shape)} must have the same shape "
                f"({node.name})"
            )
        u = scale.dtype
        st = _stat_dtype(x.dtype)
        xf, g = x.astype(st, copy=False), dy.astype(st, copy=False)
        axes = tuple(i for i in range(x.ndim) if i != axis)
        inv = 1.0 / xp.sqrt(var.astype(st) + eps)
        xhat = (xf - _shaped(mean.astype(st), axis, x.ndim)) * _shaped(inv, axis, x.ndim)
        d_offset = g.sum(axis=axes)
        d_scale = (g * xhat).sum(axis=axes)
        if training:
            count = x.size // x.shape[axis] if x.shape[axis] else 1
            dx = _shaped(scale * inv / count, axis, x.ndim) * (
                count * g - _shaped(d_offset, axis, x.ndim) - xhat * _shaped(d_scale, axis, x.ndim)
            )
        else:
            dx = g * _shaped(scale * inv, axis, x.ndim)
        empty = xp.zeros((0,), u)
        return dx.astype(x.dtype), d_scale.astype(u), d_offset.astype(u), empty, empty

    return compute
