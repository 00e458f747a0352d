"""DNNLinearCombinedClassifier / Regressor (TF 1.15 wide & deep): the DNN's and the linear
model's logits added, each part trained by its own optimizer on its own variables."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, control_dependencies, get_collection
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.dnn import dnn_logits
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.linear import (
    default_linear_learning_rate,
    input_partitioner,
    linear_logits,
)
from tfcluster.lib.estimator.optimizers import get_optimizer_instance
from tfcluster.ops import control_flow_ops, nn_impl, nn_ops, partitioned_variables, state_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.summary_ops import histogram, scalar
from tfcluster.training.training_util import get_global_step

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _model_fn(
    features: Any,
    labels: Any,
    mode: str,
    head: Any,
    linear_columns: list[Any],
    linear_optimizer: Any,
    dnn_columns: list[Any],
    dnn_optimizer: Any,
    hidden_units: Any,
    activation_fn: Any,
    dropout: Any,
    input_layer_partitioner: Any,
    config: Any,
    linear_sparse_combiner: str,
    batch_norm: bool = False,
) -> Any:
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )
    if not linear_columns and not dnn_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    num_ps = config.num_ps_replicas if config else 0
    partitioner = input_layer_partitioner or input_partitioner(config)
    dnn_out = linear_out = None
    dnn_scope = linear_scope = ""
    if dnn_columns:
        if not hidden_units:
            raise ValueError(
                "dnn_hidden_units must be defined when dnn_feature_columns is specified."
            )
        dnn_opt = get_optimizer_instance(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        with vs.variable_scope(
            "dnn",
            values=tuple(features.values()),
            partitioner=partitioned_variables.min_max_variable_partitioner(max_partitions=num_ps),
        ) as scope:
            dnn_scope = scope.name
            dnn_out = dnn_logits(
                features,
                mode,
                dnn_columns,
                hidden_units,
                head.logits_dimension,
                activation_fn,
                dropout,
                partitioner,
                batch_norm,
            )
    if linear_columns:
        linear_opt = get_optimizer_instance(
            linear_optimizer,
            learning_rate=default_linear_learning_rate(len(linear_columns), _LINEAR_LEARNING_RATE),
        )
        with vs.variable_scope(
            "linear", values=tuple(features.values()), partitioner=partitioner
        ) as scope:
            linear_scope = scope.name
            linear_out = linear_logits(
                features, linear_columns, head.logits_dimension, linear_sparse_combiner
            )
            scalar(f"{scope.name}/fraction_of_zero_values", nn_impl.zero_fraction(linear_out))
            histogram(f"{scope.name}/activation", linear_out)
    if dnn_out is not None and linear_out is not None:
        logits = dnn_out + linear_out
    else:
        logits = dnn_out if dnn_out is not None else linear_out

    def train_op_fn(loss: Any) -> Any:
        ops = []
        if dnn_out is not None:
            ops.append(
                dnn_opt.minimize(
                    loss, var_list=get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=dnn_scope)
                )
            )
        if linear_out is not None:
            ops.append(
                linear_opt.minimize(
                    loss, var_list=get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=linear_scope)
                )
            )
        train_op = control_flow_ops.group(*ops)
        with control_dependencies([train_op]):
            return state_ops.assign_add(get_global_step(), 1).op

    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, train_op_fn=train_op_fn, logits=logits
    )


class DNNLinearCombinedClassifier(Estimator):
    def __init__(
        self,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = nn_ops.relu,
        dnn_dropout: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        linear_columns = list(linear_feature_columns or [])
        dnn_columns = list(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be defined."
            )
        head = heads.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                linear_columns,
                linear_optimizer,
                dnn_columns,
                dnn_optimizer,
                dnn_hidden_units,
                dnn_activation_fn,
                dnn_dropout,
                input_layer_partitioner,
                config,
                linear_sparse_combiner,
                batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNLinearCombinedRegressor(Estimator):
    def __init__(
        self,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = nn_ops.relu,
        dnn_dropout: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        linear_columns = list(linear_feature_columns or [])
        dnn_columns = list(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be defined."
            )
        head = heads.RegressionHead(label_dimension, weight_column, loss_reduction)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                linear_columns,
                linear_optimizer,
                dnn_columns,
                dnn_optimizer,
                dnn_hidden_units,
                dnn_activation_fn,
                dnn_dropout,
                input_layer_partitioner,
                config,
                linear_sparse_combiner,
                batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNLinearCombinedEstimator(Estimator):
    """Wide & deep under any head (TF 1.15's v1 estimator: trained through train_op_fn)."""

    def __init__(
        self,
        head: Any,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = nn_ops.relu,
        dnn_dropout: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        linear_columns = list(linear_feature_columns or [])
        dnn_columns = list(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be defined."
            )

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                linear_columns,
                linear_optimizer,
                dnn_columns,
                dnn_optimizer,
                dnn_hidden_units,
                dnn_activation_fn,
                dnn_dropout,
                input_layer_partitioner,
                config,
                linear_sparse_combiner,
            )

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
