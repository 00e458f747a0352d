"""tf.estimator.experimental.LinearSDCA (TF 1.15): stochastic dual coordinate ascent for
LinearClassifier (binary, logistic loss) and LinearRegressor (one label, squared loss), given
as their `optimizer`. The model is feature_column's linear model under `linear/`; each
training step runs one SDCA pass over the batch (sdca_model.SDCAModel) and a chief hook copies
the unshrunk weights into the model's (L1-shrunk)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.linear_summaries import add_linear_summaries
from tfcluster.lib.estimator.sdca_model import SDCAModel, SparseFeatureColumn
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    LazyBuilder,
    v1_protocol,
)
from tfcluster.lib.feature_column.linear_model_v2 import linear_model_v2
from tfcluster.ops import array_ops, math_ops, segment_ops
from tfcluster.ops.variables import PartitionedVariable
from tfcluster.training import training_util
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook


class LinearSDCA:
    """Stochastic Dual Coordinate Ascent for linear estimators (TF's docstring): example ids
    come from the feature `example_id_column`; l2 must be positive, l1 non-negative."""

    def __init__(
        self,
        example_id_column: str,
        num_loss_partitions: int = 1,
        num_table_shards: int | None = None,
        symmetric_l1_regularization: float = 0.0,
        symmetric_l2_regularization: float = 1.0,
        adaptive: bool = False,
    ) -> None:
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive

    @staticmethod
    def _prune_and_unique_sparse_ids(pair: Any) -> SparseFeatureColumn:
        """The ids of a categorical column without negative (out of vocabulary) ids, one entry
        per (example, id) with the weights of duplicates summed."""
        ids = pair.id_tensor
        if pair.weight_tensor is not None:
            weights = pair.weight_tensor.values
        else:
            weights = array_ops.ones([array_ops.shape(ids.indices)[0]], dtypes.float32)
        example_ids = array_ops.reshape(ids.indices[:, 0], [-1])
        internal_deprecations.called_internally(internal_deprecations.TO_INT64)
        flat_ids = math_ops.to_int64(array_ops.reshape(ids.values, [-1]))
        valid = math_ops.greater_equal(flat_ids, 0)
        flat_ids = array_ops.boolean_mask(flat_ids, valid)
        example_ids = array_ops.boolean_mask(example_ids, valid)
        weights = array_ops.boolean_mask(weights, valid)
        span = math_ops.reduce_max(flat_ids) + 1
        projected = span * example_ids + flat_ids
        uniq, idx = array_ops.unique(projected)
        example_ids_filtered = segment_ops.unsorted_segment_min(
            example_ids, idx, array_ops.shape(uniq)[0]
        )
        reprojected = uniq - span * example_ids_filtered
        summed = array_ops.reshape(
            segment_ops.unsorted_segment_sum(weights, idx, array_ops.shape(uniq)[0]), [-1]
        )
        return SparseFeatureColumn(example_ids_filtered, reprojected, summed)

    def _add_features(
        self, feature_columns: Any, cols_to_vars: dict[Any, Any], builder: Any, out: tuple[Any, ...]
    ) -> None:
        dense_features, dense_weights, sparse_features, sparse_weights = out
        for column in sorted(feature_columns, key=lambda c: c.name):
            weights = _one_or_list(cols_to_vars[column])
            if isinstance(column, CategoricalColumn):
                pair = column._get_sparse_tensors(builder)
                sparse_features.append(self._prune_and_unique_sparse_ids(pair))
                sparse_weights.append(weights)
            elif isinstance(column, DenseColumn):
                if column._variable_shape.ndims != 1:
                    raise ValueError(
                        f"Column {type(column).__name__} has rank "
                        f"{column._variable_shape.ndims}, larger than 1."
                    )
                dense_features.append(column._get_dense_tensor(builder))
                dense_weights.append(weights)
            else:
                raise ValueError(
                    f"LinearSDCA does not support column type {type(column).__name__}."
                )

    @staticmethod
    def _labels(targets: Any) -> Any:
        internal_deprecations.called_internally(internal_deprecations.TO_FLOAT)
        return math_ops.to_float(array_ops.reshape(targets, shape=[-1]))

    def get_train_step(
        self,
        cols_to_vars: dict[Any, Any],
        weight_column_name: Any,
        loss_type: str,
        feature_columns: Any,
        features: Any,
        targets: Any,
        bias_var: Any,
        global_step: Any,
    ) -> tuple[SDCAModel, Any]:
        """The SDCA model over the linear model's variables and its training op."""
        batch_size = array_ops.shape(targets)[0]
        builder = LazyBuilder(features)
        dense_features: list[Any] = []
        dense_weights: list[Any] = []
        sparse_features: list[Any] = []
        sparse_weights: list[Any] = []
        # TF reads the columns by their v2 protocol here (no deprecation announced).
        with v1_protocol(False):
            self._add_features(
                feature_columns,
                cols_to_vars,
                builder,
                (dense_features, dense_weights, sparse_features, sparse_weights),
            )
        dense_features.append(array_ops.ones([batch_size, 1]))
        dense_weights.append(bias_var)
        if weight_column_name:
            key = (
                weight_column_name
                if isinstance(weight_column_name, str)
                else (weight_column_name.key)
            )
            example_weights = array_ops.reshape(features[key], shape=[-1])
        else:
            example_weights = array_ops.ones([batch_size])
        examples = dict(
            sparse_features=sparse_features,
            dense_features=dense_features,
            example_labels=self._labels(targets),
            example_weights=example_weights,
            example_ids=features[self._example_id_column],
        )
        variables = dict(
            sparse_features_weights=sparse_weights, dense_features_weights=dense_weights
        )
        model = SDCAModel(
            examples=examples,
            variables=variables,
            options=dict(
                symmetric_l1_regularization=self._symmetric_l1_regularization,
                symmetric_l2_regularization=self._symmetric_l2_regularization,
                adaptive=self._adaptive,
                num_loss_partitions=self._num_loss_partitions,
                num_table_shards=self._num_table_shards,
                loss_type=loss_type,
            ),
        )
        return model, model.minimize(global_step=global_step)


def _expanded(variables: list[Any]) -> list[Any]:
    """The parts of partitioned variables, in order."""
    out: list[Any] = []
    for v in variables:
        out.extend(list(v) if isinstance(v, PartitionedVariable) else [v])
    return out


def _one_or_list(variables: list[Any]) -> Any:
    return variables[0] if len(variables) == 1 else list(variables)


def validate_for_classifier(optimizer: Any, n_classes: int, sparse_combiner: str) -> None:
    if isinstance(optimizer, LinearSDCA):
        if sparse_combiner != "sum":
            raise ValueError('sparse_combiner must be "sum" when optimizer is a LinearSDCA object.')
        if n_classes > 2:
            raise ValueError("LinearSDCA cannot be used in a multi-class setting.")


def validate_for_regressor(optimizer: Any, label_dimension: int, sparse_combiner: str) -> None:
    if isinstance(optimizer, LinearSDCA):
        if sparse_combiner != "sum":
            raise ValueError('sparse_combiner must be "sum" when optimizer is a LinearSDCA object.')
        if label_dimension > 1:
            raise ValueError("LinearSDCA can only be used with one-dimensional label.")


class _SDCAUpdateWeightsHook(SessionRunHook):
    """Runs update_weights (the unshrunk weights, shrunk, into the model) with each step."""

    def __init__(self, model: SDCAModel, train_op: Any) -> None:
        self._model = model
        self._train_op = train_op

    def begin(self) -> None:
        self._update_op = self._model.update_weights(self._train_op)

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._update_op)


def sdca_model_fn(
    features: Any, labels: Any, mode: str, head: Any, feature_columns: Any, optimizer: LinearSDCA
) -> Any:
    """TF's _sdca_model_fn, called inside the `linear` variable scope."""
    if isinstance(head, heads.BinaryLogisticHead):
        loss_type = "logistic_loss"
    elif isinstance(head, heads.RegressionHead):
        assert head.logits_dimension == 1
        loss_type = "squared_loss"
    else:
        raise ValueError(f"Unsupported head type: {head}")
    # TF 1.15's SDCA model builds the v2 LinearModel layer (its columns are v2 columns).
    cols_to_weights: dict[Any, Any] = {}
    logits, bias_variable, made = linear_model_v2(
        features, feature_columns, 1, "sum", cols_to_weights=cols_to_weights
    )
    cols_to_vars = {column: _expanded([w]) for column, w in cols_to_weights.items()}
    bias = _expanded([bias_variable])
    # TF's bias scalar and fraction_of_zero_weights (counted in zero_count conds).
    add_linear_summaries(bias_variable, made, 1)
    if mode == "train":
        model, train_op = optimizer.get_train_step(
            cols_to_vars,
            head._weight_column,
            loss_type,
            feature_columns,
            features,
            labels,
            _one_or_list(bias),
            training_util.get_global_step(),
        )
        hook = _SDCAUpdateWeightsHook(model, train_op)
        spec = head.create_estimator_spec(
            features=features,
            mode=mode,
            labels=labels,
            train_op_fn=lambda unused_loss: train_op,
            logits=logits,
        )
        return spec._replace(training_chief_hooks=(*spec.training_chief_hooks, hook))
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, logits=logits)
