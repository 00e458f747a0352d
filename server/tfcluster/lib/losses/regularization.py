"""The regularization losses of tf.losses: what get_variable's regularizers (and tf.layers'
kernel/bias regularizers) left in GraphKeys.REGULARIZATION_LOSSES."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, Tensor, get_collection
from tfcluster.ops import constant_op, math_ops


def get_regularization_losses(scope: str | None = None) -> list[Any]:
    """The regularization losses, those whose names match `scope` (a regex) if given."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(
    scope: str | None = None, name: str = "total_regularization_loss"
) -> Tensor:
    """Their sum (add_n named `name`), or a constant 0.0 when there is none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


__all__ = ["get_regularization_loss", "get_regularization_losses"]
