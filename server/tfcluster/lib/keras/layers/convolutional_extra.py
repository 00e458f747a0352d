"""Keras's shape layers around convolutions (TF 1.15): ZeroPadding1D/2D/3D, Cropping1D/2D/3D,
UpSampling1D/2D/3D, and DepthwiseConv2D (one kernel per input channel)."""

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


def _data_format(value: Any) -> str:
    return conv_utils.normalize_data_format(value or backend.image_data_format())


def _pairs(value: Any, rank: int, name: str) -> tuple[tuple[int, int], ...]:
    """An int (same on every side), `rank` ints (same on both sides of each axis), or `rank`
    pairs, as Keras's padding/cropping arguments."""
    if isinstance(value, int):
        return tuple((value, value) for _ in range(rank))
    if not hasattr(value, "__len__") or len(value) != rank:
        raise ValueError(
            f"`{name}` should be either an int, a tuple of {rank} ints, or a tuple of {rank} "
            f"tuples of 2 ints. Found: {value}"
        )
    out: list[tuple[int, int]] = []
    for item in value:
        if isinstance(item, int):
            out.append((item, item))
        else:
            before, after = conv_utils.normalize_tuple(item, 2, f"{name} entry")
            out.append((before, after))
    return tuple(out)


# ---- zero padding ---------------------------------------------------------------------------
class ZeroPadding1D(Layer):
    def __init__(self, padding: Any = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = conv_utils.normalize_tuple(padding, 2, "padding")
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return backend_math.temporal_padding(inputs, padding=self.padding)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "padding": self.padding}


class ZeroPadding2D(Layer):
    def __init__(self, padding: Any = (1, 1), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.padding = _pairs(padding, 2, "padding")
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        return backend_math.spatial_2d_padding(inputs, self.padding, self.data_format)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding3D(Layer):
    def __init__(self, padding: Any = (1, 1, 1), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.padding = _pairs(padding, 3, "padding")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        return backend_math.spatial_3d_padding(inputs, self.padding, self.data_format)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


# ---- cropping -------------------------------------------------------------------------------
def _crop(inputs: Any, cropping: tuple[tuple[int, int], ...], first_spatial: int) -> Any:
    slices: list[slice] = [slice(None)] * first_spatial
    for before, after in cropping:
        slices.append(slice(before, -after if after else None))
    return inputs[tuple(slices)]


class Cropping1D(Layer):
    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = conv_utils.normalize_tuple(cropping, 2, "cropping")
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return _crop(inputs, (tuple(self.cropping),), 1)  # type: ignore[arg-type]

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    def __init__(
        self, cropping: Any = ((0, 0), (0, 0)), data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.cropping = _pairs(cropping, 2, "cropping")
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        return _crop(inputs, self.cropping, 2 if self.data_format == "channels_first" else 1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class Cropping3D(Layer):
    def __init__(
        self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.cropping = _pairs(cropping, 3, "cropping")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        return _crop(inputs, self.cropping, 2 if self.data_format == "channels_first" else 1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


# ---- up-sampling ------------------------------------------------------------------------------
class UpSampling1D(Layer):
    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = int(size)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return backend_math.repeat_elements(inputs, self.size, axis=1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    def __init__(
        self,
        size: Any = (2, 2),
        data_format: Any = None,
        interpolation: str = "nearest",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.size = conv_utils.normalize_tuple(size, 2, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                '`interpolation` argument should be one of `"nearest"` or `"bilinear"`.'
            )
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        return backend_math.resize_images(
            inputs, self.size[0], self.size[1], self.data_format, interpolation=self.interpolation
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }


class UpSampling3D(Layer):
    def __init__(self, size: Any = (2, 2, 2), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.size = conv_utils.normalize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        depth, height, width = self.size
        return backend_math.resize_volumes(inputs, depth, height, width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


# ---- depthwise convolution ---------------------------------------------------------------------
class DepthwiseConv2D(Layer):
    def __init__(
        self,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: Any = None,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        *,  # TF 2.x's, beyond TF 1.15's signature
        dilation_rate: Any = (1, 1),
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = 2
        self.kernel_size = conv_utils.normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = conv_utils.normalize_tuple(strides, 2, "strides")
        self.padding = conv_utils.normalize_padding(padding)
        self.data_format = _data_format(data_format)
        self.dilation_rate = conv_utils.normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        # Conv2D's fields, which TF 1.15's DepthwiseConv2D inherits and does not use.
        self.filters = None
        self.kernel_initializer = initializers.get("glorot_uniform")
        self.kernel_regularizer = None
        self.kernel_constraint = None
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape)
        if len(shape) < 4:
            raise ValueError(
                "Inputs to `DepthwiseConv2D` should have rank 4. Received input shape:",
                str(input_shape),
            )
        channel_axis = 1 if self.data_format == "channels_first" else 3
        input_dim = shape[channel_axis]
        input_dim = getattr(input_dim, "value", input_dim)
        if input_dim is None:
            raise ValueError(
                "The channel dimension of the inputs to `DepthwiseConv2D` should be defined. "
                "Found `None`."
            )
        input_dim = int(input_dim)
        self.depthwise_kernel = self.add_weight(
            shape=(*self.kernel_size, input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            name="depthwise_kernel",
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(input_dim * self.depth_multiplier,),
                initializer=self.bias_initializer,
                name="bias",
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.input_spec = InputSpec(ndim=4, axes={channel_axis: input_dim})
        self.built = True

    def call(self, inputs: Any) -> Any:
        outputs = backend_math.depthwise_conv2d(
            inputs,
            self.depthwise_kernel,
            strides=self.strides,
            padding=self.padding,
            dilation_rate=self.dilation_rate,
            data_format=self.data_format,
        )
        if self.use_bias:
            outputs = backend_math.bias_add(outputs, self.bias, data_format=self.data_format)
        return self.activation(outputs) if self.activation is not None else outputs

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": config_fields.activation(self.activation),
            "use_bias": self.use_bias,
            "bias_initializer": config_fields.initializer(self.bias_initializer),
            "bias_regularizer": config_fields.regularizer(self.bias_regularizer),
            "activity_regularizer": config_fields.regularizer(self.activity_regularizer),
            "bias_constraint": config_fields.constraint(self.bias_constraint),
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": config_fields.initializer(self.depthwise_initializer),
            "depthwise_regularizer": config_fields.regularizer(self.depthwise_regularizer),
            "depthwise_constraint": config_fields.constraint(self.depthwise_constraint),
        }
