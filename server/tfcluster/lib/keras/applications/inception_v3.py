"""InceptionV3 (tf.keras.applications.inception_v3). Convolutions without names get Keras's
automatic ones (conv2d_N, batch_normalization_N, activation_N), as in TF."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    concatenate,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.5/"
_TOP = ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5", "9a0d58056eeedaa3f26cb7ebd46da564")
_NOTOP = (
    "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
    "bcbd6486424b2319ff4ef7d526e38f63",
)


def _conv_bn(
    x: Any, filters: int, rows: int, cols: int, padding: str = "same", strides: Any = (1, 1)
) -> Any:
    """Convolution (no bias), batch norm without scale, relu."""
    x = Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False)(x)
    x = BatchNormalization(axis=setup.bn_axis(), scale=False)(x)
    return Activation("relu")(x)


def _avg_pool_branch(x: Any, filters: int) -> Any:
    x = AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return _conv_bn(x, filters, 1, 1)


def _block_35(x: Any, pool_filters: int, name: str) -> Any:
    """mixed0..2: 1x1, 5x5, double 3x3 and pooled branches."""
    b1 = _conv_bn(x, 64, 1, 1)
    b5 = _conv_bn(x, 48, 1, 1)
    b5 = _conv_bn(b5, 64, 5, 5)
    b3 = _conv_bn(x, 64, 1, 1)
    b3 = _conv_bn(b3, 96, 3, 3)
    b3 = _conv_bn(b3, 96, 3, 3)
    bp = _avg_pool_branch(x, pool_filters)
    return concatenate([b1, b5, b3, bp], axis=setup.bn_axis(), name=name)


def _block_17(x: Any, mid: int, name: str) -> Any:
    """mixed4..7: factorised 7x7 branches."""
    b1 = _conv_bn(x, 192, 1, 1)
    b7 = _conv_bn(x, mid, 1, 1)
    b7 = _conv_bn(b7, mid, 1, 7)
    b7 = _conv_bn(b7, 192, 7, 1)
    bd = _conv_bn(x, mid, 1, 1)
    bd = _conv_bn(bd, mid, 7, 1)
    bd = _conv_bn(bd, mid, 1, 7)
    bd = _conv_bn(bd, mid, 7, 1)
    bd = _conv_bn(bd, 192, 1, 7)
    bp = _avg_pool_branch(x, 192)
    return concatenate([b1, b7, bd, bp], axis=setup.bn_axis(), name=name)


def _block_8(x: Any, i: int) -> Any:
    """mixed9, mixed10: expanded 3x3 branches."""
    axis = setup.bn_axis()
    b1 = _conv_bn(x, 320, 1, 1)
    b3 = _conv_bn(x, 384, 1, 1)
    b3_1 = _conv_bn(b3, 384, 1, 3)
    b3_2 = _conv_bn(b3, 384, 3, 1)
    b3 = concatenate([b3_1, b3_2], axis=axis, name=f"mixed9_{i}")
    bd = _conv_bn(x, 448, 1, 1)
    bd = _conv_bn(bd, 384, 3, 3)
    bd_1 = _conv_bn(bd, 384, 1, 3)
    bd_2 = _conv_bn(bd, 384, 3, 1)
    bd = concatenate([bd_1, bd_2], axis=axis)
    bp = _avg_pool_branch(x, 192)
    return concatenate([b1, b3, bd, bp], axis=axis, name=f"mixed{9 + i}")


def InceptionV3(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    img_input = setup.checked_image_input(
        kwargs, weights, include_top, classes, input_tensor, input_shape, 299, 75
    )
    axis = setup.bn_axis()
    x = _conv_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = _conv_bn(x, 32, 3, 3, padding="valid")
    x = _conv_bn(x, 64, 3, 3)
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _conv_bn(x, 80, 1, 1, padding="valid")
    x = _conv_bn(x, 192, 3, 3, padding="valid")
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _block_35(x, 32, "mixed0")
    x = _block_35(x, 64, "mixed1")
    x = _block_35(x, 64, "mixed2")
    # mixed3: reduction to 17x17.
    b3 = _conv_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    bd = _conv_bn(x, 64, 1, 1)
    bd = _conv_bn(bd, 96, 3, 3)
    bd = _conv_bn(bd, 96, 3, 3, strides=(2, 2), padding="valid")
    bp = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concatenate([b3, bd, bp], axis=axis, name="mixed3")
    x = _block_17(x, 128, "mixed4")
    x = _block_17(x, 160, "mixed5")
    x = _block_17(x, 160, "mixed6")
    x = _block_17(x, 192, "mixed7")
    # mixed8: reduction to 8x8.
    b3 = _conv_bn(x, 192, 1, 1)
    b3 = _conv_bn(b3, 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = _conv_bn(x, 192, 1, 1)
    b7 = _conv_bn(b7, 192, 1, 7)
    b7 = _conv_bn(b7, 192, 7, 1)
    b7 = _conv_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    bp = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concatenate([b3, b7, bp], axis=axis, name="mixed8")
    x = _block_8(x, 0)
    x = _block_8(x, 1)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, "inception_v3")
    fname, file_hash = _TOP if include_top else _NOTOP
    setup.load_weights(model, weights, (fname, _RELEASE + fname, file_hash))
    return model
