"""The canned estimators' heads (TF 1.15's v1 `head.py`): from logits and labels, the loss
(reduced with SUM, as v1 canned estimators do), predictions, eval metrics, export outputs
and the EstimatorSpec for each mode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    GraphKeys,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.estimator import export_output
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.losses import losses_impl
from tfcluster.lib.metrics import metrics_impl
from tfcluster.lib.saved_model import signature_constants
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    logging_ops,
    lookup_ops,
    math_ops,
    nn_ops,
    string_ops,
)
from tfcluster.ops.summary_ops import scalar as summary_scalar

_DEFAULT_SERVING_KEY = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_CLASSIFY = "classification"
_REGRESS = "regression"
_PREDICT = "predict"


def _labels_tensor(labels: Any, logits: Tensor, expected_dim: int) -> Tensor:
    if labels is None:
        raise ValueError(
            "You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: "
            "Check that your data contain your label feature. Check that your input_fn "
            "properly parses and returns labels."
        )
    if isinstance(labels, dict):
        if len(labels) != 1:
            raise ValueError(f"labels must be a Tensor, given a dict {labels}")
        labels = next(iter(labels.values()))
    if isinstance(labels, SparseTensor):
        raise ValueError("SparseTensor labels are not supported.")
    labels = convert_to_tensor(labels)
    if labels.shape.ndims == 1:
        labels = array_ops.expand_dims(labels, -1)
    dim = labels.shape[-1] if labels.shape.ndims else None
    dim = getattr(dim, "value", dim)
    if dim is not None and int(dim) != expected_dim:
        raise ValueError(
            f"Mismatched label shape. Expected labels dimension={expected_dim}.  "
            f"Received {int(dim)}. "
            "Suggested Fix: If your classifier expects one-hot encoding label, check your "
            "n_classes argument to the estimator and/or the shape of your label. Otherwise, "
            "check the shape of your label."
        )
    return labels


def _weights(
    features: Any, weight_column: Any, logits: Tensor, allow_per_logit_weights: bool = False
) -> Any:
    """TF's _get_weights_and_check_match_logits: the weight column read as a numeric column
    of shape (1,) (its v1 protocol), cast to float (`weights`), and checked against the
    logits' shape ([D0..DN] or [D0..DN, 1], or [D0..DN, logits_dimension] when per-logit
    weights are allowed) when the step runs."""
    from tfcluster.lib.feature_column.base import LazyBuilder, v1_protocol
    from tfcluster.lib.feature_column.dense_columns import _NumericColumn, numeric_column

    if allow_per_logit_weights:
        err = (
            "weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or "
            "[D0, D1, ... DN, logits_dimension]"
        )
    else:
        err = "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]"
    values = [*(features.values() if isinstance(features, dict) else []), logits]
    with name_scope(None, "weights", values) as scope:
        if weight_column is None:
            return 1.0
        if isinstance(weight_column, str):
            weight_column = numeric_column(key=weight_column, shape=(1,))
        if not isinstance(weight_column, _NumericColumn):
            raise TypeError(
                "Weight column must be either a string or _NumericColumn. Given type: "
                f"{type(weight_column)}."
            )
        with v1_protocol():
            weights = weight_column._get_dense_tensor(LazyBuilder(features))
        if not (weights.dtype.is_floating or weights.dtype.is_integer):
            raise ValueError(
                f"Weight column should be castable to float. Given dtype: {weights.dtype}"
            )
        internal_deprecations.called_internally(internal_deprecations.TO_FLOAT)
        weights = math_ops.cast(weights, dtypes.float32, name="weights")
        weights_shape = array_ops.shape(weights, name="weights_shape")
        logits_shape = array_ops.shape(logits, name="logits_shape")
        data = ["logits_shape: ", logits_shape, "weights_shape: ", weights_shape]
        if (
            weights.shape.ndims is not None
            and logits.shape.ndims is not None
            and weights.shape.ndims == logits.shape.ndims - 1
        ):
            check = check_ops.assert_equal(logits_shape[:-1], weights_shape, message=err, data=data)
            with control_dependencies([check]):
                return array_ops.expand_dims(weights, -1, name=scope)
        supported = array_ops.concat([logits_shape[:-1], [1]], axis=0)
        if allow_per_logit_weights:
            condition = math_ops.reduce_any(
                [
                    math_ops.reduce_all(math_ops.equal(logits_shape, weights_shape)),
                    math_ops.reduce_all(math_ops.equal(supported, weights_shape)),
                ]
            )
            check = logging_ops.Assert(condition=condition, data=[err, *data])
        else:
            check = check_ops.assert_equal(supported, weights_shape, message=err, data=data)
        with control_dependencies([check]):
            return array_ops.identity(weights, name=scope)


def _class_id_labels(labels: Tensor, n_classes: int, vocabulary: Sequence[str] | None) -> Tensor:
    if vocabulary:
        if labels.dtype != dtypes.string:
            raise ValueError("Labels dtype should be string if there is a vocabulary.")
        table = lookup_ops.index_table_from_tensor(
            vocabulary_list=tuple(vocabulary), name="class_id_lookup"
        )
        return table.lookup(labels)
    if labels.dtype == dtypes.string:
        raise ValueError("Labels dtype should be integer. Instead got string.")
    labels = math_ops.cast(labels, dtypes.int64)
    checks = [
        check_ops.assert_less(
            labels, math_ops.cast(n_classes, dtypes.int64), message="Labels must <= n_classes - 1"
        ),
        check_ops.assert_non_negative(labels, message="Labels must >= 0"),
    ]
    with control_dependencies(checks):
        return array_ops.identity(labels)


class _Head:
    name: str | None = None
    logits_dimension = 1
    _allow_per_logit_weights = False

    def __init__(self, weight_column: Any, loss_reduction: str) -> None:
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction

    def create_estimator_spec(
        self,
        features: Any,
        mode: str,
        logits: Tensor,
        labels: Any = None,
        optimizer: Any = None,
        train_op_fn: Callable[[Tensor], Any] | None = None,
        regularization_losses: Any = None,
    ) -> EstimatorSpec:
        with name_scope("head"):
            # TF's _check_logits_final_dim: to_float(logits).
            internal_deprecations.called_internally(internal_deprecations.TO_FLOAT)
            logits = convert_to_tensor(logits)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=mode,
                    predictions=predictions,
                    export_outputs=self._export_outputs(predictions),
                )
            unreduced, label_t = self._unreduced_loss(logits, labels)
            weights = _weights(features, self._weight_column, logits, self._allow_per_logit_weights)
            training_loss = losses_impl.compute_weighted_loss(
                unreduced, weights=weights, reduction=self._loss_reduction
            )
            if regularization_losses:
                reg = math_ops.add_n(regularization_losses)
                total = math_ops.add_n([training_loss, reg])
            else:
                reg, total = None, training_loss
            if mode == ModeKeys.EVAL:
                metrics = self._eval_metrics(label_t, predictions, unreduced, weights, logits)
                if reg is not None:
                    metrics["regularization_loss"] = metrics_impl.mean(reg)
                return EstimatorSpec(
                    mode=mode, predictions=predictions, loss=total, eval_metric_ops=metrics
                )
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                from tfcluster.training.training_util import get_global_step

                train_op = optimizer.minimize(total, global_step=get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(total)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            # TF 1.15's v1 heads run UPDATE_OPS (batch normalization's moving statistics)
            # with the train op.
            update_ops = get_collection(GraphKeys.UPDATE_OPS)
            if update_ops:
                train_op = control_flow_ops.group(train_op, *update_ops)
            # TF 1.15's v1 heads also summarize the mean loss under SUM reduction (the
            # canned estimators' default): `head/truediv`, which programs log by name.
            mean_loss = None
            if self._loss_reduction == losses_impl.Reduction.SUM:
                example_weight_sum = math_ops.reduce_sum(weights * array_ops.ones_like(unreduced))
                mean_loss = training_loss / example_weight_sum
        with name_scope(""):
            summary_scalar("loss", total)
            if mean_loss is not None:
                summary_scalar("average_loss", mean_loss)
            if reg is not None:
                summary_scalar("regularization_loss", reg)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=total, train_op=train_op)

    def _predictions(self, logits: Tensor) -> dict[str, Tensor]:
        raise NotImplementedError

    def _unreduced_loss(self, logits: Tensor, labels: Any) -> tuple[Tensor, Tensor]:
        raise NotImplementedError

    def _eval_metrics(
        self,
        labels: Tensor,
        predictions: dict[str, Tensor],
        unreduced: Tensor,
        weights: Any,
        logits: Tensor,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        raise NotImplementedError


def _class_strings(class_ids: Tensor, n_classes: int, vocabulary: Sequence[str] | None) -> Tensor:
    if vocabulary:
        table = convert_to_tensor(list(vocabulary), dtype=dtypes.string)
        return array_ops.gather(table, class_ids)
    return string_ops.as_string(class_ids, name="str_classes")


def _all_class_ids(logits: Tensor, n_classes: int) -> Tensor:
    batch = array_ops.shape(logits)[0]
    row = math_ops.range(n_classes)
    return array_ops.tile(array_ops.expand_dims(row, 0), array_ops.stack([batch, 1]))


def _all_classes(logits: Tensor, n_classes: int, vocabulary: Sequence[str] | None) -> Tensor:
    ids = _all_class_ids(logits, n_classes)
    if vocabulary:
        return array_ops.gather(convert_to_tensor(list(vocabulary), dtype=dtypes.string), ids)
    return string_ops.as_string(ids, name="all_classes")


class BinaryLogisticHead(_Head):
    """Sigmoid cross-entropy over one logit per example."""

    def __init__(
        self,
        weight_column: Any = None,
        thresholds: Any = None,
        label_vocabulary: Any = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        super().__init__(weight_column, loss_reduction)
        self._thresholds = tuple(thresholds or ())
        self._vocabulary = label_vocabulary

    def _predictions(self, logits: Tensor) -> dict[str, Tensor]:
        with name_scope("predictions"):
            logistic = math_ops.sigmoid(logits, name="logistic")
            two = array_ops.concat(
                [array_ops.zeros_like(logits), logits], 1, name="two_class_logits"
            )
            probabilities = nn_ops.softmax(two, name="probabilities")
            class_ids = array_ops.expand_dims(math_ops.argmax(two, axis=1, name="class_ids"), -1)
            return {
                "logits": logits,
                "logistic": logistic,
                "probabilities": probabilities,
                "class_ids": class_ids,
                "classes": _class_strings(class_ids, 2, self._vocabulary),
                "all_class_ids": _all_class_ids(logits, 2),
                "all_classes": _all_classes(logits, 2, self._vocabulary),
            }

    def _unreduced_loss(self, logits: Tensor, labels: Any) -> tuple[Tensor, Tensor]:
        labels = _labels_tensor(labels, logits, 1)
        labels = _class_id_labels(labels, 2, self._vocabulary)
        labels = math_ops.cast(labels, dtypes.float32)
        loss = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="loss")
        return loss, labels

    def _eval_metrics(
        self,
        labels: Tensor,
        predictions: dict[str, Tensor],
        unreduced: Tensor,
        weights: Any,
        logits: Tensor,
    ) -> dict[str, Any]:
        logistic = predictions["logistic"]
        class_ids = predictions["class_ids"]
        w = None if isinstance(weights, float) else weights
        with name_scope(None, "metrics"):
            labels_mean = metrics_impl.mean(labels, weights=w, name="label/mean")
            out = {
                "average_loss": metrics_impl.mean(unreduced, weights=w, name="average_loss"),
                "accuracy": metrics_impl.accuracy(labels, class_ids, weights=w, name="accuracy"),
                "precision": metrics_impl.precision(labels, class_ids, weights=w, name="precision"),
                "recall": metrics_impl.recall(labels, class_ids, weights=w, name="recall"),
                "prediction/mean": metrics_impl.mean(logistic, weights=w, name="prediction/mean"),
                "label/mean": labels_mean,
                "accuracy_baseline": _accuracy_baseline(labels_mean),
                "auc": metrics_impl.auc(labels, logistic, weights=w, curve="ROC", name="auc"),
                "auc_precision_recall": metrics_impl.auc(
                    labels, logistic, weights=w, curve="PR", name="auc_precision_recall"
                ),
            }
            for t in self._thresholds:
                out[f"accuracy/positive_threshold_{t:g}"] = metrics_impl.accuracy(
                    labels, math_ops.cast(logistic >= t, dtypes.float32), weights=w
                )
        return out

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classes = predictions["all_classes"]
        classification = export_output.ClassificationOutput(
            scores=predictions["probabilities"], classes=classes
        )
        return {
            _DEFAULT_SERVING_KEY: classification,
            _CLASSIFY: classification,
            _REGRESS: export_output.RegressionOutput(value=predictions["logistic"]),
            _PREDICT: export_output.PredictOutput(predictions),
        }


def _accuracy_baseline(labels_mean: tuple[Tensor, Any]) -> tuple[Tensor, Any]:
    value, update = labels_mean
    return (
        math_ops.maximum(value, 1.0 - value),
        math_ops.maximum(update, 1.0 - update),
    )


def _assert_n_classes(n_classes: int) -> None:
    """TF 1.15's _validate_n_classes: n_classes made a tensor and asserted greater than 2 in
    the default graph the head is made in (a canned classifier's constructor), so its ops
    take names there, and a finalized default graph refuses them (RuntimeError)."""
    n = convert_to_tensor(n_classes)
    assert_n = check_ops.assert_greater(n, 2, message="n_classes must be greater than 2")
    with control_dependencies([assert_n]):
        control_flow_ops.no_op()


class MultiClassHead(_Head):
    """Softmax cross-entropy over n_classes logits per example."""

    def __init__(
        self,
        n_classes: int,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        _assert_n_classes(n_classes)
        super().__init__(weight_column, loss_reduction)
        self._n_classes = n_classes
        self._vocabulary = label_vocabulary
        self.logits_dimension = n_classes

    def _predictions(self, logits: Tensor) -> dict[str, Tensor]:
        with name_scope("predictions"):
            class_ids = array_ops.expand_dims(math_ops.argmax(logits, axis=1, name="class_ids"), -1)
            return {
                "logits": logits,
                "probabilities": nn_ops.softmax(logits, name="probabilities"),
                "class_ids": class_ids,
                "classes": _class_strings(class_ids, self._n_classes, self._vocabulary),
                "all_class_ids": _all_class_ids(logits, self._n_classes),
                "all_classes": _all_classes(logits, self._n_classes, self._vocabulary),
            }

    def _unreduced_loss(self, logits: Tensor, labels: Any) -> tuple[Tensor, Tensor]:
        labels = _labels_tensor(labels, logits, 1)
        labels = _class_id_labels(labels, self._n_classes, self._vocabulary)
        loss = losses_impl.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, reduction="none"
        )
        return array_ops.expand_dims(loss, -1), labels

    def _eval_metrics(
        self,
        labels: Tensor,
        predictions: dict[str, Tensor],
        unreduced: Tensor,
        weights: Any,
        logits: Tensor,
    ) -> dict[str, Any]:
        w = None if isinstance(weights, float) else weights
        with name_scope(None, "metrics"):
            return {
                "average_loss": metrics_impl.mean(unreduced, weights=w, name="average_loss"),
                "accuracy": metrics_impl.accuracy(
                    labels, predictions["class_ids"], weights=w, name="accuracy"
                ),
            }

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classification = export_output.ClassificationOutput(
            scores=predictions["probabilities"], classes=predictions["all_classes"]
        )
        return {
            _DEFAULT_SERVING_KEY: classification,
            _CLASSIFY: classification,
            _PREDICT: export_output.PredictOutput(predictions),
        }


class RegressionHead(_Head):
    """Mean squared error over label_dimension outputs per example."""

    _allow_per_logit_weights = True

    def __init__(
        self,
        label_dimension: int = 1,
        weight_column: Any = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        super().__init__(weight_column, loss_reduction)
        self.logits_dimension = label_dimension

    def _predictions(self, logits: Tensor) -> dict[str, Tensor]:
        with name_scope("predictions"):
            return {"predictions": array_ops.identity(logits, name="predictions")}

    def _unreduced_loss(self, logits: Tensor, labels: Any) -> tuple[Tensor, Tensor]:
        labels = _labels_tensor(labels, logits, self.logits_dimension)
        labels = math_ops.cast(labels, dtypes.float32)
        loss = losses_impl.mean_squared_error(labels=labels, predictions=logits, reduction="none")
        return loss, labels

    def _eval_metrics(
        self,
        labels: Tensor,
        predictions: dict[str, Tensor],
        unreduced: Tensor,
        weights: Any,
        logits: Tensor,
    ) -> dict[str, Any]:
        w = None if isinstance(weights, float) else weights
        with name_scope(None, "metrics"):
            return {
                "average_loss": metrics_impl.mean(unreduced, weights=w, name="average_loss"),
                "label/mean": metrics_impl.mean(labels, weights=w, name="label/mean"),
                "prediction/mean": metrics_impl.mean(
                    predictions["predictions"], weights=w, name="prediction/mean"
                ),
            }

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        regression = export_output.RegressionOutput(value=predictions["predictions"])
        return {
            _DEFAULT_SERVING_KEY: regression,
            _REGRESS: regression,
            _PREDICT: export_output.PredictOutput(predictions),
        }


def classification_head(
    n_classes: int,
    weight_column: Any = None,
    label_vocabulary: Any = None,
    loss_reduction: str = "weighted_sum",
) -> _Head:
    if n_classes == 2:
        return BinaryLogisticHead(
            weight_column, label_vocabulary=label_vocabulary, loss_reduction=loss_reduction
        )
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)
