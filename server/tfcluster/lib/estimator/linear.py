"""LinearClassifier and LinearRegressor (TF 1.15): feature_column.linear_model under the
variable scope `linear`, trained with FTRL by default."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.linear_sdca import (
    LinearSDCA,
    sdca_model_fn,
    validate_for_classifier,
    validate_for_regressor,
)
from tfcluster.lib.estimator.linear_summaries import add_linear_summaries
from tfcluster.lib.estimator.optimizers import get_optimizer_instance
from tfcluster.lib.feature_column import dense_features
from tfcluster.lib.feature_column.layers import linear_model
from tfcluster.lib.feature_column.linear_model_v2 import linear_model_v2
from tfcluster.ops import partitioned_variables
from tfcluster.ops import variable_scope as vs
from tfcluster.training.ftrl import FtrlOptimizer

_LEARNING_RATE = 0.2


def default_linear_learning_rate(num_columns: int, cap: float = _LEARNING_RATE) -> float:
    return min(cap, 1.0 / math.sqrt(num_columns))


def linear_logits(features: Any, feature_columns: Any, units: int, sparse_combiner: str) -> Any:
    """The linear model's logits, with TF's bias and zero-weight summaries: v2 columns build
    TF 1.15's LinearModel layer (resource variables made first), others linear_model."""
    columns = list(feature_columns)
    if dense_features.is_feature_column_v2(columns):
        logits, bias, weights = linear_model_v2(features, columns, units, sparse_combiner)
    else:
        cols_to_vars: dict[Any, Any] = {}
        logits = linear_model(
            features,
            columns,
            units=units,
            sparse_combiner=sparse_combiner,
            cols_to_vars=cols_to_vars,
        )
        (bias,) = cols_to_vars.pop("bias")
        weights = [v for vs_ in cols_to_vars.values() for v in vs_]
    add_linear_summaries(bias, weights, units)
    return logits


def input_partitioner(config: Any) -> Any:
    num_ps = config.num_ps_replicas if config else 0
    return partitioned_variables.min_max_variable_partitioner(
        max_partitions=num_ps, min_slice_size=64 << 20
    )


def _model_fn(
    features: Any,
    labels: Any,
    mode: str,
    head: Any,
    feature_columns: Any,
    optimizer: Any,
    partitioner: Any,
    config: Any,
    sparse_combiner: str,
) -> Any:
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )
    if isinstance(optimizer, LinearSDCA):
        assert sparse_combiner == "sum"
        with vs.variable_scope(
            "linear",
            values=tuple(features.values()),
            partitioner=partitioner or input_partitioner(config),
        ):
            return sdca_model_fn(features, labels, mode, head, feature_columns, optimizer)
    # As TF 1.15: an optimizer named by a string ('Ftrl', the default) gets the fixed 0.2;
    # only optimizer=None gets FTRL at min(0.2, 1/sqrt(number of columns)).
    if not optimizer:
        optimizer = FtrlOptimizer(learning_rate=default_linear_learning_rate(len(feature_columns)))
    opt = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    with vs.variable_scope(
        "linear",
        values=tuple(features.values()),
        partitioner=partitioner or input_partitioner(config),
    ):
        logits = linear_logits(features, feature_columns, head.logits_dimension, sparse_combiner)
        # Inside the scope, as TF does: the slots of a partitioned weight are then saved as
        # '<weight>/part_0/Ftrl' (TF cuts the slot's scoped name at the primary's length).
        return head.create_estimator_spec(
            features=features, mode=mode, labels=labels, optimizer=opt, logits=logits
        )


class LinearClassifier(Estimator):
    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        sparse_combiner: str = "sum",
    ) -> None:
        validate_for_classifier(optimizer, n_classes, sparse_combiner)
        columns = list(feature_columns)
        head = heads.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                columns,
                optimizer,
                partitioner,
                config,
                sparse_combiner,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class LinearRegressor(Estimator):
    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        sparse_combiner: str = "sum",
    ) -> None:
        validate_for_regressor(optimizer, label_dimension, sparse_combiner)
        columns = list(feature_columns)
        head = heads.RegressionHead(label_dimension, weight_column, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                columns,
                optimizer,
                partitioner,
                config,
                sparse_combiner,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class LinearEstimator(Estimator):
    """A linear model under any head (TF 1.15's v1 LinearEstimator: the head is given the
    optimizer, so the public heads train only with a keras optimizer, as in TF)."""

    def __init__(
        self,
        head: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        sparse_combiner: str = "sum",
    ) -> None:
        columns = tuple(feature_columns or ())

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                list(columns),
                optimizer,
                partitioner,
                config,
                sparse_combiner,
            )

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
