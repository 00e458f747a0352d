"""The input layer of TF 1.15's v2 feature columns (Keras's DenseFeatures, which the canned
DNN estimators build when every column is v2, as tf.feature_column's columns are).

Unlike input_layer, each column's state (an embedding column's `embedding_weights`) is made
first, for all columns in order of their names, as resource variables in
`<layer>/<column>/`; the columns' tensors are built afterwards, each under a name scope named
after its column, and read those variables. The op count, and so every later op seed, is
then TF's."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.lib.feature_column.base import (
    DenseColumn,
    FeatureColumn,
    LazyBuilder,
    columns_of_kinds,
)
from tfcluster.lib.feature_column.layers import _check_batch_sizes
from tfcluster.ops import array_ops
from tfcluster.ops import variable_scope as vs


def is_feature_column_v2(feature_columns: Any) -> bool:
    """Whether every column is a v2 column (all but shared_embedding_columns' in TF 1.15)."""
    return all(
        isinstance(c, FeatureColumn) and getattr(c, "_is_v2_column", False) for c in feature_columns
    )


def sorted_dense_columns(feature_columns: Any) -> list[Any]:
    """The columns checked (dense, unique names) and sorted by name, as DenseFeatures keeps
    them."""
    columns = columns_of_kinds(
        feature_columns,
        DenseColumn,
        "Items of feature_columns must be a DenseColumn. You can wrap a categorical column "
        "with an embedding_column or indicator_column.",
    )
    return sorted(columns, key=lambda c: c.name)


def create_state(layer_name: str, columns: list[Any], trainable: bool) -> dict[Any, Any]:
    """Each column's variables, made in `<current variable scope>/<layer_name>/<column>/`
    (no name scope opened: the variables' ops carry their own names)."""
    state: dict[Any, Any] = {}
    with vs._pure_variable_scope(layer_name):
        for column in columns:
            create = getattr(column, "_create_state", None)
            if create is None:
                continue
            with vs._pure_variable_scope(column.name):
                state[column] = create(trainable)
    return state


def dense_features(
    features: dict[Any, Any],
    columns: list[Any],
    state: dict[Any, Any],
    cols_to_output_tensors: dict[Any, Any] | None = None,
) -> Tensor:
    """The columns' dense tensors, each reshaped to [batch, n] under a name scope named after
    the column, concatenated along the last axis (in the name scope in force: the layer's)."""
    if not isinstance(features, dict):
        raise ValueError("We expected a dictionary here. Instead we got: ", features)
    builder = LazyBuilder(features, state=state)
    outputs: list[Tensor] = []
    for column in columns:
        with name_scope(column.name):
            tensor = column._get_dense_tensor(builder)
            n = column._variable_shape.num_elements()
            batch = array_ops.shape(tensor)[0]
            out = array_ops.reshape(tensor, shape=(batch, n))
        if cols_to_output_tensors is not None:
            cols_to_output_tensors[column] = out
        outputs.append(out)
    _check_batch_sizes(outputs, columns)
    return array_ops.concat(outputs, -1)
