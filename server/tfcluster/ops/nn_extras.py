"""tf.nn's losses and normalisation built from other ops: log_poisson_loss,
batch_norm_with_global_normalization, compute_average_loss, scale_regularization_loss.

tfcluster has no distribution strategy: TF's default strategy counts one replica, which is
what the two loss-scaling functions divide by here."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, check_ops, constant_op, math_ops
from tfcluster.ops.nn_impl import batch_normalization
from tfcluster.ops.weights_broadcast_ops import broadcast_weights

_REPLICAS = 1  # TF's default strategy: num_replicas_in_sync


def log_poisson_loss(
    targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None
) -> Tensor:
    """exp(log_input) - log_input * targets, plus Stirling's term for targets > 1 when
    compute_full_loss."""
    with name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        try:
            targets.shape.merge_with(log_input.shape)
        except ValueError:
            raise ValueError(
                f"log_input and targets must have the same shape ({log_input.shape} vs "
                f"{targets.shape})"
            ) from None
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * math.pi, dtype=targets.dtype)
            stirling = (
                (targets * math_ops.log(targets))
                - targets
                + (point_five * math_ops.log(two_pi * targets))
            )
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += array_ops.where(cond, zeros, stirling)
        return result


def batch_norm_with_global_normalization(
    t: Any = None,
    m: Any = None,
    v: Any = None,
    beta: Any = None,
    gamma: Any = None,
    variance_epsilon: Any = None,
    scale_after_normalization: Any = None,
    name: str | None = None,
    input: Any = None,  # TF's alias for t
    mean: Any = None,
    variance: Any = None,
) -> Tensor:
    """tf.nn.batch_normalization with gamma used only when scale_after_normalization."""
    t = _alias("input", input, "t", t)
    m = _alias("mean", mean, "m", m)
    v = _alias("variance", variance, "v", v)
    scale = gamma if scale_after_normalization else None
    return batch_normalization(t, m, v, beta, scale, variance_epsilon, name)


def _alias(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
    return new if new is not None else old


def compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None
) -> Tensor:
    """sum(per_example_loss * sample_weight) / global_batch_size (by default the first
    dimension of per_example_loss times the replicas: one here)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    rank = per_example_loss.shape.ndims
    if rank == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank "
            f"1, received: {per_example_loss}"
        )
    deps = []
    if rank is None:
        deps.append(
            check_ops.assert_greater_equal(
                array_ops.rank(per_example_loss),
                math_ops.cast(1, dtype=dtypes.int32),
                message="Invalid value passed for `per_example_loss`. Expected a tensor with "
                "at least rank 1.",
            )
        )
    with control_dependencies(deps):
        if sample_weight is not None:
            per_example_loss = _scale_by_sample_weight(per_example_loss, sample_weight)
        per_example_loss = math_ops.cast(per_example_loss, input_dtype)
        if global_batch_size is None:
            per_replica = array_ops.shape(per_example_loss)[0]
            global_batch_size = math_ops.cast(per_replica * _REPLICAS, input_dtype)
        return math_ops.reduce_sum(per_example_loss) / global_batch_size


def _scale_by_sample_weight(losses: Tensor, sample_weight: Any) -> Tensor:
    """TF's losses_util.scale_losses_by_sample_weight: float32, weights squeezed or expanded
    by one trailing dimension to the losses' rank, then broadcast."""
    losses = math_ops.cast(losses, dtypes.float32)
    weights = math_ops.cast(sample_weight, dtypes.float32)
    w_rank, l_rank = weights.shape.ndims, losses.shape.ndims
    if w_rank and l_rank is not None:  # a scalar weight is left as it is
        if w_rank - l_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif w_rank - l_rank == -1:
            weights = array_ops.expand_dims(weights, -1)
    weights = broadcast_weights(weights, losses)
    return math_ops.multiply(losses, weights)


def scale_regularization_loss(regularization_loss: Any) -> Tensor:
    """sum(regularization_loss) / replicas (one here)."""
    return math_ops.reduce_sum(regularization_loss) / _REPLICAS


__all__: list[str] = []  # tf.nn names only (the face imports them by name)
