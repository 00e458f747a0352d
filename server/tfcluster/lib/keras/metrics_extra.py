"""The rest of tf.keras.metrics (TF 1.15): confusion-matrix counts at thresholds
(TruePositives ... FalseNegatives), Precision, Recall, AUC, SensitivityAtSpecificity,
SpecificityAtSensitivity, MeanIoU, MeanRelativeError, MeanTensor, CategoricalHinge and
CosineSimilarity, computed with TF's formulas (predictions counted positive when strictly above
a threshold)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import control_dependencies, convert_to_tensor
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.losses import categorical_hinge
from tfcluster.lib.keras.metrics import Mean, MeanMetricWrapper, Metric
from tfcluster.ops import array_ops, check_ops, control_flow_ops, math_ops, nn_ops, state_ops

NEG_INF = -1e10


def _filter_top_k(x: Any, k: int) -> Any:
    from tfcluster.ops import sort_ops

    _, idx = sort_ops.top_k(x, k, sorted=False)
    mask = math_ops.reduce_sum(array_ops.one_hot(idx, x.shape.as_list()[-1], axis=-1), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def update_confusion_matrix_variables(
    variables_to_update: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: Any,
    top_k: Any = None,
    class_id: Any = None,
    sample_weight: Any = None,
) -> Any:
    y_true = math_ops.cast(y_true, dtypes.float32)
    y_pred = math_ops.cast(y_pred, dtypes.float32)
    checks = [
        check_ops.assert_greater_equal(
            y_pred, math_ops.cast(0.0, y_pred.dtype), message="predictions must be >= 0"
        ),
        check_ops.assert_less_equal(
            y_pred, math_ops.cast(1.0, y_pred.dtype), message="predictions must be <= 1"
        ),
    ]
    with control_dependencies(checks):
        y_pred = array_ops.identity(y_pred)
    y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    thresholds = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    count = len(thresholds)
    num_predictions = array_ops.size(y_pred)
    predictions_2d = array_ops.reshape(y_pred, [1, -1])
    labels_2d = array_ops.reshape(math_ops.cast(y_true, dtypes.bool_), [1, -1])
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(np.asarray(thresholds, dtype=np.float32), 1),
        array_ops.stack([1, num_predictions]),
    )
    preds_tiled = array_ops.tile(predictions_2d, [count, 1])
    pred_is_pos = math_ops.greater(preds_tiled, thresh_tiled)
    label_is_pos = array_ops.tile(labels_2d, [count, 1])
    weights_tiled = None
    if sample_weight is not None:
        weights = math_ops.cast(convert_to_tensor(sample_weight), dtypes.float32)
        w_rank, p_rank = weights.shape.ndims, y_pred.shape.ndims
        if w_rank is not None and p_rank is not None:
            # losses_utils.squeeze_or_expand_dimensions: the weights' rank made y_pred's.
            if w_rank == p_rank - 1:
                weights = array_ops.expand_dims(weights, -1)
            elif w_rank == p_rank + 1 and weights.shape.as_list()[-1] == 1:
                weights = array_ops.squeeze(weights, [-1])
        weights = weights + array_ops.zeros_like(y_pred)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [count, 1])
    pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_neg = math_ops.logical_not(label_is_pos)
    cases = {
        "tp": (label_is_pos, pred_is_pos),
        "fn": (label_is_pos, pred_is_neg),
        "fp": (label_is_neg, pred_is_pos),
        "tn": (label_is_neg, pred_is_neg),
    }
    updates = []
    for key, var in variables_to_update.items():
        label, pred = cases[key]
        both = math_ops.cast(math_ops.logical_and(label, pred), dtypes.float32)
        if weights_tiled is not None:
            both *= weights_tiled
        updates.append(state_ops.assign_add(var, math_ops.reduce_sum(both, 1)))
    return control_flow_ops.group(*updates)


def _squeeze_or_expand(y_pred: Any, y_true: Any) -> tuple[Any, Any]:
    """Ranks made equal by squeezing or expanding a last dimension of 1 (losses_utils)."""
    pred_rank, true_rank = y_pred.shape.ndims, y_true.shape.ndims
    if pred_rank is not None and true_rank is not None:
        if pred_rank - true_rank == 1 and y_pred.shape.as_list()[-1] == 1:
            y_pred = array_ops.squeeze(y_pred, [-1])
        elif true_rank - pred_rank == 1 and y_true.shape.as_list()[-1] == 1:
            y_true = array_ops.squeeze(y_true, [-1])
    return y_pred, y_true


def _thresholds(thresholds: Any, default: float) -> list[float]:
    if thresholds is None:
        return [default]
    return list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]


class _ConfusionMatrixCount(Metric):
    _key = "tp"
    _var_name = "accumulator"

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        self.accumulator = self.add_weight(
            "accumulator", shape=(len(self.thresholds),), initializer="zeros"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        return update_confusion_matrix_variables(
            {self._key: self.accumulator}, y_true, y_pred, self.thresholds,
            sample_weight=sample_weight,
        )  # fmt: skip

    def result(self) -> Any:
        if isinstance(self.init_thresholds, (list, tuple)):
            return array_ops.identity(self.accumulator)
        return array_ops.identity(self.accumulator[0])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "thresholds": self.init_thresholds}


def _count_class(name: str, key: str) -> type:
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")

    def __init__(
        self: Any, thresholds: Any = None, name: str | None = None, dtype: Any = None
    ) -> None:
        _ConfusionMatrixCount.__init__(self, thresholds, name=name or snake, dtype=dtype)

    return type(name, (_ConfusionMatrixCount,), {"__init__": __init__, "_key": key})


TruePositives = _count_class("TruePositives", "tp")
TrueNegatives = _count_class("TrueNegatives", "tn")
FalsePositives = _count_class("FalsePositives", "fp")
FalseNegatives = _count_class("FalseNegatives", "fn")


class _PrecisionRecall(Metric):
    _other = "fp"

    def __init__(
        self,
        thresholds: Any = None,
        top_k: Any = None,
        class_id: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = NEG_INF if top_k is not None else 0.5
        self.thresholds = _thresholds(thresholds, default)
        count = len(self.thresholds)
        self.true_positives = self.add_weight("true_positives", shape=(count,), initializer="zeros")
        other = "false_positives" if self._other == "fp" else "false_negatives"
        self.other = self.add_weight(other, shape=(count,), initializer="zeros")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        return update_confusion_matrix_variables(
            {"tp": self.true_positives, self._other: self.other},
            y_true, y_pred, self.thresholds, top_k=self.top_k, class_id=self.class_id,
            sample_weight=sample_weight,
        )  # fmt: skip

    def result(self) -> Any:
        value = math_ops.div_no_nan(self.true_positives, self.true_positives + self.other)
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }


class Precision(_PrecisionRecall):
    _other = "fp"

    def __init__(self, thresholds: Any = None, top_k: Any = None, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(thresholds, top_k, class_id, name=name or "precision", dtype=dtype)


class Recall(_PrecisionRecall):
    _other = "fn"

    def __init__(self, thresholds: Any = None, top_k: Any = None, class_id: Any = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(thresholds, top_k, class_id, name=name or "recall", dtype=dtype)


class _FourCounts(Metric):
    thresholds: list[float]

    def _add_counts(self, count: int) -> None:
        self.true_positives = self.add_weight("true_positives", shape=(count,), initializer="zeros")
        self.true_negatives = self.add_weight("true_negatives", shape=(count,), initializer="zeros")
        self.false_positives = self.add_weight(
            "false_positives", shape=(count,), initializer="zeros"
        )
        self.false_negatives = self.add_weight(
            "false_negatives", shape=(count,), initializer="zeros"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        return update_confusion_matrix_variables(
            {
                "tp": self.true_positives, "tn": self.true_negatives,
                "fp": self.false_positives, "fn": self.false_negatives,
            },
            y_true, y_pred, self.thresholds, sample_weight=sample_weight,
        )  # fmt: skip


class _SensitivitySpecificity(_FourCounts):
    def __init__(self, value: float, num_thresholds: int = 200, name: str | None = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("`num_thresholds` must be > 0.")
        self.value = value
        self.num_thresholds = num_thresholds
        self._add_counts(num_thresholds)
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0, *inner, 1.0]

    def _at(self, rate: Any, num: Any, den_other: Any) -> Any:
        index = math_ops.cast(
            math_ops.argmin(math_ops.abs(rate - self.value), axis=0), dtypes.int32
        )
        return math_ops.div_no_nan(num[index], num[index] + den_other[index])


class SensitivityAtSpecificity(_SensitivitySpecificity):
    def __init__(self, specificity: float, num_thresholds: int = 200, name: str | None = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if specificity < 0 or specificity > 1:
            raise ValueError("`specificity` must be in the range [0, 1].")
        self.specificity = specificity
        super().__init__(specificity, num_thresholds, name=name, dtype=dtype)

    def result(self) -> Any:
        specificities = math_ops.div_no_nan(
            self.true_negatives, self.true_negatives + self.false_positives
        )
        return self._at(specificities, self.true_positives, self.false_negatives)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "specificity": self.specificity}  # fmt: skip


class SpecificityAtSensitivity(_SensitivitySpecificity):
    def __init__(self, sensitivity: float, num_thresholds: int = 200, name: str | None = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if sensitivity < 0 or sensitivity > 1:
            raise ValueError("`sensitivity` must be in the range [0, 1].")
        self.sensitivity = sensitivity
        super().__init__(sensitivity, num_thresholds, name=name, dtype=dtype)

    def result(self) -> Any:
        sensitivities = math_ops.div_no_nan(
            self.true_positives, self.true_positives + self.false_negatives
        )
        return self._at(sensitivities, self.true_negatives, self.false_positives)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "sensitivity": self.sensitivity}  # fmt: skip


class AUC(_FourCounts):
    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: str | None = None,
                 dtype: Any = None, thresholds: Any = None) -> None:  # fmt: skip
        curve = str(curve).upper()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value "{curve}".')
        method = str(summation_method).lower()
        if method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value "{summation_method}".')
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            inner = sorted(thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.thresholds = [0.0 - backend.epsilon(), *inner, 1.0 + backend.epsilon()]
        self.curve = curve
        self.summation_method = method
        super().__init__(name=name, dtype=dtype)
        self._add_counts(self.num_thresholds)

    def interpolate_pr_auc(self) -> Any:
        n = self.num_thresholds
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(dp, 0))
        intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
        safe_p_ratio = array_ops.where(
            math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
            math_ops.div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0)),
            array_ops.ones_like(p[1:]),
        )
        return math_ops.reduce_sum(
            math_ops.div_no_nan(
                prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                math_ops.maximum(tp[1:] + fn[1:], 0),
            )
        )

    def result(self) -> Any:
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        recall = math_ops.div_no_nan(
            self.true_positives, self.true_positives + self.false_negatives
        )
        if self.curve == "ROC":
            x = math_ops.div_no_nan(
                self.false_positives, self.false_positives + self.true_negatives
            )
            y = recall
        else:
            x = recall
            y = math_ops.div_no_nan(self.true_positives, self.true_positives + self.false_positives)
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[: n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[: n - 1], y[1:])
        return math_ops.reduce_sum(math_ops.multiply(x[: n - 1] - x[1:], heights))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "thresholds": self.thresholds[1:-1],
        }


class MeanIoU(Metric):
    def __init__(self, num_classes: int, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.total_cm = self.add_weight(
            "total_confusion_matrix",
            shape=(num_classes, num_classes),
            dtype=dtypes.float64,
            initializer="zeros",
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        from tfcluster.ops import confusion_matrix

        y_true = array_ops.reshape(math_ops.cast(y_true, self._dtype), [-1])
        y_pred = array_ops.reshape(math_ops.cast(y_pred, self._dtype), [-1])
        if sample_weight is not None:
            sample_weight = array_ops.reshape(math_ops.cast(sample_weight, self._dtype), [-1])
        current = confusion_matrix.confusion_matrix(
            y_true, y_pred, self.num_classes, weights=sample_weight, dtype=dtypes.float64
        )
        return state_ops.assign_add(self.total_cm, current)

    def result(self) -> Any:
        from tfcluster.ops import linalg_ops

        rows = math_ops.cast(math_ops.reduce_sum(self.total_cm, axis=0), self._dtype)
        cols = math_ops.cast(math_ops.reduce_sum(self.total_cm, axis=1), self._dtype)
        tp = math_ops.cast(linalg_ops.matrix_diag_part(self.total_cm), self._dtype)
        denominator = rows + cols - tp
        valid = math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(denominator, 0), dtype=self._dtype)
        )
        iou = math_ops.div_no_nan(tp, denominator)
        return math_ops.div_no_nan(math_ops.reduce_sum(iou), valid)

    def reset_states(self) -> None:
        backend.set_value(self.total_cm, np.zeros((self.num_classes, self.num_classes)))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_classes": self.num_classes}


class MeanRelativeError(Mean):
    def __init__(self, normalizer: Any, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name or "mean_relative_error", dtype=dtype)
        self.normalizer = math_ops.cast(normalizer, self._dtype)

    def update_state(  # type: ignore[override]  # Keras's (y_true, y_pred) metrics
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> Any:
        y_pred = math_ops.cast(y_pred, self._dtype)
        y_true = math_ops.cast(y_true, self._dtype)
        errors = math_ops.div_no_nan(math_ops.abs(y_true - y_pred), self.normalizer)
        return super().update_state(errors, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "normalizer": backend.eval(self.normalizer)}


class MeanTensor(Metric):
    """The element-wise mean of the tensors seen (variables shaped at the first update)."""

    def __init__(self, name: str = "mean_tensor", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._shape: Any = None
        self._total: Any = None
        self._count: Any = None

    def _build(self, shape: Any) -> None:
        self._shape = shape
        self._total = self.add_weight("total", shape=shape, initializer="zeros")
        self._count = self.add_weight("count", shape=shape, initializer="zeros")

    @property
    def total(self) -> Any:
        return self._total

    @property
    def count(self) -> Any:
        return self._count

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        values = math_ops.cast(convert_to_tensor(values), self._dtype)
        shape = tuple(values.shape.as_list())
        if self._shape is None:
            self._build(shape)
        elif shape != tuple(self._shape):
            raise ValueError(
                "MeanTensor input values must always have the same shape. Expected shape "
                f"(set during the first call): {self._shape}. Got: {shape}"
            )
        num = array_ops.ones_like(values)
        if sample_weight is not None:
            weights = math_ops.cast(sample_weight, self._dtype) + array_ops.zeros_like(values)
            num = weights
            values = values * weights
        update_total = state_ops.assign_add(self._total, values)
        with control_dependencies([update_total]):
            return state_ops.assign_add(self._count, num)

    def result(self) -> Any:
        if self._shape is None:
            raise ValueError(
                "MeanTensor does not have any result yet. Please call the MeanTensor instance "
                "or use `.update_state(value)` before retrieving the result."
            )
        return math_ops.div_no_nan(self._total, self._count)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    y_true = nn_ops.l2_normalize(y_true, axis=axis)
    y_pred = nn_ops.l2_normalize(y_pred, axis=axis)
    return math_ops.reduce_sum(y_true * y_pred, axis=axis)


class CategoricalHinge(MeanMetricWrapper):
    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(categorical_hinge, name=name, dtype=dtype)


class CosineSimilarity(MeanMetricWrapper):
    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)
