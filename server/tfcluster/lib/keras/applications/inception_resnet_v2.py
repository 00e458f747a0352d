"""InceptionResNetV2 (tf.keras.applications.inception_resnet_v2): Inception blocks whose
output, scaled, is added to their input by a Lambda layer named after the block."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Concatenate,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    Lambda,
    MaxPooling2D,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.7/"
_TOP = (
    "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
    "e693bd0210a403b3192acc6073ad2e96",
)
_NOTOP = (
    "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
    "d19885ff4a710c122648d3b5c3b684e4",
)


def _conv_bn(
    x: Any,
    filters: int,
    kernel_size: Any,
    strides: int = 1,
    padding: str = "same",
    activation: str | None = "relu",
    use_bias: bool = False,
    name: str | None = None,
) -> Any:
    x = Conv2D(
        filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name
    )(x)
    if not use_bias:
        bn_name = None if name is None else name + "_bn"
        x = BatchNormalization(axis=setup.bn_axis(), scale=False, name=bn_name)(x)
    if activation is not None:
        x = Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _scaled_sum(inputs: list[Any], scale: float) -> Any:
    return inputs[0] + inputs[1] * scale


# block type -> its branches, each a list of (filters, kernel size).
_BRANCHES: dict[str, list[list[tuple[int, Any]]]] = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, [1, 7]), (192, [7, 1])]],
    "block8": [[(192, 1)], [(192, 1), (224, [1, 3]), (256, [3, 1])]],
}


def _inception_resnet_block(
    x: Any, scale: float, block_type: str, block_idx: int, activation: str | None = "relu"
) -> Any:
    if block_type not in _BRANCHES:
        raise ValueError(
            'Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", '
            "but got: " + str(block_type)
        )
    branches = []
    for branch in _BRANCHES[block_type]:
        b = x
        for filters, kernel in branch:
            b = _conv_bn(b, filters, kernel)
        branches.append(b)
    block_name = f"{block_type}_{block_idx}"
    axis = setup.bn_axis()
    mixed = Concatenate(axis=axis, name=block_name + "_mixed")(branches)
    channels = backend.int_shape(x)[axis]  # type: ignore[index]
    up = _conv_bn(mixed, channels, 1, activation=None, use_bias=True, name=block_name + "_conv")
    x = Lambda(
        _scaled_sum,
        output_shape=backend.int_shape(x)[1:],  # type: ignore[index]
        arguments={"scale": scale},
        name=block_name,
    )([x, up])
    if activation is not None:
        x = Activation(activation, name=block_name + "_ac")(x)
    return x


def InceptionResNetV2(
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
    # Stem.
    x = _conv_bn(img_input, 32, 3, strides=2, padding="valid")
    x = _conv_bn(x, 32, 3, padding="valid")
    x = _conv_bn(x, 64, 3)
    x = MaxPooling2D(3, strides=2)(x)
    x = _conv_bn(x, 80, 1, padding="valid")
    x = _conv_bn(x, 192, 3, padding="valid")
    x = MaxPooling2D(3, strides=2)(x)
    # mixed_5b (Inception-A).
    b0 = _conv_bn(x, 96, 1)
    b1 = _conv_bn(_conv_bn(x, 48, 1), 64, 5)
    b2 = _conv_bn(_conv_bn(_conv_bn(x, 64, 1), 96, 3), 96, 3)
    bp = _conv_bn(AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = Concatenate(axis=axis, name="mixed_5b")([b0, b1, b2, bp])
    for i in range(1, 11):
        x = _inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=i)
    # mixed_6a (Reduction-A).
    b0 = _conv_bn(x, 384, 3, strides=2, padding="valid")
    b1 = _conv_bn(_conv_bn(_conv_bn(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid")
    bp = MaxPooling2D(3, strides=2, padding="valid")(x)
    x = Concatenate(axis=axis, name="mixed_6a")([b0, b1, bp])
    for i in range(1, 21):
        x = _inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=i)
    # mixed_7a (Reduction-B).
    b0 = _conv_bn(_conv_bn(x, 256, 1), 384, 3, strides=2, padding="valid")
    b1 = _conv_bn(_conv_bn(x, 256, 1), 288, 3, strides=2, padding="valid")
    b2 = _conv_bn(_conv_bn(_conv_bn(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid")
    bp = MaxPooling2D(3, strides=2, padding="valid")(x)
    x = Concatenate(axis=axis, name="mixed_7a")([b0, b1, b2, bp])
    for i in range(1, 10):
        x = _inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=i)
    x = _inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = _conv_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, "inception_resnet_v2")
    fname, file_hash = _TOP if include_top else _NOTOP
    setup.load_weights(model, weights, (fname, _RELEASE + fname, file_hash))
    return model
