"""Xception (tf.keras.applications.xception): depthwise-separable convolutions in an entry
flow, eight middle blocks and an exit flow, with residual 1x1 projections."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    BatchNormalization,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    SeparableConv2D,
    add,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.4/"
_TOP = ("xception_weights_tf_dim_ordering_tf_kernels.h5", "0a58e3b7378bc2990ea3b43d5981f1f6")
_NOTOP = (
    "xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
    "b0042744bf5b25fce3cb969f33bebb97",
)


def _bn(name: str | None = None) -> Any:
    return BatchNormalization(axis=setup.channel_axis(), name=name)


def _sepconv_bn(x: Any, filters: int, name: str) -> Any:
    x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _bn(name + "_bn")(x)


def _projection(x: Any, filters: int) -> Any:
    residual = Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    return _bn()(residual)


def _entry_block(x: Any, block: int, filters: tuple[int, int], first_relu: bool) -> Any:
    """A block ending in a strided max pool, added to a strided 1x1 projection."""
    residual = _projection(x, filters[1])
    prefix = f"block{block}"
    if first_relu:
        x = Activation("relu", name=prefix + "_sepconv1_act")(x)
    x = _sepconv_bn(x, filters[0], prefix + "_sepconv1")
    x = Activation("relu", name=prefix + "_sepconv2_act")(x)
    x = _sepconv_bn(x, filters[1], prefix + "_sepconv2")
    x = MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=prefix + "_pool")(x)
    return add([x, residual])


def Xception(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    img_input = setup.checked_image_input(
        kwargs, weights, include_top, classes, input_tensor, input_shape, 299, 71
    )
    x = Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = _bn("block1_conv1_bn")(x)
    x = Activation("relu", name="block1_conv1_act")(x)
    x = Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = _bn("block1_conv2_bn")(x)
    x = Activation("relu", name="block1_conv2_act")(x)
    x = _entry_block(x, 2, (128, 128), first_relu=False)
    x = _entry_block(x, 3, (256, 256), first_relu=True)
    x = _entry_block(x, 4, (728, 728), first_relu=True)
    for block in range(5, 13):
        residual = x
        prefix = f"block{block}"
        for i in (1, 2, 3):
            x = Activation("relu", name=f"{prefix}_sepconv{i}_act")(x)
            x = _sepconv_bn(x, 728, f"{prefix}_sepconv{i}")
        x = add([x, residual])
    x = _entry_block(x, 13, (728, 1024), first_relu=True)
    x = _sepconv_bn(x, 1536, "block14_sepconv1")
    x = Activation("relu", name="block14_sepconv1_act")(x)
    x = _sepconv_bn(x, 2048, "block14_sepconv2")
    x = Activation("relu", name="block14_sepconv2_act")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, "xception")
    fname, file_hash = _TOP if include_top else _NOTOP
    setup.load_weights(model, weights, (fname, _RELEASE + fname, file_hash))
    return model
