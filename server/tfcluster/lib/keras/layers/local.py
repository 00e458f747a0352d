"""Keras's locally-connected layers (TF 1.15, implementation=1): convolutions whose kernel is
not shared, one per output position."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import (
    activations,
    backend,
    backend_math,
    constraints,
    initializers,
    regularizers,
)
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields
from tfcluster.lib.layers import utils as conv_utils
from tfcluster.lib.layers.base import InputSpec


def _output_length(length: int, kernel: int, stride: int) -> int:
    return (length - kernel + stride) // stride


class _LocallyConnected(Layer):
    rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: Any = None,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        implementation: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        rank = self.rank
        self.filters = filters
        self.kernel_size = conv_utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = conv_utils.normalize_tuple(strides, rank, "strides")
        self.padding = conv_utils.normalize_padding(padding)
        if self.padding != "valid" and implementation == 1:
            raise ValueError('Invalid border mode for LocallyConnected: only "valid" is supported.')
        if implementation != 1:
            raise backend.unimplemented(
                f"tf.keras.layers.LocallyConnected{rank}D(implementation={implementation})"
            )
        self.data_format = conv_utils.normalize_data_format(
            data_format or backend.image_data_format()
        )
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.implementation = implementation
        self.input_spec = InputSpec(ndim=rank + 2)

    def build(self, input_shape: Any) -> None:
        dims = [getattr(d, "value", d) for d in input_shape]
        first = self.data_format == "channels_first"
        input_dim = dims[1] if first else dims[-1]
        spatial = dims[2:] if first else dims[1:-1]
        if input_dim is None or any(d is None for d in spatial):
            raise ValueError(
                f"The spatial dimensions of the inputs to LocallyConnected{self.rank}D should "
                f"be fully-defined. Found shape: {tuple(dims)}"
            )
        self.output_shape_ = tuple(
            _output_length(d, k, s) for d, k, s in zip(spatial, self.kernel_size, self.strides)
        )
        positions = 1
        for d in self.output_shape_:
            positions *= d
        feature_dim = input_dim
        for k in self.kernel_size:
            feature_dim *= k
        self.kernel = self.add_weight(
            shape=(positions, feature_dim, self.filters),
            initializer=self.kernel_initializer,
            name="kernel",
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(*self.output_shape_, self.filters),
                initializer=self.bias_initializer,
                name="bias",
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        axes = {1: input_dim} if first else {-1: input_dim}
        self.input_spec = InputSpec(ndim=self.rank + 2, axes=axes)
        self.built = True

    def call(self, inputs: Any) -> Any:
        output = backend_math.local_conv(
            inputs,
            self.kernel,
            self.kernel_size,
            self.strides,
            self.output_shape_,
            self.data_format,
        )
        if self.use_bias:
            output = backend_math.bias_add(output, self.bias, data_format=self.data_format)
        return self.activation(output)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "activation": config_fields.activation(self.activation),
            "use_bias": self.use_bias,
            **config_fields.weights(self, "kernel"),
            "implementation": self.implementation,
        }


class LocallyConnected1D(_LocallyConnected):
    rank = 1


class LocallyConnected2D(_LocallyConnected):
    rank = 2

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: Any = None,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        implementation: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            implementation=implementation,
            **kwargs,
        )
