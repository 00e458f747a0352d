"""MobileNet (tf.keras.applications.mobilenet): depthwise-separable convolutions with a
width multiplier `alpha` and a `depth_multiplier`; ReLU6 activations."""

from __future__ import annotations

import warnings
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    BatchNormalization,
    Conv2D,
    DepthwiseConv2D,
    Dropout,
    GlobalAveragePooling2D,
    ReLU,
    Reshape,
    ZeroPadding2D,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.6/"
_IMAGENET_SIZES = (128, 160, 192, 224)
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0"}  # anything else is 0.25's "2_5"
# (pointwise filters, stride) of depthwise blocks 1..13.
_BLOCKS = (
    (64, 1),
    (128, 2),
    (128, 1),
    (256, 2),
    (256, 1),
    (512, 2),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (1024, 2),
    (1024, 1),
)


def _conv_block(inputs: Any, filters: int, alpha: float) -> Any:
    x = ZeroPadding2D(padding=((0, 1), (0, 1)), name="conv1_pad")(inputs)
    x = Conv2D(
        int(filters * alpha), (3, 3), padding="valid", use_bias=False, strides=(2, 2), name="conv1"
    )(x)
    x = BatchNormalization(axis=setup.channel_axis(), name="conv1_bn")(x)
    return ReLU(6.0, name="conv1_relu")(x)


def _depthwise_block(
    inputs: Any, filters: int, alpha: float, depth_multiplier: int, stride: int, block_id: int
) -> Any:
    x = inputs
    if stride != 1:
        x = ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = DepthwiseConv2D(
        (3, 3),
        padding="same" if stride == 1 else "valid",
        depth_multiplier=depth_multiplier,
        strides=(stride, stride),
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = BatchNormalization(axis=setup.channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = Conv2D(
        int(filters * alpha),
        (1, 1),
        padding="same",
        use_bias=False,
        strides=(1, 1),
        name=f"conv_pw_{block_id}",
    )(x)
    x = BatchNormalization(axis=setup.channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def _rows_cols(input_shape: Any) -> tuple[Any, Any]:
    if backend.image_data_format() == "channels_first":
        return input_shape[1], input_shape[2]
    return input_shape[0], input_shape[1]


def MobileNet(
    input_shape: Any = None,
    alpha: float = 1.0,
    depth_multiplier: int = 1,
    dropout: float = 1e-3,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    setup.check_kwargs(kwargs)
    setup.check_weights(weights, include_top, classes)
    default_size = 224
    if input_shape is not None:
        rows, cols = _rows_cols(input_shape)
        if rows == cols and rows in _IMAGENET_SIZES:
            default_size = rows
    input_shape = setup.obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=32,
        require_flatten=include_top,
        weights=weights,
    )
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1")
        if alpha not in [0.25, 0.5, 0.75, 1.0]:
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, "
                "`0.75` or `1.0` only."
            )
        if rows != cols or rows not in _IMAGENET_SIZES:
            rows = 224
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not in [128, 160, 192, "
                "224]. Weights for input shape (224, 224) will be loaded as the default.",
                stacklevel=1,  # where TF warns from: its own module
            )
    img_input = setup.image_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        channels = int(1024 * alpha)
        shape = (
            (channels, 1, 1)
            if backend.image_data_format() == "channels_first"
            else (1, 1, channels)
        )
        x = GlobalAveragePooling2D()(x)
        x = Reshape(shape, name="reshape_1")(x)
        x = Dropout(dropout, name="dropout")(x)
        x = Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = Reshape((classes,), name="reshape_2")(x)
        x = Activation("softmax", name="act_softmax")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, f"mobilenet_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        # rows is a size of _IMAGENET_SIZES here.
        top = "" if include_top else "_no_top"
        fname = f"mobilenet_{_ALPHA_TEXT.get(alpha, '2_5')}_{rows}_tf{top}.h5"
        setup.load_weights(model, weights, (fname, _RELEASE + fname, None))
    else:
        setup.load_weights(model, weights, None)
    return model
