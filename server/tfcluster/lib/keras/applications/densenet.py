"""DenseNet121/169/201 (tf.keras.applications.densenet): dense blocks whose layers each
concatenate 32 new channels, joined by halving transition blocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import imagenet_utils
from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Concatenate,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    ZeroPadding2D,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/keras-team/keras-applications/releases/download/densenet/"
# name -> layers per dense block, md5 of the weight files with and without the top.
_VARIANTS = {
    "densenet121": (
        (6, 12, 24, 16),
        "9d60b8095a5708f2dcce2bca79d332c7",
        "30ee3e1110167f948a6b9946edeeb738",
    ),
    "densenet169": (
        (6, 12, 32, 32),
        "d699b8f76981ab1b30698df4c175e90b",
        "b8c4d4c20dd625c148057b9ff1c1176b",
    ),
    "densenet201": (
        (6, 12, 48, 32),
        "1ceb130c1ea1b78c3bf6114dbdfd8807",
        "c13680b51ded0fb44dff2d8f86ac8bb1",
    ),
}
_EPS = 1.001e-5


def _bn(name: str) -> Any:
    return BatchNormalization(axis=setup.bn_axis(), epsilon=_EPS, name=name)


def _conv_block(x: Any, growth_rate: int, name: str) -> Any:
    x1 = _bn(name + "_0_bn")(x)
    x1 = Activation("relu", name=name + "_0_relu")(x1)
    x1 = Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = _bn(name + "_1_bn")(x1)
    x1 = Activation("relu", name=name + "_1_relu")(x1)
    x1 = Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return Concatenate(axis=setup.bn_axis(), name=name + "_concat")([x, x1])


def _transition_block(x: Any, reduction: float, name: str) -> Any:
    x = _bn(name + "_bn")(x)
    x = Activation("relu", name=name + "_relu")(x)
    channels = backend.int_shape(x)[setup.bn_axis()]  # type: ignore[index]
    x = Conv2D(int(channels * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _densenet(
    model_name: str,
    include_top: bool,
    weights: Any,
    input_tensor: Any,
    input_shape: Any,
    pooling: Any,
    classes: int,
    kwargs: dict[str, Any],
) -> Model:
    img_input = setup.checked_image_input(
        kwargs, weights, include_top, classes, input_tensor, input_shape, 224, 32
    )
    blocks, top_hash, notop_hash = _VARIANTS[model_name]
    x = ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = _bn("conv1/bn")(x)
    x = Activation("relu", name="conv1/relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, start=2):
        for i in range(1, count + 1):
            x = _conv_block(x, 32, name=f"conv{stage}_block{i}")
        if stage < 5:
            x = _transition_block(x, 0.5, name=f"pool{stage}")
    x = _bn("bn")(x)
    x = Activation("relu", name="relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dense(classes, activation="softmax", name="fc1000")(x)
    else:
        x = setup.pooled(x, pooling, named=True)
    model = setup.functional_model(input_tensor, img_input, x, model_name)
    file_hash = top_hash if include_top else notop_hash
    setup.load_release_weights(model, weights, _RELEASE, model_name, include_top, file_hash)
    return model


def _application(model_name: str) -> Callable[..., Model]:
    return setup.named_application(
        _densenet, model_name, model_name.replace("densenet", "DenseNet")
    )


DenseNet121 = _application("densenet121")
DenseNet169 = _application("densenet169")
DenseNet201 = _application("densenet201")


def preprocess_input(x: Any, data_format: str | None = None, **kwargs: Any) -> Any:
    """DenseNet's inputs: mode 'torch' (scaled to [0, 1], normalised per channel)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="torch", **kwargs)
