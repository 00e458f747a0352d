"""tf.feature_column.shared_embedding_columns (TF 1.15 v1): embedding columns of several
categorical columns with the same number of buckets that look up ONE table,
`<scope>/<a>_<b>_shared_embedding/embedding_weights` (names sorted; or the given
shared_embedding_collection_name). The table is found again through the graph collection of
that name, so every column (and every input_layer) in a graph shares it."""

from __future__ import annotations

import collections
import math
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, add_to_collection, get_collection, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    LazyBuilder,
    v1_protocol,
)
from tfcluster.lib.feature_column.categorical_columns import _WeightedCategoricalColumn
from tfcluster.ops import init_ops
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.embedding_sparse_ops import safe_embedding_lookup_sparse


class _SharedEmbeddingColumn(
    DenseColumn,
    collections.namedtuple(
        "_SharedEmbeddingColumn",
        [
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "shared_embedding_collection_name",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
        ],
    ),
):
    _repr_name = "_SharedEmbeddingColumn"  # a v1 column in TF 1.15, underscore and all

    _is_v2_column = False  # TF 1.15's shared_embedding_columns are v1 columns

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return str(self.shared_embedding_collection_name)

    @property
    def _parse_example_spec(self) -> dict[str, Any]:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: LazyBuilder) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    def _embedding_weights(self, weight_collections: Any, trainable: Any) -> Any:
        shape = (self.categorical_column._num_buckets, self.dimension)
        shared = get_collection(self.shared_embedding_collection_name)
        if shared:
            if len(shared) > 1:
                raise ValueError(
                    f"Collection {shared} can only contain one variable. Suggested fix A: "
                    "Choose a unique name for this collection. Suggested fix B: Do not add "
                    "any variables to this collection. The feature_column library already "
                    "adds a variable under the hood."
                )
            weights = shared[0]
            if tuple(weights.get_shape().as_list()) != shape:
                raise ValueError(
                    f"Shared embedding collection {self.shared_embedding_collection_name} "
                    f"contains variable {weights.name} of unexpected shape "
                    f"{weights.get_shape()}. Expected shape is {shape}. Suggested fix A: "
                    "Choose a unique name for this collection. Suggested fix B: Do not add "
                    "any variables to this collection. The feature_column library already "
                    "adds a variable under the hood."
                )
            return weights
        weights = vs.get_variable(
            "embedding_weights",
            shape=shape,
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=bool(self.trainable and trainable is not False),
            collections=weight_collections,
        )
        add_to_collection(self.shared_embedding_collection_name, weights)
        return weights

    def _get_dense_tensor(
        self, inputs: LazyBuilder, weight_collections: Any = None, trainable: Any = None
    ) -> Tensor:
        from tfcluster.lib.feature_column.sequence_columns import refuse_sequence_input

        refuse_sequence_input("embedding_column", self.name, self.categorical_column)
        # One variable scope serves all the shared columns: a name scope per column keeps
        # their ops apart.
        with name_scope(None, default_name=self.name):
            pair = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections, trainable
            )
            weights = self._embedding_weights(weight_collections, trainable)
            if self.ckpt_to_load_from is not None:
                from tfcluster.training.checkpoint_utils import init_from_checkpoint

                init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
            return safe_embedding_lookup_sparse(
                weights,
                pair.id_tensor,
                pair.weight_tensor,
                combiner=self.combiner,
                name=f"{self.name}_weights",
                max_norm=self.max_norm,
            )


def _unweighted(column: Any) -> Any:
    return column.categorical_column if isinstance(column, _WeightedCategoricalColumn) else column


def shared_embedding_columns(
    categorical_columns: Any,
    dimension: int,
    combiner: str = "mean",
    initializer: Any = None,
    shared_embedding_collection_name: str | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: Any = None,
    trainable: bool = True,
) -> list[_SharedEmbeddingColumn]:
    """One embedding column per categorical column, all over one shared table."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError(
            "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
        )
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(
            mean=0.0, stddev=1.0 / math.sqrt(dimension)
        )
    columns = list(categorical_columns)
    ordered = sorted(columns, key=lambda c: c.name)
    c0 = ordered[0]
    if not isinstance(c0, CategoricalColumn):
        raise ValueError(
            "All categorical_columns must be subclasses of _CategoricalColumn. "
            f"Given: {c0}, of type: {type(c0)}"
        )
    # TF's v1 shared_embedding_columns reads each column's deprecated _num_buckets.
    with v1_protocol():
        num_buckets = c0._num_buckets
        first = _unweighted(c0)
        for c in ordered[1:]:
            base = _unweighted(c)
            if not isinstance(base, type(first)):
                raise ValueError(
                    "To use shared_embedding_column, all categorical_columns must have the same "
                    "type, or be weighted_categorical_column of the same type. Given column: "
                    f"{first} of type: {type(first)} does not match given column: {base} of "
                    f"type: {type(base)}"
                )
            if num_buckets != c._num_buckets:
                raise ValueError(
                    "To use shared_embedding_column, all categorical_columns must have the same "
                    f"number of buckets. Given column: {first} with buckets: {num_buckets} does  "
                    f"not match column: {c} with buckets: {c._num_buckets}"
                )
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in ordered) + "_shared_embedding"
    return [
        _SharedEmbeddingColumn(
            c,
            dimension,
            combiner,
            initializer,
            shared_embedding_collection_name,
            ckpt_to_load_from,
            tensor_name_in_ckpt,
            max_norm,
            trainable,
        )
        for c in columns
    ]
