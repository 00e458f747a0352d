"""The public heads of TF 1.15's tf.estimator (`tensorflow_estimator/.../head/`): Head,
BinaryClassHead, MultiClassHead, MultiLabelHead, RegressionHead, PoissonRegressionHead,
LogisticRegressionHead. Unlike the canned estimators' own heads (heads.py) they reduce the
loss with SUM_OVER_BATCH_SIZE by default, take keras-style reductions ('sum',
'sum_over_batch_size'), suffix metric and summary keys with the head's name, and train with
`train_op_fn` or a keras optimizer (`optimizer.get_updates(loss, trainable_variables)`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.estimator import export_output, heads
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.losses import losses_impl
from tfcluster.lib.metrics import metrics_impl
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    lookup_ops,
    math_ops,
    nn_ops,
    sparse_ops,
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
    from tfcluster.lib.estimator.estimator import _fn_args

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
    from tfcluster.lib.estimator.estimator import _fn_args

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


def _check_logits_final_dim(logits: Any, expected: int) -> Tensor:
    logits = convert_to_tensor(logits)
    if logits.shape.ndims is not None:
        dim = logits.shape[-1] if logits.shape.ndims else None
        dim = getattr(dim, "value", dim)
        if logits.shape.ndims < 2 or (dim is not None and int(dim) != expected):
            raise ValueError(
                f"logits shape must be [D0, D1, ... DN, logits_dimension], got {logits.shape}."
            )
    return logits


def _check_label_range(labels: Tensor, n_classes: int, message: str | None = None) -> Tensor:
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


def _weights(features: Any, weight_column: Any, logits: Tensor) -> Any:
    if weight_column is None:
        return 1.0
    return heads._weights(features, weight_column, logits)


def _metric_weights(weights: Any) -> Any:
    return None if isinstance(weights, float) else weights


def _broadcast(weights: Any, values: Tensor) -> Any:
    """Weights broadcast to `values` (the keras metrics' sample_weight broadcasting)."""
    if weights is None:
        return None
    return math_ops.multiply(weights, array_ops.ones_like(values, dtype=dtypes.float32))


def _auc(labels: Tensor, scores: Tensor, weights: Any, curve: str) -> tuple[Tensor, Any]:
    # keras.metrics.AUC: 200 thresholds, careful (Davis & Goadrich) interpolation for PR.
    return metrics_impl.auc(
        math_ops.cast(labels, dtypes.bool_),
        scores,
        weights=_broadcast(weights, scores),
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
            train_op = optimizer.get_updates(loss, list(trainable_variables))[0]
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


class _SingleHead(Head):
    """What the single-objective heads share: loss, spec per mode, metric plumbing."""

    _name: str | None
    _loss_reduction: str
    _loss_fn: Callable[..., Any] | None
    _weight_column: Any

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
        return unweighted, _weights(features, self._weight_column, logits)

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        with name_scope("losses"):
            logits = _check_logits_final_dim(logits, self.logits_dimension)
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
        logits = _check_logits_final_dim(logits, self.logits_dimension)
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
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._export_outputs(predictions),
                )
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                updated = self.update_metrics(
                    self.metrics(regularization_losses),
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
            train_op = create_train_op(
                optimizer, trainable_variables, train_op_fn, update_ops, loss
            )
        create_summaries(loss, regularization_losses, self._summary_key)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op)


def _check_prediction_keys(keys: Any, valid: Sequence[str]) -> None:
    for k in keys:
        if k not in valid:
            raise ValueError(f"Prediction key must be in PredictionKeys, given: {k}.")


class _ClassHead(_SingleHead):
    _n_classes: int
    _label_vocabulary: Any

    def _class_ids(self, labels: Tensor) -> Tensor:
        if self._label_vocabulary is not None:
            if labels.dtype != dtypes.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary.")
            table = lookup_ops.index_table_from_tensor(
                vocabulary_list=tuple(self._label_vocabulary), name="class_id_lookup"
            )
            return table.lookup(labels)
        if labels.dtype == dtypes.string:
            raise ValueError("Labels dtype should be integer. Instead got string.")
        return labels

    def _classes(self, class_ids: Tensor) -> Tensor:
        return heads._class_strings(class_ids, self._n_classes, self._label_vocabulary)

    def _all(self, logits: Tensor) -> tuple[Tensor, Tensor]:
        return (
            heads._all_class_ids(logits, self._n_classes),
            heads._all_classes(logits, self._n_classes, self._label_vocabulary),
        )

    def _classification_output(self, predictions: dict[str, Tensor]) -> Any:
        return export_output.ClassificationOutput(
            scores=predictions["probabilities"],
            classes=heads._all_classes(
                predictions["probabilities"], self._n_classes, self._label_vocabulary
            ),
        )


class BinaryClassHead(_ClassHead):
    """Sigmoid cross-entropy over one logit per example."""

    def __init__(
        self,
        weight_column: Any = None,
        thresholds: Any = None,
        label_vocabulary: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Any = None,
        name: str | None = None,
    ) -> None:
        thresholds = tuple(thresholds) if thresholds else ()
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise TypeError(
                f"label_vocabulary should be a list or tuple. Given type: {type(label_vocabulary)}"
            )
        for t in thresholds:
            if t <= 0.0 or t >= 1.0:
                raise ValueError(f"thresholds not in (0, 1): {thresholds}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._n_classes = 2

    @property
    def logits_dimension(self) -> int:
        return 1

    def _processed_labels(self, logits: Tensor, labels: Any) -> Tensor:
        labels = heads._labels_tensor(labels, logits, 1)
        labels = math_ops.cast(self._class_ids(labels), dtypes.float32)
        return _check_label_range(labels, 2)

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        valid = [
            "logits",
            "logistic",
            "probabilities",
            "class_ids",
            "classes",
            "all_class_ids",
            "all_classes",
        ]
        if keys:
            _check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = _check_logits_final_dim(logits, 1)
        out: dict[str, Tensor] = {}
        with name_scope("predictions"):
            if "logits" in keys:
                out["logits"] = logits
            if "logistic" in keys:
                out["logistic"] = math_ops.sigmoid(logits, name="logistic")
            two = array_ops.concat(
                [array_ops.zeros_like(logits), logits], -1, name="two_class_logits"
            )
            if "probabilities" in keys:
                out["probabilities"] = nn_ops.softmax(two, name="probabilities")
            if "class_ids" in keys or "classes" in keys:
                class_ids = array_ops.expand_dims(
                    math_ops.argmax(two, axis=-1, name="class_ids"), -1
                )
                if "class_ids" in keys:
                    out["class_ids"] = class_ids
                if "classes" in keys:
                    out["classes"] = self._classes(class_ids)
            ids, classes = self._all(logits)
            if "all_class_ids" in keys:
                out["all_class_ids"] = ids
            if "all_classes" in keys:
                out["all_classes"] = classes
        return out

    def _metric_keys(self, regularization_losses: Any) -> list[str]:
        keys = [
            "average_loss",
            "accuracy",
            "precision",
            "recall",
            "prediction/mean",
            "label/mean",
            "accuracy_baseline",
            "auc",
            "auc_precision_recall",
        ]
        for t in self._thresholds:
            keys += [
                f"accuracy/positive_threshold_{t:g}",
                f"precision/positive_threshold_{t:g}",
                f"recall/positive_threshold_{t:g}",
            ]
        return [self._summary_key(k) for k in keys]

    def _metric_values(
        self, labels: Tensor, logits: Tensor, unweighted: Tensor, weights: Any
    ) -> dict[str, tuple[Tensor, Any]]:
        logistic = math_ops.sigmoid(logits)
        class_ids = math_ops.cast(logistic > 0.5, dtypes.int64)
        label_mean = metrics_impl.mean(labels, weights=_broadcast(weights, labels))
        values = {
            "average_loss": metrics_impl.mean(unweighted, weights=weights),
            "accuracy": metrics_impl.accuracy(labels, class_ids, weights=weights),
            "precision": metrics_impl.precision(labels, class_ids, weights=weights),
            "recall": metrics_impl.recall(labels, class_ids, weights=weights),
            "prediction/mean": metrics_impl.mean(logistic, weights=_broadcast(weights, logistic)),
            "label/mean": label_mean,
            "accuracy_baseline": heads._accuracy_baseline(label_mean),
            "auc": _auc(labels, logistic, weights, "ROC"),
            "auc_precision_recall": _auc(labels, logistic, weights, "PR"),
        }
        for t in self._thresholds:
            above = logistic > t
            values[f"accuracy/positive_threshold_{t:g}"] = metrics_impl.accuracy(
                labels, math_ops.cast(above, dtypes.float32), weights=weights
            )
            values[f"precision/positive_threshold_{t:g}"] = metrics_impl.precision(
                labels, above, weights=weights
            )
            values[f"recall/positive_threshold_{t:g}"] = metrics_impl.recall(
                labels, above, weights=weights
            )
        return {self._summary_key(k): v for k, v in values.items()}

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classification = self._classification_output(predictions)
        return {
            DEFAULT_SERVING_KEY: classification,
            CLASSIFY_SERVING_KEY: classification,
            REGRESS_SERVING_KEY: export_output.RegressionOutput(value=predictions["logistic"]),
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


class MultiClassHead(_ClassHead):
    """Softmax cross-entropy over n_classes logits per example."""

    def __init__(
        self,
        n_classes: int,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Any = None,
        name: str | None = None,
    ) -> None:
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        if n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise ValueError(
                "label_vocabulary should be a list or a tuple. "
                f"Given type: {type(label_vocabulary)}"
            )
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _processed_labels(self, logits: Tensor, labels: Any) -> Tensor:
        labels = heads._labels_tensor(labels, logits, 1)
        ids = self._class_ids(labels)
        if self._label_vocabulary is None:
            ids = _check_label_range(math_ops.cast(ids, dtypes.int64), self._n_classes)
        return ids

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        loss = losses_impl.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, reduction=losses_impl.Reduction.NONE
        )
        return array_ops.expand_dims(loss, -1)

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        valid = ["logits", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"]
        if keys:
            _check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = _check_logits_final_dim(logits, self._n_classes)
        out: dict[str, Tensor] = {}
        with name_scope("predictions"):
            if "logits" in keys:
                out["logits"] = logits
            if "probabilities" in keys:
                out["probabilities"] = nn_ops.softmax(logits, name="probabilities")
            if "class_ids" in keys or "classes" in keys:
                class_ids = array_ops.expand_dims(
                    math_ops.argmax(logits, axis=-1, name="class_ids"), -1
                )
                if "class_ids" in keys:
                    out["class_ids"] = class_ids
                if "classes" in keys:
                    out["classes"] = self._classes(class_ids)
            ids, classes = self._all(logits)
            if "all_class_ids" in keys:
                out["all_class_ids"] = ids
            if "all_classes" in keys:
                out["all_classes"] = classes
        return out

    def _metric_keys(self, regularization_losses: Any) -> list[str]:
        return [self._summary_key("average_loss"), self._summary_key("accuracy")]

    def _metric_values(
        self, labels: Tensor, logits: Tensor, unweighted: Tensor, weights: Any
    ) -> dict[str, tuple[Tensor, Any]]:
        class_ids = array_ops.expand_dims(math_ops.argmax(logits, axis=-1), -1)
        return {
            self._summary_key("average_loss"): metrics_impl.mean(unweighted, weights=weights),
            self._summary_key("accuracy"): metrics_impl.accuracy(
                labels, class_ids, weights=weights
            ),
        }

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classification = self._classification_output(predictions)
        return {
            DEFAULT_SERVING_KEY: classification,
            CLASSIFY_SERVING_KEY: classification,
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


class MultiLabelHead(_ClassHead):
    """Sigmoid cross-entropy per class, averaged over the classes of an example; labels are
    multi-hot (or a SparseTensor of class ids / vocabulary strings)."""

    def __init__(
        self,
        n_classes: int,
        weight_column: Any = None,
        thresholds: Any = None,
        label_vocabulary: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Any = None,
        classes_for_class_based_metrics: Any = None,
        name: str | None = None,
    ) -> None:
        if n_classes is None or n_classes < 2:
            raise ValueError(
                f"n_classes must be > 1 for multi-label classification. Given: {n_classes}"
            )
        thresholds = tuple(thresholds) if thresholds else ()
        for t in thresholds:
            if t <= 0.0 or t >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {t}")
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError(
                    "label_vocabulary must be a list or tuple. "
                    f"Given type: {type(label_vocabulary)}"
                )
            if len(label_vocabulary) != n_classes:
                raise ValueError(
                    f"Length of label_vocabulary must be n_classes ({n_classes}). "
                    f"Given: {len(label_vocabulary)}"
                )
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        class_ids: tuple[int, ...] = ()
        if classes_for_class_based_metrics:
            wanted = tuple(classes_for_class_based_metrics)
            if isinstance(wanted[0], str):
                if not label_vocabulary:
                    raise ValueError(
                        "label_vocabulary must be provided when "
                        "classes_for_class_based_metrics are sting."
                    )
                class_ids = tuple(list(label_vocabulary).index(c) for c in wanted)
            else:
                for c in wanted:
                    if c < 0 or c >= n_classes:
                        raise ValueError(
                            "All classes_for_class_based_metrics must be in range "
                            f"[0, {n_classes - 1}]. Given: {c}"
                        )
                class_ids = tuple(int(c) for c in wanted)
        self._n_classes = n_classes
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._class_metrics = class_ids

    @property
    def logits_dimension(self) -> int:
        return self._n_classes

    def _processed_labels(self, logits: Tensor, labels: Any) -> Tensor:
        if labels is None:
            return heads._labels_tensor(labels, logits, self._n_classes)
        if isinstance(labels, SparseTensor):
            values = labels.values
            if labels.dtype == dtypes.string:
                values = self._class_ids(values)
            else:
                if not labels.dtype.is_integer:
                    raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
                values = _check_label_range(
                    values,
                    self._n_classes,
                    f"labels must be an integer SparseTensor with values in [0, {self._n_classes})",
                )
            ids = SparseTensor(labels.indices, values, labels.dense_shape)
            dense = math_ops.cast(
                sparse_ops.sparse_to_indicator(ids, self._n_classes), dtypes.int64
            )
        else:
            dense = _check_label_range(
                convert_to_tensor(labels),
                2,
                "labels must be an integer indicator Tensor with values in [0, 1]",
            )
        return heads._labels_tensor(dense, logits, self._n_classes)

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        loss = losses_impl.sigmoid_cross_entropy(
            multi_class_labels=labels, logits=logits, reduction=losses_impl.Reduction.NONE
        )
        return math_ops.reduce_mean(loss, axis=-1, keepdims=True)

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        valid = ["logits", "probabilities"]
        if keys:
            _check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = _check_logits_final_dim(logits, self._n_classes)
        out: dict[str, Tensor] = {}
        with name_scope("predictions"):
            if "logits" in keys:
                out["logits"] = logits
            if "probabilities" in keys:
                out["probabilities"] = math_ops.sigmoid(logits, name="probabilities")
        return out

    def _class_names(self) -> list[str]:
        if self._label_vocabulary is None:
            return [f"class{c}" for c in self._class_metrics]
        return [str(self._label_vocabulary[c]) for c in self._class_metrics]

    def _metric_keys(self, regularization_losses: Any) -> list[str]:
        keys = ["average_loss", "auc", "auc_precision_recall"]
        for t in self._thresholds:
            keys += [
                f"accuracy/positive_threshold_{t:g}",
                f"precision/positive_threshold_{t:g}",
                f"recall/positive_threshold_{t:g}",
            ]
        for c in self._class_names():
            keys += [f"probability_mean/{c}", f"auc/{c}", f"auc_precision_recall/{c}"]
        return [self._summary_key(k) for k in keys]

    def _metric_values(
        self, labels: Tensor, logits: Tensor, unweighted: Tensor, weights: Any
    ) -> dict[str, tuple[Tensor, Any]]:
        probabilities = math_ops.sigmoid(logits)
        values = {
            "average_loss": metrics_impl.mean(unweighted, weights=weights),
            "auc": _auc(labels, probabilities, weights, "ROC"),
            "auc_precision_recall": _auc(labels, probabilities, weights, "PR"),
        }
        wide = _broadcast(weights, probabilities)
        for t in self._thresholds:
            above = probabilities > t
            values[f"accuracy/positive_threshold_{t:g}"] = metrics_impl.accuracy(
                labels, math_ops.cast(above, labels.dtype), weights=wide
            )
            values[f"precision/positive_threshold_{t:g}"] = metrics_impl.precision(
                labels, above, weights=wide
            )
            values[f"recall/positive_threshold_{t:g}"] = metrics_impl.recall(
                labels, above, weights=wide
            )
        for c, tag in zip(self._class_metrics, self._class_names()):
            p = probabilities[..., c : c + 1]
            lab = labels[..., c : c + 1]
            values[f"probability_mean/{tag}"] = metrics_impl.mean(p, weights=_broadcast(weights, p))
            values[f"auc/{tag}"] = _auc(lab, p, weights, "ROC")
            values[f"auc_precision_recall/{tag}"] = _auc(lab, p, weights, "PR")
        return {self._summary_key(k): v for k, v in values.items()}

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classification = self._classification_output(predictions)
        return {
            DEFAULT_SERVING_KEY: classification,
            CLASSIFY_SERVING_KEY: classification,
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


class RegressionHead(_SingleHead):
    """Mean squared error (or `loss_fn`) over label_dimension outputs per example;
    `inverse_link_fn` maps logits to predictions."""

    def __init__(
        self,
        label_dimension: int = 1,
        weight_column: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Any = None,
        inverse_link_fn: Any = None,
        name: str | None = None,
    ) -> None:
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._logits_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self) -> int:
        return self._logits_dimension

    def _loss_dimension(self) -> int:
        return self._logits_dimension

    def _processed_labels(self, logits: Tensor, labels: Any) -> Tensor:
        labels = heads._labels_tensor(labels, logits, self._logits_dimension)
        return math_ops.cast(labels, dtypes.float32)

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        return losses_impl.mean_squared_error(
            labels=labels, predictions=logits, reduction=losses_impl.Reduction.NONE
        )

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        logits = _check_logits_final_dim(logits, self._logits_dimension)
        with name_scope("predictions"):
            if self._inverse_link_fn:
                return {"predictions": self._inverse_link_fn(logits), "logits": logits}
            return {"predictions": logits}

    def _metric_keys(self, regularization_losses: Any) -> list[str]:
        return [self._summary_key(k) for k in ("average_loss", "prediction/mean", "label/mean")]

    def _metric_values(
        self, labels: Tensor, logits: Tensor, unweighted: Tensor, weights: Any
    ) -> dict[str, tuple[Tensor, Any]]:
        predicted = self._inverse_link_fn(logits) if self._inverse_link_fn else logits
        return {
            self._summary_key("average_loss"): metrics_impl.mean(unweighted, weights=weights),
            self._summary_key("label/mean"): metrics_impl.mean(
                labels, weights=_broadcast(weights, labels)
            ),
            self._summary_key("prediction/mean"): metrics_impl.mean(
                predicted, weights=_broadcast(weights, predicted)
            ),
        }

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        regression = export_output.RegressionOutput(value=predictions["predictions"])
        return {
            DEFAULT_SERVING_KEY: regression,
            REGRESS_SERVING_KEY: regression,
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }


def log_poisson_loss(targets: Tensor, log_input: Tensor, compute_full_loss: bool) -> Tensor:
    """tf.nn.log_poisson_loss: exp(log_input) - log_input * targets, plus Stirling's
    approximation of log(targets!) where targets > 1 when compute_full_loss."""
    result = math_ops.exp(log_input) - log_input * targets
    if not compute_full_loss:
        return result
    stirling = targets * math_ops.log(targets) - targets + 0.5 * math_ops.log(2 * math.pi * targets)
    zeros = array_ops.zeros_like(targets)
    small = math_ops.logical_and(targets >= zeros, targets <= array_ops.ones_like(targets))
    return result + array_ops.where(small, zeros, stirling)


class PoissonRegressionHead(RegressionHead):
    """Regression of counts: log-Poisson loss, predictions exp(logits)."""

    def __init__(
        self,
        label_dimension: int = 1,
        weight_column: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        compute_full_loss: bool = True,
        name: str | None = None,
    ) -> None:
        self._compute_full_loss = compute_full_loss
        super().__init__(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._poisson_loss,
            inverse_link_fn=math_ops.exp,
            name=name,
        )

    def _poisson_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        return log_poisson_loss(labels, logits, self._compute_full_loss)


class LogisticRegressionHead(RegressionHead):
    """Regression of probabilities in [0, 1]: sigmoid cross-entropy, predictions
    sigmoid(logits)."""

    def __init__(
        self,
        weight_column: Any = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        super().__init__(
            label_dimension=1,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._logistic_loss,
            inverse_link_fn=math_ops.sigmoid,
            name=name,
        )

    def _logistic_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        labels = _check_label_range(labels, 2, "Labels must be in range [0, 1]")
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)


def _no_op_train_fn(loss: Tensor) -> Any:
    return control_flow_ops.no_op()


def _default_export_output(outputs: dict[str, Any], head_name: str | None) -> Any:
    if len(outputs) == 1:
        return next(iter(outputs.values()))
    if DEFAULT_SERVING_KEY not in outputs:
        raise ValueError(
            f"{head_name} did not specify default export_outputs. Given: {outputs} "
            "Suggested fix: Use one of the heads in tf.estimator, or include key "
            f"{DEFAULT_SERVING_KEY} in export_outputs."
        )
    return outputs[DEFAULT_SERVING_KEY]


class MultiHead(Head):
    """Several named heads over one model: logits split (or a dict by head name), labels a
    dict by head name, losses summed (weighted by head_weights), metric keys suffixed with
    each head's name, predictions keyed (head name, key)."""

    def __init__(self, heads: Sequence[Head], head_weights: Any = None) -> None:
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(
                "heads and head_weights must have the same size. "
                f"Given len(heads): {len(heads)}. Given len(head_weights): {len(head_weights)}."
            )
        for head in heads:
            if not head.name:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._logits_dimension = sum(h.logits_dimension for h in heads)

    @property
    def name(self) -> str:
        return "_".join(str(h.name) for h in self._heads)

    @property
    def logits_dimension(self) -> int:
        return self._logits_dimension

    @property
    def loss_reduction(self) -> str:
        reductions = [h.loss_reduction for h in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(
                f"The loss_reduction must be the same for different heads. Given: {reductions}"
            )
        return reductions[0]

    def _split_logits(self, logits: Any) -> dict[str, Tensor]:
        logits = convert_to_tensor(logits)
        out: dict[str, Tensor] = {}
        with name_scope("split_logits"):
            last = logits.shape[-1] if logits.shape.ndims else None
            last = getattr(last, "value", last)
            dims = [h.logits_dimension for h in self._heads]
            if last is not None and int(last) != sum(dims):
                raise ValueError(
                    f"Could not split logits of shape {logits.shape!r} among the heads with "
                    f"individual logits dimensions: {dims!r}. The last dimension of the logits "
                    f"tensor should equal {sum(dims)} but is {int(last)}."
                )
            begin = 0
            for head in self._heads:
                out[str(head.name)] = logits[..., begin : begin + head.logits_dimension]
                begin += head.logits_dimension
        return out

    def _check_logits_and_labels(self, logits: Any, labels: Any = None) -> dict[str, Any]:
        names = [str(h.name) for h in self._heads]
        if isinstance(logits, dict):
            missing = [n for n in names if n not in logits]
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = dict(logits)
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict. Given: {labels}")
            missing = [n for n in names if n not in labels]
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        logits_dict = self._check_logits_and_labels(logits, labels)
        losses = [
            h.loss(labels[str(h.name)], logits_dict[str(h.name)], features, mode)
            for h in self._heads
        ]
        with name_scope("merge_losses"):
            if self._head_weights:
                losses = [math_ops.multiply(x, w) for x, w in zip(losses, self._head_weights)]
            merged = math_ops.add_n(losses)
            if regularization_losses is not None:
                return merged + math_ops.add_n(list(regularization_losses))
            return merged

    def predictions(self, logits: Any, keys: Any = None) -> dict[Any, Tensor]:
        logits_dict = self._check_logits_and_labels(logits)
        out: dict[Any, Tensor] = {}
        with name_scope("merge_pred"):
            for h in self._heads:
                for k, v in h.predictions(logits_dict[str(h.name)]).items():
                    out[(h.name, k)] = v
        return out

    def metrics(self, regularization_losses: Any = None) -> dict[str, HeadMetric]:
        out: dict[str, HeadMetric] = {}
        if regularization_losses is not None:
            key = self._summary_key("regularization_loss")
            out[key] = HeadMetric(key)
        for h in self._heads:
            key = f"loss/{h.name}"
            out[key] = HeadMetric(key)
            out.update(h.metrics())
        return out

    def update_metrics(
        self,
        eval_metrics: dict[str, HeadMetric],
        features: Any,
        logits: Any,
        labels: Any,
        regularization_losses: Any = None,
    ) -> dict[str, HeadMetric]:
        logits_dict = self._check_logits_and_labels(logits, labels)
        if regularization_losses is not None:
            eval_metrics[self._summary_key("regularization_loss")]._set(
                metrics_impl.mean(math_ops.add_n(list(regularization_losses)))
            )
        for h in self._heads:
            name = str(h.name)
            loss = h.loss(labels[name], logits_dict[name], features)
            eval_metrics[f"loss/{name}"]._set(metrics_impl.mean(loss))
            h.update_metrics(eval_metrics, features, logits_dict[name], labels[name])
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
        with name_scope(self.name, "multi_head"):
            logits_dict = self._check_logits_and_labels(logits, labels)
            specs = [
                h.create_estimator_spec(
                    features=features,
                    mode=mode,
                    logits=logits_dict[str(h.name)],
                    labels=labels[str(h.name)] if labels else None,
                    train_op_fn=_no_op_train_fn,
                )
                for h in self._heads
            ]
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._merge_export_outputs(specs),
                )
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                updated = self.update_metrics(
                    self.metrics(regularization_losses),
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
            train_op = create_train_op(
                optimizer, trainable_variables, train_op_fn, update_ops, loss
            )
            create_summaries(loss, regularization_losses, lambda key: key)
            return EstimatorSpec(mode=mode, loss=loss, train_op=train_op, predictions=predictions)

    def _merge_export_outputs(self, specs: list[EstimatorSpec]) -> dict[str, Any]:
        outputs = {
            DEFAULT_SERVING_KEY: _default_export_output(
                specs[0].export_outputs, self._heads[0].name
            )
        }
        merged: dict[str, Tensor] = {}
        for h, spec in zip(self._heads, specs):
            for k, v in spec.export_outputs.items():
                key = str(h.name) if k == DEFAULT_SERVING_KEY else f"{h.name}/{k}"
                outputs[key] = v
                if k == PREDICT_SERVING_KEY and isinstance(v, export_output.PredictOutput):
                    for kp, vp in v.outputs.items():
                        merged[f"{h.name}/{kp}"] = vp
        outputs[PREDICT_SERVING_KEY] = export_output.PredictOutput(merged)
        return outputs


__all__ = [
    "BinaryClassHead",
    "Head",
    "LogisticRegressionHead",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "PoissonRegressionHead",
    "RegressionHead",
]
