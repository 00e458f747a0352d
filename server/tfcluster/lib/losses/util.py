"""The collections tf.losses keeps its losses in: add_loss, get_losses and get_total_loss
(the regularization losses live in regularization.py)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, Tensor, add_to_collection, get_collection
from tfcluster.lib.losses.regularization import get_regularization_losses
from tfcluster.ops import math_ops


def add_loss(loss: Any, loss_collection: str | None = GraphKeys.LOSSES) -> None:
    """Adds `loss` to `loss_collection` (nothing when it is None or empty)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None, loss_collection: str = GraphKeys.LOSSES) -> list[Any]:
    """The losses in `loss_collection`, those whose names match `scope` (a regex) if given."""
    return get_collection(loss_collection, scope)


def get_total_loss(
    add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None
) -> Tensor:
    """The sum (add_n named `name`) of the losses, and of the regularization losses unless
    told otherwise. ValueError when there is nothing to add, as TF's add_n says."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


__all__ = ["add_loss", "get_losses", "get_total_loss"]
