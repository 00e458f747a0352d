"""tf.keras.layers.LayerNormalization (TF 1.15): each example normalized over `axis` by its
own mean and variance, then scaled by gamma and shifted by beta."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import constraints, initializers, regularizers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields
from tfcluster.ops import array_ops, nn_impl, nn_ops


class LayerNormalization(Layer):
    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis: Any = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise ValueError(
                "Expected an int or a list/tuple of ints for the argument 'axis', but "
                f"received instead: {axis}"
            )
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        dims = [getattr(d, "value", d) for d in input_shape]
        ndims = len(dims)
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        self.axis = [x + ndims if x < 0 else x for x in self.axis]
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid axis: {x}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        param_shape = [dims[d] for d in self.axis]
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma",
                shape=param_shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                trainable=True,
            )
        if self.center:
            self.beta = self.add_weight(
                name="beta",
                shape=param_shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                trainable=True,
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        ndims = len(dims)
        mean, variance = nn_ops.moments(inputs, self.axis, keep_dims=True)
        broadcast_shape = [1] * ndims
        for d in self.axis:
            broadcast_shape[d] = dims[d]

        def broadcast(v: Any) -> Any:
            if v is not None and len(v.shape) != ndims and self.axis != [ndims - 1]:
                return array_ops.reshape(v, broadcast_shape)
            return v

        return nn_impl.batch_normalization(
            inputs,
            mean,
            variance,
            offset=broadcast(self.beta),
            scale=broadcast(self.gamma),
            variance_epsilon=self.epsilon,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": config_fields.initializer(self.beta_initializer),
            "gamma_initializer": config_fields.initializer(self.gamma_initializer),
            "beta_regularizer": config_fields.regularizer(self.beta_regularizer),
            "gamma_regularizer": config_fields.regularizer(self.gamma_regularizer),
            "beta_constraint": config_fields.constraint(self.beta_constraint),
            "gamma_constraint": config_fields.constraint(self.gamma_constraint),
        }
