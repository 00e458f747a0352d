"""The base of TF 1.15's public heads (`tf.estimator.Head`): the interface, the metric
objects `metrics()`/`update_metrics()` fill, the train op (train_op_fn, or a keras optimizer's
`get_updates(loss, trainable_variables)`) and what the single-objective heads share. Unlike
the canned estimators' own heads (heads.py) these reduce the loss with SUM_OVER_BATCH_SIZE by
default, take keras-style reductions ('sum', 'sum_over_batch_size') and suffix metric and
summary keys with the head's name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.estimator import _fn_args
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.losses import losses_impl
from tfcluster.lib.metrics import metrics_impl
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    math_ops,
)
from tfcluster.ops.summary_ops import scalar as summary_scalar

DEFAULT_SERVING_KEY = heads._DEFAULT_SERVING_KEY
CLASSIFY_SERVING_KEY = heads._CLASSIFY
REGRESS_SERVING_KEY = heads._REGRESS
PREDICT_SERVING_KEY = heads._PREDICT

# tf.keras.losses.Reduction's values (what these heads accept) and the tf.losses reduction
# each one computes.
_REDUCTIONS = {
    "auto": losses_impl.Reduction.SUM_OVER_BATCH_SIZE,
    "sum": losses_impl.Reduction.SUM,
    "sum_over_batch_size": losses_impl.Reduction.SUM_OVER_BATCH_SIZE,
}
SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


def validate_loss_reduction(loss_reduction: str) -> None:
    if loss_reduction not in _REDUCTIONS:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for valid "
            "options."
        )


def _validate_loss_fn_args(loss_fn: Callable[..., Any]) -> None:
    args = _fn_args(loss_fn)
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(f"loss_fn must contain argument: {required}. Given arguments: {args}")
    invalid = sorted(args - {"labels", "logits", "features", "loss_reduction"})
    if invalid:
        raise ValueError(f"loss_fn has unexpected args: {invalid}")


def _call_loss_fn(
    loss_fn: Callable[..., Any], labels: Tensor, logits: Tensor, features: Any, expected_dim: int
) -> Tensor:
    kwargs = {"features": features} if "features" in _fn_args(loss_fn) else {}
    loss = convert_to_tensor(loss_fn(labels=labels, logits=logits, **kwargs))
    dim = loss.shape[-1] if loss.shape.ndims else None
    dim = getattr(dim, "value", dim)
    if dim is not None and int(dim) != expected_dim:
        raise ValueError(
            f"loss_fn must return Tensor of shape [D0, D1, ... DN, {expected_dim}]. "
            f"logits_shape: {logits.shape}, loss_shape: {loss.shape}"
        )
    return loss


def check_logits_final_dim(logits: Any, expected: int) -> Tensor:
    logits = convert_to_tensor(logits)
    if logits.shape.ndims is not None:
        dim = logits.shape[-1] if logits.shape.ndims else None
        dim = getattr(dim, "value", dim)
        if logits.shape.ndims < 2 or (dim is not None and int(dim) != expected):
            raise ValueError(
                f"logits shape must be [D0, D1, ... DN, logits_dimension], got {logits.shape}."
            )
    return logits


def check_label_range(labels: Tensor, n_classes: int, message: str | None = None) -> Tensor:
    with name_scope(None, "check_label_range", (labels,)):
        checks = [
            check_ops.assert_less(
                labels,
                math_ops.cast(n_classes, labels.dtype),
                message=message or f"Labels must be <= {n_classes} - 1",
            ),
            check_ops.assert_non_negative(labels, message=message or "Labels must be >= 0"),
        ]
        with control_dependencies(checks):
            return array_ops.identity(labels)


def _weights(
    features: Any, weight_column: Any, logits: Tensor, allow_per_logit_weights: bool = False
) -> Any:
    return heads._weights(features, weight_column, logits, allow_per_logit_weights)


def _metric_weights(weights: Any) -> Any:
    return None if isinstance(weights, float) else weights


def broadcast_weights(weights: Any, values: Tensor) -> Any:
    """Weights broadcast to `values` (the keras metrics' sample_weight broadcasting)."""
    if weights is None:
        return None
    return math_ops.multiply(weights, array_ops.ones_like(values, dtype=dtypes.float32))


def auc_metric(labels: Tensor, scores: Tensor, weights: Any, curve: str) -> tuple[Tensor, Any]:
    # keras.metrics.AUC: 200 thresholds, careful (Davis & Goadrich) interpolation for PR.
    return metrics_impl.auc(
        math_ops.cast(labels, dtypes.bool_),
        scores,
        weights=broadcast_weights(weights, scores),
        curve=curve,
        summation_method="careful_interpolation",
    )


class HeadMetric:
    """A head's metric (tf.keras.metrics-like): `result()` is its value once
    `update_metrics` has given it its update op."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._value: Tensor | None = None
        self._update: Any = None

    def _set(self, value_and_update: tuple[Tensor, Any]) -> None:
        self._value, self._update = value_and_update

    @property
    def updates(self) -> list[Any]:
        return [] if self._update is None else [self._update]

    def result(self) -> Tensor:
        if self._value is None:
            raise ValueError(f"Metric {self.name} has not been updated (call update_metrics).")
        return self._value

    def as_tuple(self) -> tuple[Tensor, Any]:
        return self.result(), self._update


class Head:
    """Interface of a head: logits -> loss, predictions, metrics and an EstimatorSpec."""

    @property
    def name(self) -> str | None:
        raise NotImplementedError("Calling an abstract method.")

    @property
    def logits_dimension(self) -> int:
        raise NotImplementedError("Calling an abstract method.")

    @property
    def loss_reduction(self) -> str:
        raise NotImplementedError("Calling an abstract method.")

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        raise NotImplementedError("Calling an abstract method.")

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        raise NotImplementedError("Calling an abstract method.")

    def metrics(self, regularization_losses: Any = None) -> dict[str, HeadMetric]:
        raise NotImplementedError("Calling an abstract method.")

    def update_metrics(
        self,
        eval_metrics: dict[str, HeadMetric],
        features: Any,
        logits: Any,
        labels: Any,
        regularization_losses: Any = None,
    ) -> dict[str, HeadMetric]:
        raise NotImplementedError("Calling an abstract method.")

    def _summary_key(self, key: str) -> str:
        return f"{key}/{self.name}" if self.name else key

    def create_estimator_spec(
        self,
        features: Any,
        mode: str,
        logits: Any,
        labels: Any = None,
        optimizer: Any = None,
        trainable_variables: Any = None,
        train_op_fn: Any = None,
        update_ops: Any = None,
        regularization_losses: Any = None,
    ) -> EstimatorSpec:
        raise NotImplementedError(
            "Subclasses of Head must implement `create_estimator_spec()` or "
            "_create_tpu_estimator_spec()."
        )


def create_train_op(
    optimizer: Any,
    trainable_variables: Any,
    train_op_fn: Any,
    update_ops: Any,
    loss: Tensor,
) -> Any:
    """TF's base_head.create_estimator_spec_train_op (under name scope 'training')."""
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops must be a list or tuple. Given: {update_ops}")
    with name_scope(""), name_scope("training"):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            from tfcluster.lib.keras.optimizers import Optimizer as KerasOptimizer

            if not isinstance(optimizer, KerasOptimizer):
                raise ValueError(
                    "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
                    f"Given: {optimizer}"
                )
            if trainable_variables is None:
                raise ValueError(f"trainable_variables cannot be None. Given {trainable_variables}")
            if not isinstance(trainable_variables, (list, tuple)):
                raise ValueError(
                    f"trainable_variables should be a list or a tuple. Given {trainable_variables}"
                )
            # keras v1-style optimizers return several updates (iterations, each weight).
            train_op = control_flow_ops.group(
                *optimizer.get_updates(loss, list(trainable_variables))
            )
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops is not None:
            train_op = control_flow_ops.group(train_op, *update_ops)
        return train_op


def create_summaries(
    loss: Tensor, regularization_losses: Any, summary_key: Callable[[str], str]
) -> None:
    with name_scope(""):
        summary_scalar(summary_key("loss"), loss)
        if regularization_losses is not None:
            summary_scalar(
                summary_key("regularization_loss"), math_ops.add_n(list(regularization_losses))
            )


def spec_of_mode(
    head: Head,
    mode: str,
    features: Any,
    logits: Any,
    labels: Any,
    predictions: Any,
    export_outputs: Callable[[], Any],
    regularization_losses: Any,
    make_train_op: Callable[[Tensor], Any],
    summary_key: Callable[[str], str],
) -> EstimatorSpec:
    """The EstimatorSpec of `mode` once a head has made its predictions: PREDICT's export
    outputs (made only then), EVAL's loss and metrics, TRAIN's train op and loss summaries."""
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode=mode, predictions=predictions, export_outputs=export_outputs())
    loss = head.loss(labels, logits, features, mode, regularization_losses)
    if mode == ModeKeys.EVAL:
        updated = head.update_metrics(
            head.metrics(regularization_losses),
            features,
            logits,
            labels,
            regularization_losses=regularization_losses,
        )
        return EstimatorSpec(
            mode=mode,
            predictions=predictions,
            loss=loss,
            eval_metric_ops={k: m.as_tuple() for k, m in updated.items()},
        )
    train_op = make_train_op(loss)
    create_summaries(loss, regularization_losses, summary_key)
    return EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op)


class SingleHead(Head):
    """What the single-objective heads share: loss, spec per mode, metric plumbing."""

    _name: str | None
    _loss_reduction: str
    _loss_fn: Callable[..., Any] | None
    _weight_column: Any
    # Weights may have the logits' last dimension (TF's regression head).
    _allow_per_logit_weights = False

    def __init__(self, weight_column: Any, loss_reduction: str, loss_fn: Any, name: Any) -> None:
        validate_loss_reduction(loss_reduction)
        if loss_fn:
            _validate_loss_fn_args(loss_fn)
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def loss_reduction(self) -> str:
        return self._loss_reduction

    # -- per head ---------------------------------------------------------------------
    def _processed_labels(self, logits: Tensor, labels: Any) -> Tensor:
        raise NotImplementedError

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        raise NotImplementedError

    def _metric_values(
        self,
        labels: Tensor,
        logits: Tensor,
        unweighted: Tensor,
        weights: Any,
    ) -> dict[str, tuple[Tensor, Any]]:
        raise NotImplementedError

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        raise NotImplementedError

    def _loss_dimension(self) -> int:
        return 1

    # -- shared -----------------------------------------------------------------------
    def _unweighted_loss_and_weights(
        self, logits: Tensor, labels: Tensor, features: Any
    ) -> tuple[Tensor, Any]:
        if self._loss_fn:
            unweighted = _call_loss_fn(
                self._loss_fn, labels, logits, features, self._loss_dimension()
            )
        else:
            unweighted = self._default_loss(labels, logits)
        return unweighted, _weights(
            features, self._weight_column, logits, self._allow_per_logit_weights
        )

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        with name_scope("losses"):
            logits = check_logits_final_dim(logits, self.logits_dimension)
            labels = self._processed_labels(logits, labels)
            unweighted, weights = self._unweighted_loss_and_weights(logits, labels, features)
            training_loss = losses_impl.compute_weighted_loss(
                unweighted, weights=weights, reduction=_REDUCTIONS[self._loss_reduction]
            )
            if regularization_losses is not None:
                return training_loss + math_ops.add_n(list(regularization_losses))
            return training_loss

    def _metric_keys(self, regularization_losses: Any) -> list[str]:
        raise NotImplementedError

    def metrics(self, regularization_losses: Any = None) -> dict[str, HeadMetric]:
        keys = self._metric_keys(regularization_losses)
        if regularization_losses is not None:
            keys.append(self._summary_key("regularization_loss"))
        return {k: HeadMetric(k) for k in keys}

    def update_metrics(
        self,
        eval_metrics: dict[str, HeadMetric],
        features: Any,
        logits: Any,
        labels: Any,
        regularization_losses: Any = None,
    ) -> dict[str, HeadMetric]:
        logits = check_logits_final_dim(logits, self.logits_dimension)
        labels = self._processed_labels(logits, labels)
        unweighted, weights = self._unweighted_loss_and_weights(logits, labels, features)
        with name_scope(None, "metrics"):
            values = self._metric_values(labels, logits, unweighted, _metric_weights(weights))
            if regularization_losses is not None:
                values[self._summary_key("regularization_loss")] = metrics_impl.mean(
                    math_ops.add_n(list(regularization_losses))
                )
        for k, v in values.items():
            eval_metrics[k]._set(v)
        return eval_metrics

    def create_estimator_spec(
        self,
        features: Any,
        mode: str,
        logits: Any,
        labels: Any = None,
        optimizer: Any = None,
        trainable_variables: Any = None,
        train_op_fn: Any = None,
        update_ops: Any = None,
        regularization_losses: Any = None,
    ) -> EstimatorSpec:
        with name_scope(self._name, "head"):
            predictions = self.predictions(logits)
            return spec_of_mode(
                self,
                mode,
                features,
                logits,
                labels,
                predictions,
                lambda: self._export_outputs(predictions),
                regularization_losses,
                lambda loss: create_train_op(
                    optimizer, trainable_variables, train_op_fn, update_ops, loss
                ),
                self._summary_key,
            )


def check_prediction_keys(keys: Any, valid: Sequence[str]) -> None:
    for k in keys:
        if k not in valid:
            raise ValueError(f"Prediction key must be in PredictionKeys, given: {k}.")
