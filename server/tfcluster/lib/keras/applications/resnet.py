"""ResNet50/101/152 and their V2 (pre-activation) forms: tf.keras.applications.resnet,
resnet50 and resnet_v2 (TF 1.15 builds every ResNet50 from Keras Applications'
resnet_common, with layer names such as conv2_block1_1_conv)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    Add,
    BatchNormalization,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    ZeroPadding2D,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/keras-team/keras-applications/releases/download/resnet/"
# model name -> md5 of the weight files with and without the top.
_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
# model name -> blocks per stage (conv2 .. conv5).
_BLOCKS = {
    "resnet50": (3, 4, 6, 3),
    "resnet101": (3, 4, 23, 3),
    "resnet152": (3, 8, 36, 3),
    "resnet50v2": (3, 4, 6, 3),
    "resnet101v2": (3, 4, 23, 3),
    "resnet152v2": (3, 8, 36, 3),
}
_EPS = 1.001e-5


def _bn(name: str) -> Any:
    return BatchNormalization(axis=setup.bn_axis(), epsilon=_EPS, name=name)


def _bottleneck(x: Any, filters: int, stride: int, conv_shortcut: bool, name: str) -> Any:
    """ResNet v1's residual block: 1x1 (strided), 3x3, 1x1 with 4x the filters."""
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = _bn(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = Conv2D(filters, 3, padding="SAME", name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(name + "_3_bn")(x)
    x = Add(name=name + "_add")([shortcut, x])
    return Activation("relu", name=name + "_out")(x)


def _preact_bottleneck(x: Any, filters: int, stride: int, conv_shortcut: bool, name: str) -> Any:
    """ResNet v2's residual block: batch norm and relu before the convolutions; the stride
    on the 3x3, the shortcut a 1x1 max pool when strided."""
    preact = _bn(name + "_preact_bn")(x)
    preact = Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = _bn(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return Add(name=name + "_out")([shortcut, x])


def _stages_v1(x: Any, blocks: tuple[int, ...]) -> Any:
    for stage, (count, filters) in enumerate(zip(blocks, (64, 128, 256, 512)), start=2):
        stride = 1 if stage == 2 else 2
        x = _bottleneck(x, filters, stride, True, f"conv{stage}_block1")
        for i in range(2, count + 1):
            x = _bottleneck(x, filters, 1, False, f"conv{stage}_block{i}")
    return x


def _stages_v2(x: Any, blocks: tuple[int, ...]) -> Any:
    # v2 strides at the last block of each stage (none in the last stage).
    for stage, (count, filters) in enumerate(zip(blocks, (64, 128, 256, 512)), start=2):
        x = _preact_bottleneck(x, filters, 1, True, f"conv{stage}_block1")
        for i in range(2, count):
            x = _preact_bottleneck(x, filters, 1, False, f"conv{stage}_block{i}")
        stride = 1 if stage == 5 else 2
        x = _preact_bottleneck(x, filters, stride, False, f"conv{stage}_block{count}")
    return x


def _resnet(
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
    preact = model_name.endswith("v2")
    x = ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = Activation("relu", name="conv1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    stages: Callable[[Any, tuple[int, ...]], Any] = _stages_v2 if preact else _stages_v1
    x = stages(x, _BLOCKS[model_name])
    if preact:
        x = _bn("post_bn")(x)
        x = Activation("relu", name="post_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dense(classes, activation="softmax", name="probs")(x)
    else:
        x = setup.pooled(x, pooling, named=True)
    model = setup.functional_model(input_tensor, img_input, x, model_name)
    file_hash = _HASHES[model_name][0 if include_top else 1]
    setup.load_release_weights(model, weights, _RELEASE, model_name, include_top, file_hash)
    return model


def _application(model_name: str) -> Callable[..., Model]:
    return setup.named_application(
        _resnet, model_name, model_name.replace("resnet", "ResNet").replace("v2", "V2")
    )


ResNet50 = _application("resnet50")
ResNet101 = _application("resnet101")
ResNet152 = _application("resnet152")
ResNet50V2 = _application("resnet50v2")
ResNet101V2 = _application("resnet101v2")
ResNet152V2 = _application("resnet152v2")
