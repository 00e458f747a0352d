"""BaselineClassifier, BaselineRegressor and BaselineEstimator (TF 1.15): logits are one
learned bias per output (`baseline/bias`), repeated over the batch; FTRL (learning rate
0.3) by default."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import control_dependencies
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.optimizers import get_optimizer_instance
from tfcluster.ops import array_ops, check_ops, init_ops, math_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.training.training_util import get_global_step

_LEARNING_RATE = 0.3


def _weight_column_key(weight_column: Any) -> str | None:
    if weight_column is None:
        return None
    if isinstance(weight_column, str):
        return weight_column
    from tfcluster.lib.feature_column.dense_columns import _NumericColumn

    if not isinstance(weight_column, _NumericColumn):
        raise TypeError(
            "Weight column must be either a string or _NumericColumn. "
            f"Given type: {type(weight_column)}."
        )
    return str(weight_column.key)


def baseline_logits(features: Any, num_outputs: int, weight_column: Any) -> Any:
    """The bias repeated over the batch; every feature but the weight must agree on the
    batch size (checked before the logits are made)."""
    weight_key = _weight_column_key(weight_column)
    items = features.items() if isinstance(features, dict) else [("", features)]
    checks, batch = [], None
    for key, feature in items:
        if key == weight_key:
            continue
        first = array_ops.shape(feature)[0]
        if batch is None:
            batch = first
        else:
            checks.append(check_ops.assert_equal(batch, first))
    with control_dependencies(checks), vs.variable_scope("baseline"):
        bias = vs.get_variable(
            "bias", shape=[num_outputs], initializer=init_ops.zeros_initializer()
        )
        return math_ops.multiply(bias, array_ops.ones(array_ops.stack([batch, num_outputs])))


def _model_fn(
    features: Any, labels: Any, mode: str, head: Any, optimizer: Any, weight_column: Any
) -> Any:
    logits = baseline_logits(features, head.logits_dimension, weight_column)

    def train_op_fn(loss: Any) -> Any:
        opt = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
        return opt.minimize(loss, global_step=get_global_step())

    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels, train_op_fn=train_op_fn
    )


class BaselineClassifier(Estimator):
    def __init__(
        self,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        head = heads.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(features, labels, mode, head, optimizer, weight_column)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(Estimator):
    def __init__(
        self,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        head = heads.RegressionHead(label_dimension, weight_column, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            # As TF 1.15: the weight column is not excluded from the batch-size checks.
            return _model_fn(features, labels, mode, head, optimizer, None)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineEstimator(Estimator):
    def __init__(
        self, head: Any, model_dir: Any = None, optimizer: Any = "Ftrl", config: Any = None
    ) -> None:
        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(features, labels, mode, head, optimizer, None)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
