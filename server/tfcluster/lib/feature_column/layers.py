"""input_layer, linear_model and make_parse_example_spec (TF 1.15 v1): columns are taken in
order of their names, each under a variable scope named after it, so variables are TF's
(`input_layer/<col>_embedding/embedding_weights`, `linear_model/<col>/weights`,
`linear_model/bias_weights`). Both call the columns' deprecated v1 protocol, as TF's do
(base.v1_protocol); linear_model makes each column's weights (a resource variable, by TF's
Layer.add_variable) before its weighted sum."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import internal_deprecations
from tfcluster.framework.graph import GraphKeys, Tensor, get_collection
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    LazyBuilder,
    columns_of_kinds,
    v1_protocol,
)
from tfcluster.ops import array_ops, init_ops, math_ops, nn_ops, sparse_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.embedding_sparse_ops import safe_embedding_lookup_sparse


def _collections(weight_collections: Any) -> list[str]:
    out = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in out:
            out.append(key)
    return out


def _check_batch_sizes(tensors: list[Tensor], columns: list[Any]) -> None:
    expected = None
    for t, c in zip(tensors, columns):
        d = t.shape[0] if t.shape.ndims else None
        d = getattr(d, "value", d)
        if d is None:
            continue
        if expected is None:
            expected = (int(d), c)
        elif expected[0] != int(d):
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. Batch size of "
                f"columns ({expected[1].name}, {c.name}): ({expected[0]}, {int(d)})"
            )


def input_layer(
    features: dict[Any, Any],
    feature_columns: Any,
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict[Any, Any] | None = None,
    cols_to_output_tensors: dict[Any, Any] | None = None,
) -> Tensor:
    """The dense columns' tensors, each [batch, n], concatenated along axis 1 (variables under
    `input_layer/`)."""
    columns = columns_of_kinds(
        feature_columns,
        DenseColumn,
        "Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
        "with an embedding_column or indicator_column.",
    )
    collections = _collections(weight_collections)
    with (
        v1_protocol(),
        vs.variable_scope(None, default_name="input_layer", values=list(features.values())),
    ):
        builder = LazyBuilder(features)
        outputs: list[Tensor] = []
        ordered: list[Any] = []
        dense_columns = [c for c in columns if isinstance(c, DenseColumn)]
        for column in sorted(dense_columns, key=lambda c: c.name):
            ordered.append(column)
            with vs.variable_scope(None, default_name=column._var_scope_name):
                before = set(map(id, get_collection(GraphKeys.GLOBAL_VARIABLES)))
                tensor = column._get_dense_tensor(
                    builder, weight_collections=collections, trainable=trainable
                )
                n = column._variable_shape.num_elements()
                batch = array_ops.shape(tensor)[0]
                out = array_ops.reshape(tensor, shape=(batch, n))
                outputs.append(out)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [
                        v for v in get_collection(GraphKeys.GLOBAL_VARIABLES) if id(v) not in before
                    ]
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = out
        _check_batch_sizes(outputs, ordered)
        return array_ops.concat(outputs, 1)


def _add_variable(name: str, shape: Any, trainable: bool, collections: list[str]) -> Any:
    """A zero-initialized resource variable, as TF's v1 linear model makes each by its
    deprecated Layer.add_variable."""
    internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE)
    return vs.get_variable(
        name,
        shape=shape,
        initializer=init_ops.zeros_initializer(),
        trainable=trainable,
        collections=collections,
        use_resource=True,
    )


def _column_weights(column: Any, units: int, collections: list[str], trainable: bool) -> Any:
    """The column's `weights`: [_num_buckets or the dense size, units]."""
    if isinstance(column, CategoricalColumn):
        first_dim = column._num_buckets
    else:
        first_dim = column._variable_shape.num_elements()
    return _add_variable("weights", (first_dim, units), trainable, collections)


def _dense_weighted_sum(
    column: DenseColumn, builder: LazyBuilder, weight: Any, collections: list[str], trainable: bool
) -> Tensor:
    tensor = column._get_dense_tensor(builder, weight_collections=collections, trainable=trainable)
    n = column._variable_shape.num_elements()
    batch = array_ops.shape(tensor)[0]
    tensor = array_ops.reshape(tensor, shape=(batch, n))
    return math_ops.matmul(tensor, weight, name="weighted_sum")


def _categorical_weighted_sum(
    column: CategoricalColumn,
    builder: LazyBuilder,
    weight: Any,
    sparse_combiner: str,
    collections: list[str],
    trainable: bool,
) -> Tensor:
    pair = column._get_sparse_tensors(builder, weight_collections=collections, trainable=trainable)
    ids = sparse_ops.sparse_reshape(
        pair.id_tensor, array_ops.stack([pair.id_tensor.dense_shape[0], -1])
    )
    weights = pair.weight_tensor
    if weights is not None:
        weights = sparse_ops.sparse_reshape(weights, array_ops.stack([weights.dense_shape[0], -1]))
    return safe_embedding_lookup_sparse(
        weight, ids, sparse_weights=weights, combiner=sparse_combiner, name="weighted_sum"
    )


def linear_model(
    features: dict[Any, Any],
    feature_columns: Any,
    units: int = 1,
    sparse_combiner: str = "sum",
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict[Any, Any] | None = None,
) -> Tensor:
    """The sum over columns of each column's values times its weights, plus a bias: [batch,
    units]."""
    columns = columns_of_kinds(
        feature_columns,
        (DenseColumn, CategoricalColumn),
        "Items of feature_columns must be either a _DenseColumn or _CategoricalColumn.",
    )
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("sparse_combiner must be one of 'mean', 'sqrtn' or 'sum'")
    collections = _collections(weight_collections)
    with (
        v1_protocol(),
        vs.variable_scope(None, default_name="linear_model", values=list(features.values())),
    ):
        builder = LazyBuilder(features)
        sums: list[Tensor] = []
        ordered: list[Any] = []
        for column in sorted(columns, key=lambda c: c.name):
            with vs.variable_scope(None, default_name=column._var_scope_name):
                ordered.append(column)
                var = _column_weights(column, units, collections, trainable)
                if isinstance(column, CategoricalColumn):
                    s = _categorical_weighted_sum(
                        column, builder, var, sparse_combiner, collections, trainable
                    )
                else:
                    assert isinstance(column, DenseColumn)
                    s = _dense_weighted_sum(column, builder, var, collections, trainable)
                sums.append(s)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [var]
        _check_batch_sizes(sums, ordered)
        no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias")
        bias = _add_variable("bias_weights", [units], trainable, collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return nn_ops.bias_add(no_bias, bias, name="weighted_sum")


def make_parse_example_spec(feature_columns: Any) -> dict[str, Any]:
    """The parse_example features dict every column needs, merged (each column's deprecated
    _parse_example_spec, as TF's reads it)."""
    result: dict[str, Any] = {}
    for column in feature_columns:
        if not hasattr(column, "_parse_example_spec"):
            raise ValueError(
                f"All feature_columns must be _FeatureColumn instances. Given: {column}"
            )
        with v1_protocol():
            config = column._parse_example_spec
        for key, value in config.items():
            if key in result and result[key] != value:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. Given "
                    f"{value} and {result[key]}"
                )
        result.update(config)
    return result
