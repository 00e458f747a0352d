"""RegressionHead, PoissonRegressionHead and LogisticRegressionHead (TF 1.15's public
regression heads): a loss over label_dimension outputs, predictions through an optional
inverse link function."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.lib.estimator import export_output, heads
from tfcluster.lib.estimator.head_base import (
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    SUM_OVER_BATCH_SIZE,
    SingleHead,
    broadcast_weights,
    check_label_range,
    check_logits_final_dim,
)
from tfcluster.lib.losses import losses_impl
from tfcluster.lib.metrics import metrics_impl
from tfcluster.ops import (
    array_ops,
    math_ops,
    nn_ops,
)


class RegressionHead(SingleHead):
    """Mean squared error (or `loss_fn`) over label_dimension outputs per example;
    `inverse_link_fn` maps logits to predictions."""

    _allow_per_logit_weights = True

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
        logits = check_logits_final_dim(logits, self._logits_dimension)
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
                labels, weights=broadcast_weights(weights, labels)
            ),
            self._summary_key("prediction/mean"): metrics_impl.mean(
                predicted, weights=broadcast_weights(weights, predicted)
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
        labels = check_label_range(labels, 2, "Labels must be in range [0, 1]")
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
