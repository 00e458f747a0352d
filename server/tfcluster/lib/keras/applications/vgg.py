"""VGG16 and VGG19 (tf.keras.applications.vgg16 / vgg19)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Conv2D,
    Dense,
    Flatten,
    MaxPooling2D,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.1/"
# name -> convolutions per block, and the md5 of the weight files with and without the top.
_VARIANTS = {
    "vgg16": (
        (2, 2, 3, 3, 3),
        "64373286793e3c8b2b4e3219cbf3544b",
        "6d6bbae143d832006294945121d1f1fc",
    ),
    "vgg19": (
        (2, 2, 4, 4, 4),
        "cbe5617147190e668d6c5d5026f83318",
        "253f8cb515780f3b799900260a226db6",
    ),
}
_FILTERS = (64, 128, 256, 512, 512)


def _vgg(
    name: str,
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
    convs, top_hash, notop_hash = _VARIANTS[name]
    x = img_input
    for block, (count, filters) in enumerate(zip(convs, _FILTERS), start=1):
        for i in range(1, count + 1):
            x = Conv2D(
                filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{i}"
            )(x)
        x = MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = Flatten(name="flatten")(x)
        x = Dense(4096, activation="relu", name="fc1")(x)
        x = Dense(4096, activation="relu", name="fc2")(x)
        x = Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, name)
    fname = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    file_hash = top_hash if include_top else notop_hash
    setup.load_weights(model, weights, (fname, _RELEASE + fname, file_hash))
    return model


def VGG16(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    return _vgg("vgg16", include_top, weights, input_tensor, input_shape, pooling, classes, kwargs)


def VGG19(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    return _vgg("vgg19", include_top, weights, input_tensor, input_shape, pooling, classes, kwargs)
