"""Clipping (tf.clip_by_value, clip_by_norm, clip_by_global_norm, clip_by_average_norm,
global_norm), as TF1 composes them from math ops, so they need no kernels or gradients of
their own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, math_ops


def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        x = convert_to_tensor(t, name="t")
        t_min = math_ops.minimum(x, clip_value_max)
        if t_min.shape.ndims is not None and x.shape.ndims is not None:
            x.shape.assert_is_compatible_with(t_min.shape)
        return math_ops.maximum(t_min, clip_value_min, name=scope)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """t * clip_norm / max(l2norm(t), clip_norm): unchanged when its norm is small enough."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        x = convert_to_tensor(t, name="t")
        l2sum = math_ops.reduce_sum(x * x, axes, keepdims=True)
        positive = math_ops.greater(l2sum, 0.0)
        safe = array_ops.where(positive, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(positive, math_ops.sqrt(safe), l2sum)
        clip = math_ops.cast(clip_norm, x.dtype)
        intermediate = x * clip
        return array_ops.identity(intermediate / math_ops.maximum(l2norm, clip), name=scope)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """sqrt(sum of squared L2 norms) over the non-None tensors of t_list."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence")
    tensors = [convert_to_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor")
    with name_scope(name, "global_norm", tensors) as scope:
        half_squared = [math_ops.reduce_sum(t * t) / 2.0 for t in tensors]
        total = math_ops.add_n(half_squared) if len(half_squared) > 1 else half_squared[0]
        return math_ops.sqrt(total * 2.0, name=scope)


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Tensor | None], Tensor]:
    """Scales every tensor by clip_norm / max(global_norm, clip_norm); returns (list, norm)."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence")
    with name_scope(name, "clip_by_global_norm", [t for t in t_list if t is not None]):
        norm = use_norm if use_norm is not None else global_norm(t_list, "global_norm")
        norm = convert_to_tensor(norm)
        clip = math_ops.cast(clip_norm, norm.dtype)
        scale = clip * math_ops.minimum(1.0 / norm, 1.0 / clip)
        clipped: list[Tensor | None] = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            x = convert_to_tensor(t)
            clipped.append(array_ops.identity(x * math_ops.cast(scale, x.dtype), name=f"_{i}"))
        return clipped, norm


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> Tensor:
    """t * clip_norm / max(l2norm(t) / size(t), clip_norm): clips by the per-element norm."""
    from tfcluster.framework import dtypes

    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        x = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(x), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(x * x, math_ops.range(array_ops.rank(x))))
        factor = math_ops.minimum(l2norm_inv * n_element, convert_to_tensor(1.0) / clip_norm)
        return array_ops.identity(x * clip_norm * factor, name=scope)


__all__ = [
    "clip_by_average_norm",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "global_norm",
]
