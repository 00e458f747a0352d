"""The tf.keras layers that tf.layers already computes: the same classes with Keras's
naming, weights and learning phase (KerasLayerMixin), and Keras's argument defaults
(activation and initializers by Keras name, pooling strides defaulting to pool_size)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import activations, constraints, initializers, regularizers
from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin
from tfcluster.lib.keras.layers import config_fields, tf_signature
from tfcluster.lib.layers import convolutional as tf_conv
from tfcluster.lib.layers import core as tf_core
from tfcluster.lib.layers import normalization as tf_norm
from tfcluster.lib.layers import pooling as tf_pool

_INITIALIZER_ARGS = (
    "kernel_initializer",
    "bias_initializer",
    "depthwise_initializer",
    "pointwise_initializer",
    "beta_initializer",
    "gamma_initializer",
    "moving_mean_initializer",
    "moving_variance_initializer",
)


def _keras_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    for key in _INITIALIZER_ARGS:
        if key in kwargs:
            kwargs[key] = initializers.get(kwargs[key])
    if "activation" in kwargs:
        kwargs["activation"] = activations.get(kwargs["activation"])
    for key in kwargs:
        if key.endswith("_constraint"):
            kwargs[key] = constraints.get(kwargs[key])
        elif key.endswith("_regularizer"):
            kwargs[key] = regularizers.get(kwargs[key])
    return kwargs


class Dense(KerasLayerMixin, tf_core.Dense):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs = tf_signature.given_arguments(tf_signature.DENSE, self, args, kwargs)
        units, activation = kwargs.pop("units"), kwargs.pop("activation", None)
        kwargs.setdefault("kernel_initializer", "glorot_uniform")
        kwargs.setdefault("bias_initializer", "zeros")
        super().__init__(units, **_keras_arguments({"activation": activation, **kwargs}))

    __init__.__signature__ = tf_signature.DENSE  # type: ignore[attr-defined]

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": config_fields.activation(self.activation),
            "use_bias": self.use_bias,
            **config_fields.weights(self, "kernel"),
        }


class Dropout(KerasLayerMixin, tf_core.Dropout):
    _fills_training = True  # its call asks for the learning phase, as TF 1.15's

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(rate=rate, noise_shape=noise_shape, seed=seed, **kwargs)

    def call(self, inputs: Any, training: Any = None) -> Any:
        return super().call(inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "rate": self.rate,
            "noise_shape": self.noise_shape,
            "seed": self.seed,
        }


class Flatten(KerasLayerMixin, tf_core.Flatten):
    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        # None is Keras's image data format, channels_last: the tf.layers default.
        if data_format is not None:
            kwargs["data_format"] = data_format
        super().__init__(**kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "data_format": self.data_format}


def _conv_config(self: Any) -> dict[str, Any]:
    config = {
        **KerasLayerMixin.get_config(self),
        "filters": self.filters,
        "kernel_size": self.kernel_size,
        "strides": self.strides,
        "padding": self.padding,
        "data_format": self.data_format,
        "dilation_rate": self.dilation_rate,
        "activation": config_fields.activation(self.activation),
        "use_bias": self.use_bias,
    }
    # A separable convolution keeps the Conv fields too (kernel_initializer, ...: given,
    # stored and unused, as TF 1.15 does), then its own after them.
    config.update(config_fields.weights(self, "kernel"))
    if hasattr(self, "depthwise_initializer"):
        config["depth_multiplier"] = self.depth_multiplier
        for part, serialize in (
            ("initializer", config_fields.initializer),
            ("regularizer", config_fields.regularizer),
            ("constraint", config_fields.constraint),
        ):
            for prefix in ("depthwise", "pointwise"):
                config[f"{prefix}_{part}"] = serialize(getattr(self, f"{prefix}_{part}", None))
    if hasattr(self, "output_padding"):
        config["output_padding"] = self.output_padding
    return config


def _conv_class(base: type, doc: str, params: list[tuple[str, Any]]) -> type:
    sig = tf_signature.signature(params)
    separable = issubclass(base, tf_conv._SeparableConv)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs = tf_signature.given_arguments(sig, self, args, kwargs)
        filters, kernel_size = kwargs.pop("filters"), kwargs.pop("kernel_size")
        kwargs.setdefault("kernel_initializer", "glorot_uniform")
        kwargs.setdefault("bias_initializer", "zeros")
        if separable:
            kwargs.setdefault("depthwise_initializer", "glorot_uniform")
            kwargs.setdefault("pointwise_initializer", "glorot_uniform")
        KerasLayerMixin.__init__(self, filters, kernel_size, **_keras_arguments(kwargs))

    __init__.__signature__ = sig  # type: ignore[attr-defined]

    return type(
        base.__name__,
        (KerasLayerMixin, base),
        {"__init__": __init__, "__doc__": doc, "get_config": _conv_config},
    )


_conv = tf_signature.conv_params
Conv1D = _conv_class(tf_conv.Conv1D, "1-D convolution (tf.keras.layers.Conv1D).", _conv(1))
Conv2D = _conv_class(tf_conv.Conv2D, "2-D convolution (tf.keras.layers.Conv2D).", _conv(2))
Conv3D = _conv_class(tf_conv.Conv3D, "3-D convolution (tf.keras.layers.Conv3D).", _conv(3))
Conv2DTranspose = _conv_class(
    tf_conv.Conv2DTranspose, "Transposed 2-D convolution.", _conv(2, transpose=True)
)
Conv3DTranspose = _conv_class(
    tf_conv.Conv3DTranspose, "Transposed 3-D convolution.", _conv(3, transpose=True)
)
SeparableConv1D = _conv_class(
    tf_conv.SeparableConv1D, "Depthwise-separable 1-D convolution.", _conv(1, separable=True)
)
SeparableConv2D = _conv_class(
    tf_conv.SeparableConv2D, "Depthwise-separable 2-D convolution.", _conv(2, separable=True)
)


def _pool_class(base: type, rank: int) -> type:
    default = 2

    def __init__(
        self: Any,
        pool_size: Any = (default,) * rank if rank > 1 else default,
        strides: Any = None,
        padding: str = "valid",
        data_format: Any = "channels_last" if rank == 1 else None,  # as TF 1.15's
        **kwargs: Any,
    ) -> None:
        if strides is None:
            strides = pool_size
        KerasLayerMixin.__init__(
            self, pool_size, strides, padding=padding, data_format=data_format, **kwargs
        )

    def get_config(self: Any) -> dict[str, Any]:
        return {
            **KerasLayerMixin.get_config(self),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }

    return type(
        base.__name__, (KerasLayerMixin, base), {"__init__": __init__, "get_config": get_config}
    )


MaxPooling1D = _pool_class(tf_pool.MaxPooling1D, 1)
MaxPooling2D = _pool_class(tf_pool.MaxPooling2D, 2)
MaxPooling3D = _pool_class(tf_pool.MaxPooling3D, 3)
AveragePooling1D = _pool_class(tf_pool.AveragePooling1D, 1)
AveragePooling2D = _pool_class(tf_pool.AveragePooling2D, 2)
AveragePooling3D = _pool_class(tf_pool.AveragePooling3D, 3)


class BatchNormalization(KerasLayerMixin, tf_norm.BatchNormalization):
    _fills_training = True  # its call asks for the learning phase, as TF 1.15's

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs = tf_signature.given_arguments(tf_signature.BATCH_NORMALIZATION, self, args, kwargs)
        axis = kwargs.pop("axis", -1)
        kwargs.setdefault("beta_initializer", "zeros")
        kwargs.setdefault("gamma_initializer", "ones")
        kwargs.setdefault("moving_mean_initializer", "zeros")
        kwargs.setdefault("moving_variance_initializer", "ones")
        super().__init__(axis=axis, **_keras_arguments(kwargs))

    __init__.__signature__ = tf_signature.BATCH_NORMALIZATION  # type: ignore[attr-defined]

    def call(self, inputs: Any, training: Any = None) -> Any:
        return super().call(inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
        }
        for name in ("beta", "gamma", "moving_mean", "moving_variance"):
            config[f"{name}_initializer"] = config_fields.initializer(
                getattr(self, f"{name}_initializer")
            )
        for name in ("beta", "gamma"):
            config[f"{name}_regularizer"] = config_fields.regularizer(
                getattr(self, f"{name}_regularizer")
            )
        for name in ("beta", "gamma"):
            config[f"{name}_constraint"] = config_fields.constraint(
                getattr(self, f"{name}_constraint")
            )
        if self.renorm:
            config["renorm"] = True
            config["renorm_clipping"] = self.renorm_clipping
            config["renorm_momentum"] = self.renorm_momentum
        if self.virtual_batch_size is not None:
            config["virtual_batch_size"] = self.virtual_batch_size
        return config
