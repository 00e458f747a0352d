"""Keras's activation layers with parameters (TF 1.15): PReLU (a learned slope per unit),
ELU and ThresholdedReLU."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import internal_deprecations
from tfcluster.lib.keras import constraints, initializers, regularizers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields
from tfcluster.lib.layers.base import InputSpec
from tfcluster.ops import array_ops, math_ops, nn_ops


def _floatx(value: Any) -> float:
    """TF 1.15 keeps these as float32 numbers: configs show the float32 value."""
    return float(np.float32(value))


class PReLU(Layer):
    def __init__(
        self,
        alpha_initializer: Any = "zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape: Any) -> None:
        param_shape = list(input_shape[1:])
        if self.shared_axes is not None:
            for i in self.shared_axes:
                param_shape[i - 1] = 1
        param_shape = [getattr(d, "value", d) for d in param_shape]
        self.alpha = self.add_weight(
            shape=param_shape,
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        axes = {}
        if self.shared_axes:
            for i in range(1, len(input_shape)):
                if i not in self.shared_axes:
                    axes[i] = getattr(input_shape[i], "value", input_shape[i])
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs: Any) -> Any:
        pos = nn_ops.relu(inputs)
        neg = -self.alpha * nn_ops.relu(-inputs)
        return pos + neg

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "alpha_initializer": config_fields.initializer(self.alpha_initializer),
            "alpha_regularizer": config_fields.regularizer(self.alpha_regularizer),
            "alpha_constraint": config_fields.constraint(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }


class ELU(Layer):
    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha = np.float32(alpha)

    def call(self, inputs: Any) -> Any:
        res = nn_ops.elu(inputs)
        if self.alpha == 1:
            return res
        internal_deprecations.called_internally(internal_deprecations.WHERE)  # K.elu's
        return array_ops.where(inputs > 0, res, self.alpha * res)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "alpha": _floatx(self.alpha)}


class ThresholdedReLU(Layer):
    def __init__(self, theta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.theta = np.float32(theta)

    def call(self, inputs: Any) -> Any:
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), inputs.dtype)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "theta": _floatx(self.theta)}
