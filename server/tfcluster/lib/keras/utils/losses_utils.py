"""Keras's loss weighting and reduction as TF 1.15's keras/utils/losses_utils.py builds them:
the same ops under the same names (`weighted_loss/broadcast_weights/...`, `num_elements`,
`value`), so a compiled model's graph, and the op seeds after it, are TF's."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tfcluster.ops import (
    array_ops,
    confusion_matrix,
    control_flow_ops,
    math_ops,
    weights_broadcast_ops,
)

NONE = "none"
SUM = "sum"
SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
AUTO = "auto"


def squeeze_or_expand_dimensions(
    y_pred: Tensor, y_true: Any = None, sample_weight: Any = None
) -> tuple[Any, ...]:
    """y_pred and y_true with a size-1 last dimension squeezed where their ranks differ by
    one; sample_weight squeezed or expanded to y_pred's rank (a scalar stays a scalar)."""
    y_pred_rank = y_pred.shape.ndims
    if y_true is not None:
        y_true_rank = y_true.shape.ndims
        if y_true_rank is not None and y_pred_rank is not None:
            if y_pred_rank - y_true_rank != 1 or y_pred.shape[-1] == 1:
                y_true, y_pred = confusion_matrix.remove_squeezable_dimensions(y_true, y_pred)
        else:
            rank_diff = array_ops.rank(y_pred) - array_ops.rank(y_true)

            def squeeze_dims() -> Any:
                return confusion_matrix.remove_squeezable_dimensions(y_true, y_pred)

            is_last_dim_1 = math_ops.equal(1, array_ops.shape(y_pred)[-1])

            def maybe_squeeze_dims() -> Any:
                return control_flow_ops.cond(is_last_dim_1, squeeze_dims, lambda: (y_true, y_pred))

            y_true, y_pred = control_flow_ops.cond(
                math_ops.equal(1, rank_diff), maybe_squeeze_dims, squeeze_dims
            )
    if sample_weight is None:
        return y_pred, y_true
    sample_weight = convert_to_tensor(sample_weight)
    weights_rank = sample_weight.shape.ndims
    if weights_rank == 0:
        return y_pred, y_true, sample_weight
    if y_pred_rank is not None and weights_rank is not None:
        if weights_rank - y_pred_rank == 1:
            sample_weight = array_ops.squeeze(sample_weight, [-1])
        elif y_pred_rank - weights_rank == 1:
            sample_weight = array_ops.expand_dims(sample_weight, [-1])
        return y_pred, y_true, sample_weight
    weights_rank_tensor = array_ops.rank(sample_weight)
    diff = weights_rank_tensor - array_ops.rank(y_pred)
    weights = sample_weight

    def maybe_expand() -> Any:
        return control_flow_ops.cond(
            math_ops.equal(diff, -1), lambda: array_ops.expand_dims(weights, [-1]), lambda: weights
        )

    def maybe_adjust() -> Any:
        return control_flow_ops.cond(
            math_ops.equal(diff, 1), lambda: array_ops.squeeze(weights, [-1]), maybe_expand
        )

    sample_weight = control_flow_ops.cond(
        math_ops.equal(weights_rank_tensor, 0), lambda: weights, maybe_adjust
    )
    return y_pred, y_true, sample_weight


def scale_losses_by_sample_weight(losses: Tensor, sample_weight: Any) -> Tensor:
    """losses * sample_weight, in float32, the weights shaped and broadcast to the losses."""
    losses = math_ops.cast(losses, dtypes.float32)
    sample_weight = math_ops.cast(sample_weight, dtypes.float32)
    losses, _, sample_weight = squeeze_or_expand_dimensions(losses, None, sample_weight)
    sample_weight = weights_broadcast_ops.broadcast_weights(sample_weight, losses)
    return math_ops.multiply(losses, sample_weight)


def _num_elements(losses: Tensor) -> Tensor:
    with name_scope("num_elements") as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def _safe_mean(losses: Tensor, num_present: Tensor) -> Tensor:
    total_loss = math_ops.reduce_sum(losses)
    return math_ops.div_no_nan(total_loss, num_present, name="value")


def reduce_weighted_loss(weighted_losses: Tensor, reduction: str = SUM_OVER_BATCH_SIZE) -> Tensor:
    if reduction == NONE:
        return weighted_losses
    loss = math_ops.reduce_sum(weighted_losses)
    if reduction == SUM_OVER_BATCH_SIZE:
        loss = _safe_mean(loss, _num_elements(weighted_losses))
    return loss


def compute_weighted_loss(
    losses: Any,
    sample_weight: Any = None,
    reduction: str = SUM_OVER_BATCH_SIZE,
    name: str | None = None,
) -> Tensor:
    """The losses weighted by sample_weight (1.0 when None) and reduced, in their dtype."""
    if reduction == AUTO:
        reduction = SUM_OVER_BATCH_SIZE
    if sample_weight is None:
        sample_weight = 1.0
    with name_scope(name or "weighted_loss"):
        get_default_graph()._last_loss_reduction = reduction  # type: ignore[attr-defined]
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        weighted = scale_losses_by_sample_weight(losses, sample_weight)
        loss = reduce_weighted_loss(weighted, reduction)
        return math_ops.cast(loss, input_dtype)
