"""tf.keras.layers.DenseFeatures (TF 1.15).

DenseFeatures turns a dict of features into one dense [batch, n] tensor through feature
columns, its variables under the layer's name
(`dense_features/<column>_embedding/embedding_weights`) and tracked as the layer's weights.
It takes v2 columns (tf.feature_column's, shared embedding columns aside) and makes their
variables first, as resource variables (see lib/feature_column/dense_features.py)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, get_collection
from tfcluster.lib.feature_column import dense_features
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.ops.variables import PartitionedVariable


class DenseFeatures(Layer):
    def __init__(
        self, feature_columns: Any, trainable: bool = True, name: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        from tfcluster.lib.feature_column.base import normalize_feature_columns

        columns = normalize_feature_columns(feature_columns)
        for column in columns:
            if not dense_features.is_feature_column_v2([column]):
                # TF 1.15's DenseFeatures takes v2 columns only (not shared_embedding_columns').
                raise ValueError(
                    "Items of feature_columns must be a FeatureColumn. Given (type "
                    f"{type(column)}): {column}."
                )
        self._feature_columns = dense_features.sorted_dense_columns(columns)
        self._state: dict[Any, Any] | None = None
        # Built on the first call (the columns' state is made there, before their tensors).
        self.built = True

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(inputs, dict):
            raise ValueError("We expected a dictionary here. Instead we got: ", inputs)
        return super().__call__(inputs, *args, **kwargs)

    def call(self, features: Any, cols_to_output_tensors: Any = None) -> Any:
        """TF 1.15's DenseFeatures: every column's state first (resource variables under
        `<layer>/<column>/`), once; then the columns' tensors."""
        if self._state is None:
            self._state = dense_features.create_state(
                self._name, self._feature_columns, self.trainable
            )
            for var in self._state.values():
                parts = list(var) if isinstance(var, PartitionedVariable) else [var]
                for part in parts:
                    if part in get_collection(GraphKeys.TRAINABLE_VARIABLES):
                        self._trainable_weights.append(part)
                    else:
                        self._non_trainable_weights.append(part)
        return dense_features.dense_features(
            features, self._feature_columns, self._state, cols_to_output_tensors
        )

    def get_config(self) -> dict[str, Any]:
        raise backend.unimplemented(
            "tf.keras.layers.DenseFeatures.get_config (feature column serialization)"
        )


class SequenceFeatures(Layer):
    """tf.keras.experimental.SequenceFeatures: sequence columns (embedding/indicator columns
    of sequence categorical columns, sequence_numeric_column) as one [batch, T, n] tensor and
    the examples' sequence lengths, variables under the layer's name
    (`sequence_features/<column>_embedding/embedding_weights`)."""

    def __init__(
        self, feature_columns: Any, trainable: bool = True, name: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        columns = (
            list(feature_columns)
            if isinstance(feature_columns, (list, tuple))
            else [feature_columns]
        )
        for column in columns:
            if not hasattr(column, "_get_sequence_dense_tensor"):
                raise ValueError(
                    "Items of feature_columns must be a SequenceDenseColumn (an embedding or "
                    "indicator column of a sequence categorical column, or a "
                    f"sequence_numeric_column). Given: {column}"
                )
        self._feature_columns = sorted(columns, key=lambda c: c.name)
        self.built = True

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(inputs, dict):
            raise ValueError("We expected a dictionary here. Instead we got: ", inputs)
        return super().__call__(inputs, *args, **kwargs)

    def call(self, features: Any) -> Any:
        from tfcluster.framework.graph import control_dependencies, name_scope
        from tfcluster.lib.feature_column.base import LazyBuilder
        from tfcluster.ops import array_ops, check_ops
        from tfcluster.ops import variable_scope as vs

        before = {id(v) for v in get_collection(GraphKeys.GLOBAL_VARIABLES)}
        builder = LazyBuilder(features)
        outputs, lengths = [], []
        with vs.variable_scope(self._name, reuse=vs.AUTO_REUSE):
            for column in self._feature_columns:
                with name_scope(column.name), vs.variable_scope(column.name):
                    dense, length = column._get_sequence_dense_tensor(
                        builder, trainable=self.trainable
                    )
                    n = column._variable_shape.num_elements()
                    shape = array_ops.shape(dense)
                    outputs.append(
                        array_ops.reshape(dense, array_ops.stack([shape[0], shape[1], n]))
                    )
                    lengths.append(length)
        for v in get_collection(GraphKeys.GLOBAL_VARIABLES):
            if id(v) in before:
                continue
            if v in get_collection(GraphKeys.TRAINABLE_VARIABLES):
                self._trainable_weights.append(v)
            else:
                self._non_trainable_weights.append(v)
        sequence_length = lengths[0]
        if len(lengths) > 1:
            checks = [check_ops.assert_equal(t, lengths[0]) for t in lengths[1:]]
            with control_dependencies(checks):
                sequence_length = array_ops.identity(lengths[0])
        return array_ops.concat(outputs, -1), sequence_length

    def build(self, _: Any) -> None:
        # The columns make their variables on the first call, in the layer's name scope.
        self.built = True

    def get_config(self) -> dict[str, Any]:
        raise backend.unimplemented(
            "tf.keras.experimental.SequenceFeatures.get_config (feature column serialization)"
        )

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        raise backend.unimplemented(
            "tf.keras.experimental.SequenceFeatures.from_config (feature column serialization)"
        )
