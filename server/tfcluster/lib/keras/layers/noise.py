"""Keras's regularizing layers (TF 1.15): GaussianNoise, GaussianDropout, AlphaDropout,
SpatialDropout1D/2D/3D (whole feature maps dropped), ActivityRegularization. The noise is
applied only in the training phase."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras import backend, backend_math, regularizers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers.from_tf_layers import Dropout
from tfcluster.lib.layers.base import InputSpec
from tfcluster.ops import array_ops, math_ops


class GaussianNoise(Layer):
    _fills_training = True  # K.in_train_phase asks for the learning phase

    def __init__(self, stddev: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.stddev = stddev

    def call(self, inputs: Any, training: Any = None) -> Any:
        def noised() -> Any:
            return inputs + backend_math.random_normal(
                shape=array_ops.shape(inputs), mean=0.0, stddev=self.stddev
            )

        return backend_math.in_train_phase(noised, inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "stddev": self.stddev}


class GaussianDropout(Layer):
    _fills_training = True  # K.in_train_phase asks for the learning phase

    def __init__(self, rate: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.rate = rate

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0 < self.rate < 1:
            return inputs

        def noised() -> Any:
            stddev = float(np.sqrt(self.rate / (1.0 - self.rate)))
            return inputs * backend_math.random_normal(
                shape=array_ops.shape(inputs), mean=1.0, stddev=stddev
            )

        return backend_math.in_train_phase(noised, inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rate": self.rate}


class AlphaDropout(Layer):
    _fills_training = True  # K.in_train_phase asks for the learning phase
    """Dropout that keeps SELU's self-normalizing mean and variance."""

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0.0 < self.rate < 1.0:
            return inputs
        noise_shape = self.noise_shape if self.noise_shape else array_ops.shape(inputs)
        rate, seed = self.rate, self.seed

        def dropped() -> Any:
            alpha = 1.6732632423543772848170429916717
            scale = 1.0507009873554804934193349852946
            alpha_p = -alpha * scale
            kept = math_ops.greater_equal(backend_math.random_uniform(noise_shape, seed=seed), rate)
            kept = math_ops.cast(kept, backend.floatx())
            a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
            b = -a * alpha_p * rate
            x = inputs * kept + alpha_p * (1 - kept)
            return a * x + b

        return backend_math.in_train_phase(dropped, inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rate": self.rate}


def _spatial_dropout(rank: int) -> type:
    def __init__(self: Any, rate: float, data_format: Any = None, **kwargs: Any) -> None:
        Dropout.__init__(self, rate, **kwargs)
        self.data_format = data_format or backend.image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError("data_format must be in {'channels_last', 'channels_first'}")
        self.input_spec = InputSpec(ndim=rank + 2)

    def __init__1d(self: Any, rate: float, **kwargs: Any) -> None:
        # TF 1.15's SpatialDropout1D takes no data_format: its feature axis is the last.
        Dropout.__init__(self, rate, **kwargs)
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=3)

    def _get_noise_shape(self: Any, inputs: Any) -> Any:
        shape = array_ops.shape(inputs)
        ones = [1] * rank
        if self.data_format == "channels_first":
            return array_ops.stack([shape[0], shape[1], *ones])
        return array_ops.stack([shape[0], *ones, shape[rank + 1]])

    return type(
        f"SpatialDropout{rank}D",
        (Dropout,),
        {"__init__": __init__1d if rank == 1 else __init__, "_get_noise_shape": _get_noise_shape},
    )


SpatialDropout1D = _spatial_dropout(1)
SpatialDropout2D = _spatial_dropout(2)
SpatialDropout3D = _spatial_dropout(3)


class ActivityRegularization(Layer):
    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return inputs

    def get_config(self) -> dict[str, Any]:
        config = {**super().get_config(), "l1": self.l1, "l2": self.l2}
        return config
