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
            _track_state(self, self._state)
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
    the examples' sequence lengths. As TF 1.15's (a features layer like DenseFeatures): the
    columns' state first, as resource variables under `<layer>/<column>/`, then each column's
    tensors in a name scope named after it, the lengths checked equal under
    `assert_all_equal`."""

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
        self._state: dict[Any, Any] | None = None
        self.built = True

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(inputs, dict):
            raise ValueError("We expected a dictionary here. Instead we got: ", inputs)
        return super().__call__(inputs, *args, **kwargs)

    def call(self, features: Any) -> Any:
        from tfcluster.framework.graph import name_scope
        from tfcluster.lib.feature_column.base import LazyBuilder
        from tfcluster.lib.feature_column.layers import _check_batch_sizes
        from tfcluster.ops import array_ops

        if self._state is None:
            self._state = dense_features.create_state(
                self._name, self._feature_columns, self.trainable
            )
            _track_state(self, self._state)
        builder = LazyBuilder(features, state=self._state)
        outputs, lengths = [], []
        for column in self._feature_columns:
            with name_scope(column.name):
                dense, length = column._get_sequence_dense_tensor(builder)
                n = column._variable_shape.num_elements()
                shape = array_ops.shape(dense)
                outputs.append(array_ops.reshape(dense, shape=(shape[0], shape[1], n)))
                lengths.append(length)
        _check_batch_sizes(lengths, self._feature_columns)
        sequence_length = _assert_all_equal_and_return(lengths)
        _check_batch_sizes(outputs, self._feature_columns)
        return array_ops.concat(outputs, -1), sequence_length

    def build(self, _: Any) -> None:
        # The columns' state is made on the first call, right after (see call).
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


def _track_state(layer: Layer, state: dict[Any, Any]) -> None:
    """The columns' state variables as the layer's weights (trainable or not, by the
    collections they were made in)."""
    for var in state.values():
        parts = list(var) if isinstance(var, PartitionedVariable) else [var]
        for part in parts:
            if part in get_collection(GraphKeys.TRAINABLE_VARIABLES):
                layer._trainable_weights.append(part)
            else:
                layer._non_trainable_weights.append(part)


def _assert_all_equal_and_return(tensors: list[Any]) -> Any:
    """The first tensor, after asserting the others equal it (TF's name scope)."""
    from tfcluster.framework.graph import control_dependencies, name_scope
    from tfcluster.ops import array_ops, check_ops

    with name_scope(None, "assert_all_equal", tensors):
        if len(tensors) == 1:
            return tensors[0]
        checks = [check_ops.assert_equal(tensors[0], t) for t in tensors[1:]]
        with control_dependencies(checks):
            return array_ops.identity(tensors[0])
