"""The linear model of TF 1.15's v2 feature columns (feature_column_v2.LinearModel, which
LinearClassifier/LinearRegressor and DNNLinearCombined*'s linear part build when every column
is v2): all variables first, in order of the columns' names (each column's state, then its
`weights`; the `bias_weights` last), as resource variables under `<layer>/`; then the
weighted sums, each under a name scope named after its column inside the Keras model's,
the layer's and its call's name scopes (`linear_model/linear_model/linear_model/`)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    LazyBuilder,
    columns_of_kinds,
)
from tfcluster.lib.feature_column.layers import _check_batch_sizes
from tfcluster.ops import array_ops, init_ops, math_ops, nn_ops, sparse_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.embedding_sparse_ops import safe_embedding_lookup_sparse

_NAME = "linear_model"


def _sorted_columns(feature_columns: Any) -> list[Any]:
    columns = columns_of_kinds(
        feature_columns,
        (DenseColumn, CategoricalColumn),
        "Items of feature_columns must be either a DenseColumn or CategoricalColumn.",
    )
    return sorted(columns, key=lambda c: c.name)


def _create_variables(
    columns: list[Any], units: int
) -> tuple[dict[Any, Any], dict[Any, Any], Any, list[Any]]:
    """(state by column, weights by column, bias, every variable in creation order)."""
    state: dict[Any, Any] = {}
    weights: dict[Any, Any] = {}
    made: list[Any] = []
    with vs._pure_variable_scope(_NAME):
        for column in columns:
            with vs._pure_variable_scope(column.name):
                create = getattr(column, "_create_state", None)
                if create is not None:
                    state[column] = create(True)
                    made.append(state[column])
                if isinstance(column, CategoricalColumn):
                    first_dim = column._num_buckets
                else:
                    first_dim = column._variable_shape.num_elements()
                internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE)
                weights[column] = vs.get_variable(
                    "weights",
                    shape=(first_dim, units),
                    dtype=dtypes.float32,
                    initializer=init_ops.zeros_initializer(),
                    use_resource=True,
                )
                made.append(weights[column])
        internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE)
        bias = vs.get_variable(
            "bias_weights",
            shape=[units],
            dtype=dtypes.float32,
            initializer=init_ops.zeros_initializer(),
            use_resource=True,
        )
    return state, weights, bias, made


def _weighted_sum(column: Any, builder: LazyBuilder, weight: Any, sparse_combiner: str) -> Tensor:
    if isinstance(column, CategoricalColumn):
        pair = column._get_sparse_tensors(builder)
        ids = sparse_ops.sparse_reshape(pair.id_tensor, [array_ops.shape(pair.id_tensor)[0], -1])
        weights = pair.weight_tensor
        if weights is not None:
            weights = sparse_ops.sparse_reshape(weights, [array_ops.shape(weights)[0], -1])
        return safe_embedding_lookup_sparse(
            weight, ids, sparse_weights=weights, combiner=sparse_combiner, name="weighted_sum"
        )
    tensor = column._get_dense_tensor(builder)
    n = column._variable_shape.num_elements()
    batch = array_ops.shape(tensor)[0]
    tensor = array_ops.reshape(tensor, shape=(batch, n))
    return math_ops.matmul(tensor, weight, name="weighted_sum")


def linear_model_v2(
    features: dict[Any, Any],
    feature_columns: Any,
    units: int = 1,
    sparse_combiner: str = "sum",
    cols_to_weights: dict[Any, Any] | None = None,
) -> tuple[Tensor, Any, list[Any]]:
    """(predictions [batch, units], the bias, the other variables in creation order), made in
    the current variable scope; each column's `weights` variable into `cols_to_weights`."""
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("sparse_combiner must be one of 'mean', 'sqrtn' or 'sum'")
    if not isinstance(features, dict):
        raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
    columns = _sorted_columns(feature_columns)
    with name_scope(_NAME), name_scope(_NAME):
        state, weights, bias, made = _create_variables(columns, units)
        if cols_to_weights is not None:
            cols_to_weights.update(weights)
        with name_scope(_NAME):
            builder = LazyBuilder(features, state=state)
            sums: list[Tensor] = []
            for column in columns:
                with name_scope(column.name):
                    sums.append(_weighted_sum(column, builder, weights[column], sparse_combiner))
            _check_batch_sizes(sums, columns)
            no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias")
            return nn_ops.bias_add(no_bias, bias, name="weighted_sum"), bias, made
