"""tf.metrics: streaming metrics as TF 1.15 builds them. Each returns `(value, update_op)`:
local variables (LOCAL_VARIABLES and METRIC_VARIABLES, zeroed by
tf.local_variables_initializer) accumulate over the update_op's runs; `value` reads them
without changing them, `update_op` adds one batch and gives the value after it. Variable,
op and scope names are TF's (`accuracy/total`, `accuracy/count`, `accuracy/update_op`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collections,
    control_dependencies,
    convert_to_tensor,
)
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.ops import (
    array_ops,
    check_ops,
    confusion_matrix,
    control_flow_ops,
    linalg_ops,
    math_ops,
    state_ops,
    variable_scope,
    weights_broadcast_ops,
)
from tfcluster.ops.variables import Variable, VariableAggregation, VariableSynchronization

# The local variable collection metrics keep their state in besides LOCAL_VARIABLES.
METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES


def metric_variable(
    shape: Any, dtype: dtypes.DType, validate_shape: bool = True, name: str | None = None
) -> Variable:
    """A zero-initialized local variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
        synchronization=VariableSynchronization.ON_READ,
        aggregation=VariableAggregation.SUM,
        name=name,
    )


def _aggregate_across_replicas(
    metrics_collections: Sequence[str] | None, metric_value_fn: Callable[..., Any], *args: Any
) -> Any:
    """The metric's value, computed once: in a tf.distribute replica, in cross-replica
    context (merge_call) from the replicas' combined totals, as TF does."""
    from tfcluster.training import distribution_context

    def fn(distribution: Any, *a: Any) -> Any:
        metric_value = metric_value_fn(distribution, *a)
        if metrics_collections:
            add_to_collections(metrics_collections, metric_value)
        return metric_value

    ctx = distribution_context.current()
    if ctx is not None and ctx.replica_context is not None:
        return ctx.replica_context.merge_call(fn, args=args)
    return fn(None, *args)


def _aggregate_variable(v: Variable, collections: Sequence[str] | None) -> Tensor:
    return _aggregate_across_replicas(  # type: ignore[no-any-return]
        collections, lambda _, value: array_ops.identity(value), v
    )


def _add_updates(updates_collections: Sequence[str] | None, update_op: Any) -> None:
    if updates_collections:
        add_to_collections(updates_collections, update_op)


def _remove_squeezable_dimensions(
    predictions: Any, labels: Any, weights: Any
) -> tuple[Tensor, Any, Any]:
    """Squeezes a last dimension of predictions or labels when their ranks differ by one;
    squeezes or expands weights' last dimension to the predictions' rank (a scalar stays)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = confusion_matrix.remove_squeezable_dimensions(labels, predictions)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    weights_shape = weights.shape
    weights_rank = weights_shape.ndims
    if weights_rank == 0:
        return predictions, labels, weights
    predictions_rank = predictions.shape.ndims
    if predictions_rank is not None and weights_rank is not None:
        if weights_rank - predictions_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif predictions_rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
        return predictions, labels, weights

    w = weights
    weights_rank_tensor = array_ops.rank(w)
    rank_diff = weights_rank_tensor - array_ops.rank(predictions)

    def maybe_expand() -> Tensor:
        return control_flow_ops.cond(  # type: ignore[no-any-return]
            math_ops.equal(rank_diff, -1), lambda: array_ops.expand_dims(w, [-1]), lambda: w
        )

    if weights_rank is not None and not weights_shape.dims[-1].is_compatible_with(1):  # type: ignore[index]

        def maybe_squeeze() -> Tensor:
            return w

    else:

        def maybe_squeeze() -> Tensor:
            return array_ops.squeeze(w, [-1])

    def maybe_adjust() -> Tensor:
        return control_flow_ops.cond(  # type: ignore[no-any-return]
            math_ops.equal(rank_diff, 1), maybe_squeeze, maybe_expand
        )

    weights = control_flow_ops.cond(math_ops.equal(weights_rank_tensor, 0), lambda: w, maybe_adjust)
    return predictions, labels, weights


# ---- means ---------------------------------------------------------------------------------
def mean(
    values: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The (weighted) mean of `values` over every update: total / count."""
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(
                predictions=values, labels=None, weights=weights
            )
            weights = weights_broadcast_ops.broadcast_weights(
                math_ops.cast(weights, dtypes.float32), values
            )
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)

        def compute_mean(_: Any, t: Any, c: Any) -> Tensor:
            return math_ops.div_no_nan(t, math_ops.maximum(c, 0), name="value")

        mean_t = _aggregate_across_replicas(metrics_collections, compute_mean, total, count)
        update_op = math_ops.div_no_nan(
            update_total_op, math_ops.maximum(update_count_op, 0), name="update_op"
        )
        _add_updates(updates_collections, update_op)
        return mean_t, update_op


def accuracy(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How often predictions equal labels (a weighted mean of the matches)."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(
        absolute_errors,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_absolute_error",
    )


def mean_cosine_distance(
    labels: Any,
    predictions: Any,
    dim: int,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """1 - the mean dot product of (unit-normalized) labels and predictions along `dim`."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = math_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(
        radial_diffs, weights, None, None, name or "mean_cosine_distance"
    )
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    if metrics_collections:
        add_to_collections(metrics_collections, mean_distance)
    _add_updates(updates_collections, update_op)
    return mean_distance, update_op


def mean_relative_error(
    labels: Any,
    predictions: Any,
    normalizer: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions, normalizer = confusion_matrix.remove_squeezable_dimensions(predictions, normalizer)
    predictions.get_shape().assert_is_compatible_with(normalizer.get_shape())
    internal_deprecations.called_internally(internal_deprecations.DIV)
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    relative_errors = array_ops.where(
        math_ops.equal(normalizer, 0.0),
        array_ops.zeros_like(labels),
        math_ops.div(math_ops.abs(labels - predictions), normalizer),
    )
    return mean(
        relative_errors,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_relative_error",
    )


def mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(
        squared_error,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_squared_error",
    )


def root_mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    mse, update_mse_op = mean_squared_error(
        labels, predictions, weights, None, None, name or "root_mean_squared_error"
    )
    rmse = _aggregate_across_replicas(metrics_collections, lambda _, m: math_ops.sqrt(m), mse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add_updates(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def mean_tensor(
    values: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The element-wise (weighted) mean of `values` over every update."""
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(
                predictions=values, labels=None, weights=weights
            )
            weights = weights_broadcast_ops.broadcast_weights(
                math_ops.cast(weights, dtypes.float32), values
            )
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = state_ops.assign_add(total, values)
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)

        def compute_mean(_: Any, t: Any, c: Any) -> Tensor:
            return math_ops.div_no_nan(t, math_ops.maximum(c, 0), name="value")

        mean_t = _aggregate_across_replicas(metrics_collections, compute_mean, total, count)
        update_op = math_ops.div_no_nan(
            update_total_op, math_ops.maximum(update_count_op, 0), name="update_op"
        )
        _add_updates(updates_collections, update_op)
        return mean_t, update_op


def percentage_below(
    values: Any,
    threshold: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    is_below_threshold = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(
        is_below_threshold,
        weights,
        metrics_collections,
        updates_collections,
        name or "percentage_below_threshold",
    )


# ---- confusion-matrix metrics ----------------------------------------------------------------
def _streaming_confusion_matrix(
    labels: Any, predictions: Any, num_classes: Any, weights: Any = None
) -> tuple[Variable, Tensor]:
    total_cm = metric_variable(
        [num_classes, num_classes], dtypes.float64, name="total_confusion_matrix"
    )
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    num_classes = math_ops.cast(num_classes, dtypes.int64)
    if predictions.shape.ndims > 1:  # type: ignore[operator]
        predictions = array_ops.reshape(predictions, [-1])
    if labels.shape.ndims > 1:  # type: ignore[operator]
        labels = array_ops.reshape(labels, [-1])
    if weights is not None and weights.shape.ndims > 1:
        weights = array_ops.reshape(weights, [-1])
    current_cm = confusion_matrix.confusion_matrix(
        labels, predictions, num_classes, weights=weights, dtype=dtypes.float64
    )
    update_op = state_ops.assign_add(total_cm, current_cm)
    return total_cm, update_op


def mean_iou(
    labels: Any,
    predictions: Any,
    num_classes: int,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean over classes (those present) of intersection / union, from the streamed
    confusion matrix; the update_op returns that matrix, as TF's does."""
    with variable_scope.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes, weights)

        def compute_mean_iou(_: Any, total_cm: Any) -> Tensor:
            sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
            sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
            cm_diag = math_ops.cast(linalg_ops.diag_part(total_cm), dtypes.float32)
            denominator = sum_over_row + sum_over_col - cm_diag
            num_valid_entries = math_ops.reduce_sum(
                math_ops.cast(math_ops.not_equal(denominator, 0), dtype=dtypes.float32)
            )
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            denominator = array_ops.where(
                math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator)
            )
            internal_deprecations.called_internally(internal_deprecations.DIV)
            iou = math_ops.div(cm_diag, denominator)
            return array_ops.where(
                math_ops.greater(num_valid_entries, 0),
                math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
                0,
            )

        mean_iou_v = _aggregate_across_replicas(metrics_collections, compute_mean_iou, total_cm)
        _add_updates(updates_collections, update_op)
        return mean_iou_v, update_op


# ---- counts of true/false positives/negatives ------------------------------------------------
def _count_condition(
    values: Tensor,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
) -> tuple[Tensor, Tensor]:
    check_ops.assert_type(values, dtypes.bool_)
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        rank_check = check_ops.assert_rank_in(weights, (0, array_ops.rank(values)))
        with control_dependencies((rank_check,)):
            weights = math_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = _aggregate_variable(count, metrics_collections)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    _add_updates(updates_collections, update_op)
    return value_tensor, update_op


def _bool_inputs(predictions: Any, labels: Any, weights: Any) -> tuple[Tensor, Tensor, Any]:
    return _remove_squeezable_dimensions(
        predictions=math_ops.cast(predictions, dtype=dtypes.bool_),
        labels=math_ops.cast(labels, dtype=dtypes.bool_),
        weights=weights,
    )


def _counting_metric(
    scope: str, label_value: bool, prediction_value: bool
) -> Callable[..., tuple[Tensor, Tensor]]:
    """true/false positives/negatives: the (weighted) number of entries whose label and
    prediction are these values."""

    def metric(
        labels: Any,
        predictions: Any,
        weights: Any = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
            predictions, labels, weights = _bool_inputs(predictions, labels, weights)
            matches = math_ops.logical_and(
                math_ops.equal(labels, label_value), math_ops.equal(predictions, prediction_value)
            )
            return _count_condition(matches, weights, metrics_collections, updates_collections)

    metric.__name__ = scope
    metric.__doc__ = f"The (weighted) number of {scope.replace('_', ' ')}."
    return metric


true_positives = _counting_metric("true_positives", True, True)
false_positives = _counting_metric("false_positives", False, True)
true_negatives = _counting_metric("true_negatives", False, False)
false_negatives = _counting_metric("false_negatives", True, False)


def precision(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """true positives / (true positives + false positives), 0 before any positive."""
    with variable_scope.variable_scope(name, "precision", (predictions, labels, weights)):
        predictions, labels, weights = _bool_inputs(predictions, labels, weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        false_p, false_p_update = false_positives(labels, predictions, weights)

        def compute(tp: Any, fp: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            return array_ops.where(math_ops.greater(tp + fp, 0), math_ops.div(tp, tp + fp), 0, name)

        p = _aggregate_across_replicas(
            metrics_collections, lambda _, tp, fp: compute(tp, fp, "value"), true_p, false_p
        )
        update_op = compute(true_p_update, false_p_update, "update_op")
        _add_updates(updates_collections, update_op)
        return p, update_op


def recall(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """true positives / (true positives + false negatives), 0 before any positive label."""
    with variable_scope.variable_scope(name, "recall", (predictions, labels, weights)):
        predictions, labels, weights = _bool_inputs(predictions, labels, weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        false_n, false_n_update = false_negatives(labels, predictions, weights)

        def compute(tp: Any, fn: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            return array_ops.where(math_ops.greater(tp + fn, 0), math_ops.div(tp, tp + fn), 0, name)

        rec = _aggregate_across_replicas(
            metrics_collections, lambda _, tp, fn: compute(tp, fn, "value"), true_p, false_n
        )
        update_op = compute(true_p_update, false_n_update, "update_op")
        _add_updates(updates_collections, update_op)
        return rec, update_op


# ---- metrics at thresholds -------------------------------------------------------------------
_ALL_INCLUDES = ("tp", "fn", "tn", "fp")


def _confusion_matrix_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any = None,
    includes: Sequence[str] | None = None,
) -> tuple[dict[str, Any], dict[str, Tensor]]:
    """Per threshold, the (weighted) counts of predictions above it (positive) or not,
    against boolean labels: variables true_positives, false_negatives, true_negatives,
    false_positives (those in `includes`), and their update ops. Predictions must be in
    [0, 1] (checked when the step runs)."""
    if includes is None:
        includes = _ALL_INCLUDES
    else:
        for include in includes:
            if include not in _ALL_INCLUDES:
                raise ValueError(f"Invalid key: {include}.")
    with control_dependencies(
        [
            check_ops.assert_greater_equal(
                predictions,
                math_ops.cast(0.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]",
            ),
            check_ops.assert_less_equal(
                predictions,
                math_ops.cast(1.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]",
            ),
        ]
    ):
        predictions_t, labels, weights = _remove_squeezable_dimensions(
            predictions=math_ops.cast(predictions, dtypes.float32),
            labels=math_ops.cast(labels, dtype=dtypes.bool_),
            weights=weights,
        )
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions_t, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtype=dtypes.bool_), [1, -1])
    num_predictions: Any = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(convert_to_tensor(list(thresholds), dtypes.float32), [1]),
        array_ops.stack([1, num_predictions]),
    )
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled
    )
    if "fn" in includes or "tn" in includes:
        pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    if "fp" in includes or "tn" in includes:
        label_is_neg = math_ops.logical_not(label_is_pos)
    if weights is not None:
        weights = weights_broadcast_ops.broadcast_weights(
            math_ops.cast(weights, dtypes.float32), predictions_t
        )
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    else:
        weights_tiled = None

    values: dict[str, Any] = {}
    update_ops: dict[str, Tensor] = {}
    kinds = (
        ("tp", "true_positives", lambda: math_ops.logical_and(label_is_pos, pred_is_pos)),
        ("fn", "false_negatives", lambda: math_ops.logical_and(label_is_pos, pred_is_neg)),
        ("tn", "true_negatives", lambda: math_ops.logical_and(label_is_neg, pred_is_neg)),
        ("fp", "false_positives", lambda: math_ops.logical_and(label_is_neg, pred_is_pos)),
    )
    for key, var_name, condition in kinds:
        if key not in includes:
            continue
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        is_kind = math_ops.cast(condition(), dtypes.float32)
        if weights_tiled is not None:
            is_kind *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, math_ops.reduce_sum(is_kind, 1))
        values[key] = var
    return values, update_ops


def _thresholds_between_0_and_1(num_thresholds: int, high: float) -> list[float]:
    """num_thresholds - 2 evenly spaced in (0, 1), with -epsilon and `high` at the ends."""
    kepsilon = 1e-7
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon, *inner, high]


def auc(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    curve: str = "ROC",
    name: str | None = None,
    summation_method: str = "trapezoidal",
    thresholds: Sequence[float] | None = None,
) -> tuple[Tensor, Tensor]:
    """The area under the ROC or PR curve, by a Riemann sum over thresholds in [0, 1]
    (`summation_method`: trapezoidal, careful_interpolation (PR), minoring, majoring)."""
    with variable_scope.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        kepsilon = 1e-7
        if thresholds is not None:
            inner = sorted(thresholds)
            num_thresholds = len(inner) + 2
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        all_thresholds = [0.0 - kepsilon, *inner, 1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, all_thresholds, weights
        )
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp: Any, fp: Any, fn: Any) -> Tensor:
            dtp = tp[: n - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(
                dtp, math_ops.maximum(p[: n - 1] - p[1:], 0), name="prec_slope"
            )
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            safe_p_ratio = array_ops.where(
                math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(
                    p[: n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"
                ),
                array_ops.ones_like(p[1:]),
            )
            return math_ops.reduce_sum(
                math_ops.div_no_nan(
                    prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                    math_ops.maximum(tp[1:] + fn[1:], 0),
                    name="pr_auc_increment",
                ),
                name="interpolate_pr_auc",
            )

        def compute_auc(tp: Any, fn: Any, tn: Any, fp: Any, name: str) -> Tensor:
            if curve == "PR" and summation_method == "trapezoidal":
                # TF warns each time it builds the value (so twice a metric: value, update).
                logging.warning(
                    "Trapezoidal rule is known to produce incorrect PR-AUCs; please switch to "
                    '"careful_interpolation" instead.'
                )
            if curve == "PR" and summation_method == "careful_interpolation":
                return interpolate_pr_auc(tp, fp, fn)
            internal_deprecations.called_internally(internal_deprecations.DIV)
            rec = math_ops.div(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x = math_ops.div(fp, fp + tn + epsilon)
                y = rec
            else:
                x = rec
                y = math_ops.div(tp + epsilon, tp + fp + epsilon)
            methods = ("trapezoidal", "careful_interpolation", "minoring", "majoring")
            if summation_method not in methods:
                raise ValueError(f"Invalid summation_method: {summation_method}")
            widths = x[: n - 1] - x[1:]
            if summation_method == "minoring":
                heights = math_ops.minimum(y[: n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[: n - 1], y[1:])
            else:
                heights = (y[: n - 1] + y[1:]) / 2.0
            return math_ops.reduce_sum(math_ops.multiply(widths, heights), name=name)

        auc_value = _aggregate_across_replicas(
            metrics_collections,
            lambda _, v: compute_auc(v["tp"], v["fn"], v["tn"], v["fp"], "value"),
            values,
        )
        update_op = compute_auc(
            update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op"
        )
        _add_updates(updates_collections, update_op)
        return auc_value, update_op


def _count_at_thresholds(key: str, scope: str) -> Callable[..., tuple[Tensor, Tensor]]:
    def metric(
        labels: Any,
        predictions: Any,
        thresholds: Sequence[float],
        weights: Any = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,)
            )
            value = _aggregate_variable(values[key], metrics_collections)
            _add_updates(updates_collections, update_ops[key])
            return value, update_ops[key]

    metric.__name__ = f"{scope}_at_thresholds"
    metric.__doc__ = f"The (weighted) number of {scope.replace('_', ' ')} at each threshold."
    return metric


true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives")
false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives")
true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives")
false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives")


def precision_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with variable_scope.variable_scope(
        name, "precision_at_thresholds", (predictions, labels, weights)
    ):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", "fp")
        )
        epsilon = 1e-7

        def compute(tp: Any, fp: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            return math_ops.div(tp, epsilon + tp + fp, name="precision_" + name)

        prec = _aggregate_across_replicas(
            metrics_collections, lambda _, v: compute(v["tp"], v["fp"], "value"), values
        )
        update_op = compute(update_ops["tp"], update_ops["fp"], "update_op")
        _add_updates(updates_collections, update_op)
        return prec, update_op


def recall_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with variable_scope.variable_scope(
        name, "recall_at_thresholds", (predictions, labels, weights)
    ):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", "fn")
        )
        epsilon = 1e-7

        def compute(tp: Any, fn: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            return math_ops.div(tp, epsilon + tp + fn, name="recall_" + name)

        rec = _aggregate_across_replicas(
            metrics_collections, lambda _, v: compute(v["tp"], v["fn"], "value"), values
        )
        update_op = compute(update_ops["tp"], update_ops["fn"], "update_op")
        _add_updates(updates_collections, update_op)
        return rec, update_op


def sensitivity_at_specificity(
    labels: Any,
    predictions: Any,
    specificity: float,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The sensitivity at the threshold whose specificity is closest to `specificity`."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1].")
    with variable_scope.variable_scope(
        name, "sensitivity_at_specificity", (predictions, labels, weights)
    ):
        kepsilon = 1e-7
        thresholds = _thresholds_between_0_and_1(num_thresholds, 1.0 + kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )

        def compute(tp: Any, tn: Any, fp: Any, fn: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            specificities = math_ops.div(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.div(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        sensitivity = _aggregate_across_replicas(
            metrics_collections,
            lambda _, v: compute(v["tp"], v["tn"], v["fp"], v["fn"], "value"),
            values,
        )
        update_op = compute(
            update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op"
        )
        _add_updates(updates_collections, update_op)
        return sensitivity, update_op


def specificity_at_sensitivity(
    labels: Any,
    predictions: Any,
    sensitivity: float,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The specificity at the (last) threshold whose sensitivity is closest to
    `sensitivity`."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1].")
    with variable_scope.variable_scope(
        name, "specificity_at_sensitivity", (predictions, labels, weights)
    ):
        kepsilon = 1e-7
        thresholds = _thresholds_between_0_and_1(num_thresholds, 1.0 - kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )

        def compute(tp: Any, tn: Any, fp: Any, fn: Any, name: str) -> Tensor:
            internal_deprecations.called_internally(internal_deprecations.DIV)
            sensitivities = math_ops.div(tp, tp + fn + kepsilon)
            # The last index among ties: argmax of the running count of the minima.
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
            indices_at_minval = math_ops.cast(indices_at_minval, dtypes.int64)
            indices_at_minval = math_ops.cumsum(indices_at_minval)
            tf_index = math_ops.argmax(indices_at_minval, 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.div(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

        specificity = _aggregate_across_replicas(
            metrics_collections,
            lambda _, v: compute(v["tp"], v["tn"], v["fp"], v["fn"], "value"),
            values,
        )
        update_op = compute(
            update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op"
        )
        _add_updates(updates_collections, update_op)
        return specificity, update_op


__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_cosine_distance",
    "mean_iou",
    "mean_relative_error",
    "mean_squared_error",
    "mean_tensor",
    "metric_variable",
    "percentage_below",
    "precision",
    "precision_at_thresholds",
    "recall",
    "recall_at_thresholds",
    "root_mean_squared_error",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
]
