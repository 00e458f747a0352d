"""tf.keras.experimental.LinearModel (TF 1.15): y = activation(sum_i x_i W_i + b), one
bias-free Dense kernel per input (`linear_model/dense/kernel`) and one bias
(`linear_model/bias`)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import activations, initializers, regularizers
from tfcluster.lib.keras.engine.training import Model
from tfcluster.lib.keras.layers.from_tf_layers import Dense
from tfcluster.ops import nn_ops


class LinearModel(Model):
    def __init__(
        self,
        units: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        shapes = (
            input_shape
            if isinstance(input_shape, (list, tuple)) and _all_shapes(input_shape)
            else [input_shape]
        )
        self.dense_layers = [
            Dense(
                units=self.units,
                use_bias=False,
                kernel_initializer=self.kernel_initializer,
                kernel_regularizer=self.kernel_regularizer,
            )
            for _ in shapes
        ]
        self.bias = (
            self.add_weight(
                "bias",
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                dtype=self.dtype,
                trainable=True,
            )
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # TF: inputs only
        if not isinstance(inputs, (tuple, list)):
            inputs = [inputs]
        if len(inputs) != len(self.dense_layers):
            raise ValueError(
                f"Expected {len(self.dense_layers)} inputs, but got {len(inputs)} inputs"
            )
        result: Any = None
        for x, layer in zip(inputs, self.dense_layers):
            output = layer(x)
            result = output if result is None else result + output
        if self.bias is not None:
            result = nn_ops.bias_add(result, self.bias)
        if self.activation is not None:
            return self.activation(result)
        return result

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": self.dtype,
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> LinearModel:
        del custom_objects
        return cls(**config)


def _all_shapes(shapes: Any) -> bool:
    """A list of input shapes (several inputs), not one shape given as a list of dims."""
    return len(shapes) > 0 and all(
        s is None or hasattr(s, "as_list") or isinstance(s, (list, tuple)) for s in shapes
    )
