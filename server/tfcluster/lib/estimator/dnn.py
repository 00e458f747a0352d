"""DNNClassifier and DNNRegressor (TF 1.15): the input layer (DenseFeatures for v2 columns)
under `dnn/input_from_feature_columns`, then dense layers `dnn/hiddenlayer_<i>` and `dnn/logits`
(kernel glorot-uniform, bias zeros), Adagrad by default."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.linear import input_partitioner
from tfcluster.lib.estimator.model_fn import ModeKeys
from tfcluster.lib.estimator.optimizers import get_optimizer_instance
from tfcluster.lib.feature_column import dense_features
from tfcluster.lib.feature_column.layers import input_layer
from tfcluster.lib.layers import normalization
from tfcluster.ops import init_ops, math_ops, nn_impl, nn_ops, partitioned_variables
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.summary_ops import histogram, scalar

_LEARNING_RATE = 0.05


def _dense(net: Tensor, units: int, activation: Any) -> Tensor:
    """A dense layer in the current variable scope (`kernel`, `bias`), as tf.layers.dense."""
    width = net.shape[-1]
    width = getattr(width, "value", width)
    # Resource variables, as TF 1.15's DNN (a Keras model) makes: their ops count towards the
    # op seeds of the next layer's initializer.
    kernel = vs.get_variable(
        "kernel",
        shape=[int(width), units],
        initializer=init_ops.glorot_uniform_initializer(),
        use_resource=True,
    )
    bias = vs.get_variable(
        "bias", shape=[units], initializer=init_ops.zeros_initializer(), use_resource=True
    )
    out = nn_ops.bias_add(math_ops.matmul(net, kernel), bias)
    return activation(out) if activation is not None else out


def _layer_summary(value: Tensor, tag: str) -> None:
    scalar(f"{tag}/fraction_of_zero_values", nn_impl.zero_fraction(value))
    histogram(f"{tag}/activation", value)


def _input_layer(features: Any, feature_columns: Any) -> Tensor:
    """v2 columns: DenseFeatures named `input_layer` (state first, resource variables);
    otherwise (a v1 column among them) input_layer, as TF 1.15's InputLayer."""
    columns = list(feature_columns)
    if not dense_features.is_feature_column_v2(columns):
        return input_layer(features, columns)
    columns = dense_features.sorted_dense_columns(columns)
    with name_scope("input_layer"):
        state = dense_features.create_state("input_layer", columns, trainable=True)
        return dense_features.dense_features(features, columns, state)


def dnn_logits(
    features: Any,
    mode: str,
    feature_columns: Any,
    hidden_units: Any,
    units: int,
    activation_fn: Any,
    dropout: Any,
    input_layer_partitioner: Any,
    batch_norm: bool = False,
) -> Tensor:
    """The DNN's logits, built in the current (`dnn`) variable scope. batch_norm: each hidden
    layer's output (after its dropout) normalized by a tf.layers BatchNormalization
    `hiddenlayer_<i>/batchnorm_<i>` (momentum 0.999, as TF 1.15's), its moving statistics
    updated through UPDATE_OPS (the head runs them with the train op)."""
    with vs.variable_scope(
        "input_from_feature_columns",
        values=tuple(features.values()),
        partitioner=input_layer_partitioner,
    ):
        net = _input_layer(features, feature_columns)
    for i, n in enumerate(hidden_units):
        with vs.variable_scope(f"hiddenlayer_{i}", values=(net,)) as scope:
            net = _dense(net, n, activation_fn)
            if dropout is not None and mode == ModeKeys.TRAIN:
                net = nn_ops.dropout(net, rate=dropout)
            if batch_norm:
                layer = normalization.BatchNormalization(
                    momentum=0.999, trainable=True, name=f"batchnorm_{i}", _scope=f"batchnorm_{i}"
                )
                # Resource variables, as in TF's DNN (a Keras model): their ops count
                # towards the op seeds of the next layer's initializer.
                layer._use_resource_variables = True
                net = layer(net, training=mode == ModeKeys.TRAIN)
        _layer_summary(net, scope.name)
    with vs.variable_scope("logits", values=(net,)) as scope:
        logits = _dense(net, units, None)
    _layer_summary(logits, scope.name)
    return logits


def _model_fn(
    features: Any,
    labels: Any,
    mode: str,
    head: Any,
    hidden_units: Any,
    feature_columns: Any,
    optimizer: Any,
    activation_fn: Any,
    dropout: Any,
    input_layer_partitioner: Any,
    config: Any,
    batch_norm: bool = False,
) -> Any:
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )
    opt = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    num_ps = config.num_ps_replicas if config else 0
    with vs.variable_scope(
        "dnn",
        values=tuple(features.values()),
        partitioner=partitioned_variables.min_max_variable_partitioner(max_partitions=num_ps),
    ):
        logits = dnn_logits(
            features,
            mode,
            feature_columns,
            hidden_units,
            head.logits_dimension,
            activation_fn,
            dropout,
            input_layer_partitioner or input_partitioner(config),
            batch_norm,
        )
        # Inside the scope, as TF does: slots of partitioned weights are then saved as
        # '<weight>/t_0/Adagrad' (TF cuts the slot's 'dnn/'-prefixed name at the primary's
        # length), the names a TF 1.15 checkpoint holds.
        return head.create_estimator_spec(
            features=features, mode=mode, labels=labels, optimizer=opt, logits=logits
        )


class DNNClassifier(Estimator):
    def __init__(
        self,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = nn_ops.relu,
        dropout: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
    ) -> None:
        head = heads.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        columns = list(feature_columns)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                hidden_units,
                columns,
                optimizer,
                activation_fn,
                dropout,
                input_layer_partitioner,
                config,
                batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNRegressor(Estimator):
    def __init__(
        self,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = nn_ops.relu,
        dropout: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
    ) -> None:
        head = heads.RegressionHead(label_dimension, weight_column, loss_reduction)
        columns = list(feature_columns)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                hidden_units,
                columns,
                optimizer,
                activation_fn,
                dropout,
                input_layer_partitioner,
                config,
                batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNEstimator(Estimator):
    """A DNN under any head (TF 1.15's v1 DNNEstimator: the head is given the optimizer)."""

    def __init__(
        self,
        head: Any,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = nn_ops.relu,
        dropout: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        batch_norm: bool = False,
    ) -> None:
        columns = list(feature_columns)

        def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return _model_fn(
                features,
                labels,
                mode,
                head,
                hidden_units,
                columns,
                optimizer,
                activation_fn,
                dropout,
                input_layer_partitioner,
                config,
                batch_norm,
            )

        super().__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )
