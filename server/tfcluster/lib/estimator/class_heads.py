"""BinaryClassHead, MultiClassHead and MultiLabelHead (TF 1.15's public classification
heads): predictions, losses, metrics and export outputs as TF makes them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.estimator import export_output, heads
from tfcluster.lib.estimator.head_base import (
    CLASSIFY_SERVING_KEY,
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    SUM_OVER_BATCH_SIZE,
    SingleHead,
    auc_metric,
    broadcast_weights,
    check_label_range,
    check_logits_final_dim,
    check_prediction_keys,
)
from tfcluster.lib.losses import losses_impl
from tfcluster.lib.metrics import metrics_impl
from tfcluster.ops import (
    array_ops,
    lookup_ops,
    math_ops,
    nn_ops,
    sparse_ops,
)


class _ClassHead(SingleHead):
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
        return check_label_range(labels, 2)

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
            check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = check_logits_final_dim(logits, 1)
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
        label_mean = metrics_impl.mean(labels, weights=broadcast_weights(weights, labels))
        values = {
            "average_loss": metrics_impl.mean(unweighted, weights=weights),
            "accuracy": metrics_impl.accuracy(labels, class_ids, weights=weights),
            "precision": metrics_impl.precision(labels, class_ids, weights=weights),
            "recall": metrics_impl.recall(labels, class_ids, weights=weights),
            "prediction/mean": metrics_impl.mean(
                logistic, weights=broadcast_weights(weights, logistic)
            ),
            "label/mean": label_mean,
            "accuracy_baseline": heads._accuracy_baseline(label_mean),
            "auc": auc_metric(labels, logistic, weights, "ROC"),
            "auc_precision_recall": auc_metric(labels, logistic, weights, "PR"),
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
            ids = check_label_range(math_ops.cast(ids, dtypes.int64), self._n_classes)
        return ids

    def _default_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        loss = losses_impl.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, reduction=losses_impl.Reduction.NONE
        )
        return array_ops.expand_dims(loss, -1)

    def predictions(self, logits: Any, keys: Any = None) -> dict[str, Tensor]:
        valid = ["logits", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"]
        if keys:
            check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = check_logits_final_dim(logits, self._n_classes)
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
                values = check_label_range(
                    values,
                    self._n_classes,
                    f"labels must be an integer SparseTensor with values in [0, {self._n_classes})",
                )
            ids = SparseTensor(labels.indices, values, labels.dense_shape)
            dense = math_ops.cast(
                sparse_ops.sparse_to_indicator(ids, self._n_classes), dtypes.int64
            )
        else:
            dense = check_label_range(
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
            check_prediction_keys(keys, valid)
        else:
            keys = valid
        logits = check_logits_final_dim(logits, self._n_classes)
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
            "auc": auc_metric(labels, probabilities, weights, "ROC"),
            "auc_precision_recall": auc_metric(labels, probabilities, weights, "PR"),
        }
        wide = broadcast_weights(weights, probabilities)
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
            values[f"probability_mean/{tag}"] = metrics_impl.mean(
                p, weights=broadcast_weights(weights, p)
            )
            values[f"auc/{tag}"] = auc_metric(lab, p, weights, "ROC")
            values[f"auc_precision_recall/{tag}"] = auc_metric(lab, p, weights, "PR")
        return {self._summary_key(k): v for k, v in values.items()}

    def _export_outputs(self, predictions: dict[str, Tensor]) -> dict[str, Any]:
        classification = self._classification_output(predictions)
        return {
            DEFAULT_SERVING_KEY: classification,
            CLASSIFY_SERVING_KEY: classification,
            PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
        }
