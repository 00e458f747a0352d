"""Clipping (tf.clip_by_value, clip_by_norm, clip_by_global_norm, clip_by_average_norm,
global_norm), composed from math ops as TF 1.15's clip_ops composes them, so they need no
kernels or gradients of their own. An IndexedSlices (a gather's gradient) is clipped by its
values and stays an IndexedSlices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import array_ops, constant_op, math_ops, nn_ops


def _values(t: Any, name: str) -> Tensor:
    """The tensor to clip: an IndexedSlices' values, or t itself."""
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t: Any, clipped: Tensor) -> Any:
    """`clipped` in the form of t: an IndexedSlices when t is one."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clipped, t.indices, t.dense_shape)
    return clipped


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """t with every value clipped into [clip_value_min, clip_value_max]."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values(t, "t")
        t_min = math_ops.minimum(values, clip_value_max)
        values.shape.merge_with(t_min.shape)
        t_max = math_ops.maximum(t_min, clip_value_min, name=scope)
        values.shape.merge_with(t_max.shape)
        return _like(t, t_max)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """t * clip_norm / max(l2norm(t), clip_norm): unchanged when its norm is small enough."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t, "t")
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Two-tap tf.where trick to bypass NaN gradients.
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.merge_with(intermediate.shape)
        values_clip = array_ops.identity(
            intermediate / math_ops.maximum(l2norm, clip_norm), name=scope
        )
        return _like(t, values_clip)


def _as_list(t_list: Any) -> list[Any]:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str | bytes):
        raise TypeError("t_list should be a sequence")
    return list(t_list)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """sqrt(sum of squared L2 norms) over the non-None tensors (or IndexedSlices) of t_list."""
    items = _as_list(t_list)
    with name_scope(name, "global_norm", items):
        values = [_values(t, f"t_{i}") if t is not None else None for i, t in enumerate(items)]
        half_squared_norms = []
        for v in values:
            if v is not None:
                with colocate_with(v):
                    half_squared_norms.append(nn_ops.l2_loss(v))
        half_squared_norm = math_ops.reduce_sum(array_ops.stack(half_squared_norms))
        two = constant_op.constant(2.0, dtype=half_squared_norm.dtype)
        return math_ops.sqrt(half_squared_norm * two, name="global_norm")


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """Scales every tensor by clip_norm / max(global_norm, clip_norm) (NaN when the norm is
    not finite); returns (the list, the global norm)."""
    items = _as_list(t_list)
    if use_norm is None:
        use_norm = global_norm(items, name)
    with name_scope(name, "clip_by_global_norm", [*items, clip_norm]) as scope:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, constant_op.constant(1.0, dtype=use_norm.dtype) / clip_norm
        )
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        scale = array_ops.where(
            math_ops.is_finite(use_norm),
            scale_for_finite,
            constant_op.constant(float("nan"), dtype=use_norm.dtype),
        )
        values = [_values(t, f"t_{i}") if t is not None else None for i, t in enumerate(items)]
        clipped: list[Any] = []
        for i, (t, v) in enumerate(zip(items, values)):
            if v is None:
                clipped.append(None)
                continue
            with colocate_with(v):
                clipped.append(_like(t, array_ops.identity(v * scale, name=f"{scope}_{i}")))
    return clipped, use_norm


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> Tensor:
    """t * clip_norm / max(l2norm(t) / size(t), clip_norm): clips by the per-element norm."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        x = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(x), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(x * x, math_ops.range(array_ops.rank(x))))
        factor = math_ops.minimum(l2norm_inv * n_element, constant_op.constant(1.0) / clip_norm)
        return array_ops.identity(x * clip_norm * factor, name=scope)


__all__ = [
    "clip_by_average_norm",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "global_norm",
]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
