"""tf.keras.layers.Embedding: rows of an `embeddings` matrix looked up by integer ids."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.lib.keras import initializers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields
from tfcluster.lib.keras.regularizers import get as get_regularizer
from tfcluster.ops import embedding_ops, math_ops


class Embedding(Layer):
    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        activity_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        input_length: Any = None,
        **kwargs: Any,
    ) -> None:
        if "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        super().__init__(activity_regularizer=get_regularizer(activity_regularizer), **kwargs)
        self._dtype = dtypes.float32  # the ids may be ints; the weights are floats
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = get_regularizer(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.mask_zero = mask_zero
        self.input_length = input_length

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": config_fields.initializer(self.embeddings_initializer),
            "embeddings_regularizer": config_fields.regularizer(self.embeddings_regularizer),
            "activity_regularizer": config_fields.regularizer(self.activity_regularizer),
            "embeddings_constraint": config_fields.constraint(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "input_length": self.input_length,
        }

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.base_dtype != dtypes.int32:
            inputs = math_ops.cast(inputs, "int32")
        return embedding_ops.embedding_lookup(self.embeddings, inputs)
