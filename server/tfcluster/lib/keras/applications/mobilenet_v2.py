"""MobileNetV2 (tf.keras.applications.mobilenet_v2): inverted residual blocks with linear
bottlenecks, widths scaled by `alpha` and rounded to multiples of 8."""

from __future__ import annotations

import warnings
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Add,
    BatchNormalization,
    Conv2D,
    Dense,
    DepthwiseConv2D,
    GlobalAveragePooling2D,
    ReLU,
    ZeroPadding2D,
)
from tfcluster.lib.keras.engine.training import Model
from tfcluster.lib.keras.utils.model_tools import get_source_inputs

_RELEASE = "https://github.com/JonathanCMitchell/mobilenet_v2_keras/releases/download/v1.1/"
_IMAGENET_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of blocks 0..16.
_BLOCKS = (
    (16, 1, 1),
    (24, 2, 6),
    (24, 1, 6),
    (32, 2, 6),
    (32, 1, 6),
    (32, 1, 6),
    (64, 2, 6),
    (64, 1, 6),
    (64, 1, 6),
    (64, 1, 6),
    (96, 1, 6),
    (96, 1, 6),
    (96, 1, 6),
    (160, 2, 6),
    (160, 1, 6),
    (160, 1, 6),
    (320, 1, 6),
)


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """v rounded to the nearest multiple of divisor, never below min_value nor 10% below v."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _bn(name: str) -> Any:
    return BatchNormalization(axis=setup.channel_axis(), epsilon=1e-3, momentum=0.999, name=name)


def _inverted_res_block(
    inputs: Any, expansion: int, stride: int, alpha: float, filters: int, block_id: int
) -> Any:
    in_channels = backend.int_shape(inputs)[setup.channel_axis()]  # type: ignore[index]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = Conv2D(
            expansion * in_channels,
            kernel_size=1,
            padding="same",
            use_bias=False,
            activation=None,
            name=prefix + "expand",
        )(x)
        x = _bn(prefix + "expand_BN")(x)
        x = ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(padding=setup.correct_pad(x, 3), name=prefix + "pad")(x)
    x = DepthwiseConv2D(
        kernel_size=3,
        strides=stride,
        activation=None,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=prefix + "depthwise",
    )(x)
    x = _bn(prefix + "depthwise_BN")(x)
    x = ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = Conv2D(
        pointwise_filters,
        kernel_size=1,
        padding="same",
        use_bias=False,
        activation=None,
        name=prefix + "project",
    )(x)
    x = _bn(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return Add(name=prefix + "add")([inputs, x])
    return x


def _square_size(rows: Any, cols: Any) -> int:
    return rows if rows == cols and rows in _IMAGENET_SIZES else 224


def _default_size(input_shape: Any, input_tensor: Any) -> int:
    """The ImageNet size the input matches, from input_shape or a Keras input_tensor, after
    Keras's checks that the two agree."""
    first = backend.image_data_format() == "channels_first"
    if input_shape is not None and input_tensor is not None:
        try:
            is_keras = setup.is_keras_tensor(input_tensor)
        except ValueError:
            try:
                is_keras = setup.is_keras_tensor(get_source_inputs(input_tensor))
            except ValueError:
                raise ValueError(
                    "input_tensor: ", input_tensor, "is not type input_tensor"
                ) from None
        if not is_keras:
            raise ValueError("input_tensor specified: ", input_tensor, "is not a keras tensor")
        # Keras compares the tensor's columns with input_shape's second entry (channels_last
        # and its never-true comparison of the function backend.image_data_format).
        if backend.int_shape(input_tensor)[2] != input_shape[1]:  # type: ignore[index]
            raise ValueError(
                "input_shape: ",
                input_shape,
                "and input_tensor: ",
                input_tensor,
                "do not meet the same shape requirements",
            )
    if input_shape is None and input_tensor is not None:
        try:
            is_keras = setup.is_keras_tensor(input_tensor)
        except ValueError:
            raise ValueError(
                "input_tensor: ",
                input_tensor,
                "is type: ",
                type(input_tensor),
                "which is not a valid type",
            ) from None
        if not is_keras:
            return 224
        shape = backend.int_shape(input_tensor)
        assert shape is not None
        return _square_size(*(shape[2:4] if first else shape[1:3]))
    if input_shape is None:
        return 224
    return _square_size(*(input_shape[1:3] if first else input_shape[0:2]))


def MobileNetV2(
    input_shape: Any = None,
    alpha: float = 1.0,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    setup.check_kwargs(kwargs)
    setup.check_weights(weights, include_top, classes)
    default_size = _default_size(input_shape, input_tensor)
    input_shape = setup.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        require_flatten=include_top,
        weights=weights,
    )
    first = backend.image_data_format() == "channels_first"
    rows, cols = input_shape[1:3] if first else input_shape[0:2]
    if weights == "imagenet":
        if alpha not in [0.35, 0.5, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of `0.35`, `0.50`, "
                "`0.75`, `1.0`, `1.3` or `1.4` only."
            )
        if rows != cols or rows not in _IMAGENET_SIZES:
            rows = 224
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not in [96, 128, 160, "
                "192, 224]. Weights for input shape (224, 224) will be loaded as the default.",
                stacklevel=1,
            )
    img_input = setup.image_input(input_tensor, input_shape)
    x = ZeroPadding2D(padding=setup.correct_pad(img_input, 3), name="Conv1_pad")(img_input)
    x = Conv2D(
        _make_divisible(32 * alpha, 8),
        kernel_size=3,
        strides=(2, 2),
        padding="valid",
        use_bias=False,
        name="Conv1",
    )(x)
    x = _bn("bn_Conv1")(x)
    x = ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    last_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        x = Dense(classes, activation="softmax", use_bias=True, name="Logits")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, f"mobilenetv2_{alpha:0.2f}_{rows}")
    fname = (
        f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{alpha}_{rows}"
        f"{'' if include_top else '_no_top'}.h5"
    )
    setup.load_weights(model, weights, (fname, _RELEASE + fname, None))
    return model
