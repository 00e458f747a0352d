"""What every tf.keras.applications model shares (Keras Applications 1.0.8 as TF 1.15 wraps
it): the `weights` / `classes` checks, the input shape checks, the input layer made from
`input_shape` or `input_tensor`, the functional Model over the source inputs, and loading
ImageNet weights or a weights file."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import weight_files
from tfcluster.lib.keras.applications.app_layers import GlobalAveragePooling2D, GlobalMaxPooling2D
from tfcluster.lib.keras.applications.imagenet_utils import check_kwargs
from tfcluster.lib.keras.engine.input_layer import Input
from tfcluster.lib.keras.engine.training import Model
from tfcluster.lib.keras.utils.model_tools import get_source_inputs
from tfcluster.ops import variables

__all__ = ["check_kwargs"]


def check_weights(weights: Any, include_top: bool, classes: int) -> None:
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            "`imagenet` (pre-training on ImageNet), or the path to the weights file to be "
            "loaded."
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            'If using `weights` as `"imagenet"` with `include_top` as true, `classes` should '
            "be 1000"
        )


def _channels_first() -> bool:
    return backend.image_data_format() == "channels_first"


def obtain_input_shape(
    input_shape: Any,
    default_size: int,
    min_size: int,
    require_flatten: bool,
    weights: Any = None,
) -> tuple[Any, ...]:
    """The model's input shape (no batch dimension) from the user's, checked: three
    dimensions, three channels for ImageNet weights, at least min_size, static where the top
    is flattened, the default size where ImageNet weights come with the top."""
    first = _channels_first()
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn(
                "This model usually expects 1 or 3 input channels. However, it was passed an "
                f"input_shape with {channels} input channels.",
                stacklevel=1,
            )
        default_shape = (
            (channels, default_size, default_size)
            if first
            else (default_size, default_size, channels)
        )
    else:
        default_shape = (
            (3, default_size, default_size) if first else (default_size, default_size, 3)
        )
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and input_shape != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, "
                f"`input_shape` should be {default_shape}."
            )
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; got `input_shape={input_shape}`")
        spatial = input_shape[1:] if first else input_shape[:2]
        if any(d is not None and d < min_size for d in spatial):
            raise ValueError(
                f"Input size must be at least {min_size}x{min_size}; got "
                f"`input_shape={input_shape}`"
            )
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            "If `include_top` is True, you should specify a static `input_shape`. Got "
            f"`input_shape={input_shape}`"
        )
    return tuple(input_shape)


def is_keras_tensor(x: Any) -> bool:
    """TF 1.15's backend.is_keras_tensor: a tensor a Keras layer (or Input) made."""
    if not isinstance(x, (Tensor, variables.Variable)):
        raise ValueError(
            f"Unexpectedly found an instance of type `{type(x)}`. Expected a symbolic tensor "
            "instance."
        )
    return hasattr(x, "_keras_history")


def image_input(input_tensor: Any, input_shape: Any) -> Any:
    """The model's image tensor: a new Input, an Input over a plain tensor, or the Keras
    tensor given."""
    if input_tensor is None:
        return Input(shape=input_shape)
    if not is_keras_tensor(input_tensor):
        return Input(tensor=input_tensor, shape=input_shape)
    return input_tensor


def functional_model(input_tensor: Any, img_input: Any, outputs: Any, name: str) -> Model:
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    return Model(inputs, outputs, name=name)


def correct_pad(inputs: Any, kernel_size: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """The zero padding before a stride-2 'valid' convolution that centres its windows as
    TF's 'same' padding would."""
    img_dim = 2 if _channels_first() else 1
    size = backend.int_shape(inputs)[img_dim : img_dim + 2]  # type: ignore[index]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def bn_axis() -> int:
    return 1 if _channels_first() else 3


def channel_axis() -> int:
    return 1 if _channels_first() else -1


def load_weights(model: Model, weights: Any, imagenet: tuple[str, str, str | None] | None) -> None:
    """Loads ImageNet weights (imagenet = (file name, origin, hash) in Keras's cache) or the
    weights file the user named; weights=None keeps the initial values."""
    if weights == "imagenet":
        if imagenet is not None:
            model.load_weights(weight_files.cached_or_fetched(*imagenet))
    elif weights is not None:
        model.load_weights(weights)


def load_release_weights(
    model: Model,
    weights: Any,
    release: str,
    model_name: str,
    include_top: bool,
    file_hash: str | None,
) -> None:
    """load_weights with the ImageNet file Keras names `<model>_weights_tf_dim_ordering_tf_
    kernels[_notop].h5` under a release URL (DenseNet's and ResNet's)."""
    suffix = "" if include_top else "_notop"
    fname = f"{model_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    load_weights(model, weights, (fname, release + fname, file_hash))


def named_application(
    build: Callable[..., Model], model_name: str, public_name: str
) -> Callable[..., Model]:
    """A family's public model function for one of its models, with Keras's arguments."""

    def application(
        include_top: bool = True,
        weights: Any = "imagenet",
        input_tensor: Any = None,
        input_shape: Any = None,
        pooling: Any = None,
        classes: int = 1000,
        **kwargs: Any,
    ) -> Model:
        return build(
            model_name, include_top, weights, input_tensor, input_shape, pooling, classes, kwargs
        )

    application.__name__ = application.__qualname__ = public_name
    application.__doc__ = f"The {public_name} model (weights: None, 'imagenet' or a file path)."
    return application


def checked_image_input(
    kwargs: dict[str, Any],
    weights: Any,
    include_top: bool,
    classes: int,
    input_tensor: Any,
    input_shape: Any,
    default_size: int,
    min_size: int,
) -> Any:
    """A model's input after Keras's checks of its arguments, in Keras's order (the keyword
    arguments, the weights against include_top and classes, the input shape)."""
    check_kwargs(kwargs)
    check_weights(weights, include_top, classes)
    input_shape = obtain_input_shape(
        input_shape,
        default_size=default_size,
        min_size=min_size,
        require_flatten=include_top,
        weights=weights,
    )
    return image_input(input_tensor, input_shape)


def pooled(x: Any, pooling: Any, named: bool = False) -> Any:
    """A headless model's optional global pooling ('avg' or 'max'; named avg_pool / max_pool
    where the family names them)."""
    if pooling == "avg":
        return GlobalAveragePooling2D(name="avg_pool" if named else None)(x)
    if pooling == "max":
        return GlobalMaxPooling2D(name="max_pool" if named else None)(x)
    return x
