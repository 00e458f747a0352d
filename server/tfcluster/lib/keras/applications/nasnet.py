"""NASNetMobile and NASNetLarge (tf.keras.applications.nasnet): NASNet-A normal and
reduction cells, built under TF's name scopes (which name the cells' ops)."""

from __future__ import annotations

import warnings
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.applications import model_setup as setup
from tfcluster.lib.keras.applications.app_layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Conv2D,
    Cropping2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    SeparableConv2D,
    ZeroPadding2D,
    add,
    concatenate,
)
from tfcluster.lib.keras.engine.training import Model

_RELEASE = "https://github.com/titu1994/Keras-NASNet/releases/download/v1.2/"
# default size -> (file, origin file, md5) with and without the top.
_FILES = {
    224: (
        ("nasnet_mobile.h5", "NASNet-mobile.h5", "020fb642bf7360b370c678b08e0adf61"),
        ("nasnet_mobile_no_top.h5", "NASNet-mobile-no-top.h5", "1ed92395b5b598bdda52abe5c0dbfd63"),
    ),
    331: (
        ("nasnet_large.h5", "NASNet-large.h5", "11577c9a518f0070763c2b964a382f17"),
        ("nasnet_large_no_top.h5", "NASNet-large-no-top.h5", "d81d89dc07e6e56530c4e77faddd61b5"),
    ),
}


def _bn(name: str) -> Any:
    return BatchNormalization(axis=setup.channel_axis(), momentum=0.9997, epsilon=1e-3, name=name)


def _conv1x1(filters: int, name: str, strides: Any = (1, 1)) -> Any:
    return Conv2D(
        filters,
        (1, 1),
        strides=strides,
        padding="same",
        use_bias=False,
        name=name,
        kernel_initializer="he_normal",
    )


def _sepconv(filters: int, kernel_size: Any, name: str, strides: Any, padding: str) -> Any:
    return SeparableConv2D(
        filters,
        kernel_size,
        strides=strides,
        name=name,
        padding=padding,
        use_bias=False,
        kernel_initializer="he_normal",
    )


def _separable_conv_block(
    ip: Any, filters: int, kernel_size: Any = (3, 3), strides: Any = (1, 1), block_id: str = ""
) -> Any:
    """relu, separable conv (strided, after correcting padding), bn, relu, separable conv, bn."""
    with backend.name_scope(f"separable_conv_block_{block_id}"):
        x = Activation("relu")(ip)
        if strides == (2, 2):
            x = ZeroPadding2D(
                padding=setup.correct_pad(x, kernel_size), name=f"separable_conv_1_pad_{block_id}"
            )(x)
            conv_pad = "valid"
        else:
            conv_pad = "same"
        x = _sepconv(filters, kernel_size, f"separable_conv_1_{block_id}", strides, conv_pad)(x)
        x = _bn(f"separable_conv_1_bn_{block_id}")(x)
        x = Activation("relu")(x)
        x = _sepconv(filters, kernel_size, f"separable_conv_2_{block_id}", (1, 1), "same")(x)
        x = _bn(f"separable_conv_2_bn_{block_id}")(x)
    return x


def _adjust_block(p: Any, ip: Any, filters: int, block_id: str) -> Any:
    """Brings the previous cell's output p to ip's spatial size (a factorised reduction) or
    to `filters` channels (a 1x1 projection)."""
    channel_dim = setup.channel_axis()
    img_dim = 2 if backend.image_data_format() == "channels_first" else -2
    ip_shape = backend.int_shape(ip)
    assert ip_shape is not None
    with backend.name_scope("adjust_block"):
        if p is None:
            return ip
        p_shape = backend.int_shape(p)
        assert p_shape is not None
        if p_shape[img_dim] != ip_shape[img_dim]:
            with backend.name_scope(f"adjust_reduction_block_{block_id}"):
                p = Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
                p1 = AveragePooling2D(
                    (1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_1_{block_id}"
                )(p)
                p1 = _conv1x1(filters // 2, f"adjust_conv_1_{block_id}")(p1)
                p2 = ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
                p2 = Cropping2D(cropping=((1, 0), (1, 0)))(p2)
                p2 = AveragePooling2D(
                    (1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_2_{block_id}"
                )(p2)
                p2 = _conv1x1(filters // 2, f"adjust_conv_2_{block_id}")(p2)
                p = concatenate([p1, p2], axis=channel_dim)
                p = _bn(f"adjust_bn_{block_id}")(p)
        elif p_shape[channel_dim] != filters:
            with backend.name_scope(f"adjust_projection_block_{block_id}"):
                p = Activation("relu")(p)
                p = _conv1x1(filters, f"adjust_conv_projection_{block_id}")(p)
                p = _bn(f"adjust_bn_{block_id}")(p)
    return p


def _pool(kind: type, strides: int, padding: str, name: str) -> Any:
    return kind((3, 3), strides=(strides, strides), padding=padding, name=name)


def _normal_a_cell(ip: Any, p: Any, filters: int, block_id: str) -> tuple[Any, Any]:
    channel_dim = setup.channel_axis()
    with backend.name_scope(f"normal_A_block_{block_id}"):
        p = _adjust_block(p, ip, filters, block_id)
        h = Activation("relu")(ip)
        h = _conv1x1(filters, f"normal_conv_1_{block_id}")(h)
        h = _bn(f"normal_bn_1_{block_id}")(h)
        with backend.name_scope("block_1"):
            x1_1 = _separable_conv_block(h, filters, (5, 5), block_id=f"normal_left1_{block_id}")
            x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
            x1 = add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
        with backend.name_scope("block_2"):
            x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
            x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
            x2 = add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
        with backend.name_scope("block_3"):
            x3 = _pool(AveragePooling2D, 1, "same", f"normal_left3_{block_id}")(h)
            x3 = add([x3, p], name=f"normal_add_3_{block_id}")
        with backend.name_scope("block_4"):
            x4_1 = _pool(AveragePooling2D, 1, "same", f"normal_left4_{block_id}")(p)
            x4_2 = _pool(AveragePooling2D, 1, "same", f"normal_right4_{block_id}")(p)
            x4 = add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
        with backend.name_scope("block_5"):
            x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
            x5 = add([x5, h], name=f"normal_add_5_{block_id}")
        x = concatenate([p, x1, x2, x3, x4, x5], axis=channel_dim, name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip: Any, p: Any, filters: int, block_id: str) -> tuple[Any, Any]:
    channel_dim = setup.channel_axis()
    with backend.name_scope(f"reduction_A_block_{block_id}"):
        p = _adjust_block(p, ip, filters, block_id)
        h = Activation("relu")(ip)
        h = _conv1x1(filters, f"reduction_conv_1_{block_id}")(h)
        h = _bn(f"reduction_bn_1_{block_id}")(h)
        h3 = ZeroPadding2D(padding=setup.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
        with backend.name_scope("block_1"):
            x1_1 = _separable_conv_block(
                h, filters, (5, 5), strides=(2, 2), block_id=f"reduction_left1_{block_id}"
            )
            x1_2 = _separable_conv_block(
                p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right1_{block_id}"
            )
            x1 = add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
        with backend.name_scope("block_2"):
            x2_1 = _pool(MaxPooling2D, 2, "valid", f"reduction_left2_{block_id}")(h3)
            x2_2 = _separable_conv_block(
                p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right2_{block_id}"
            )
            x2 = add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
        with backend.name_scope("block_3"):
            x3_1 = _pool(AveragePooling2D, 2, "valid", f"reduction_left3_{block_id}")(h3)
            x3_2 = _separable_conv_block(
                p, filters, (5, 5), strides=(2, 2), block_id=f"reduction_right3_{block_id}"
            )
            x3 = add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
        with backend.name_scope("block_4"):
            x4 = _pool(AveragePooling2D, 1, "same", f"reduction_left4_{block_id}")(x1)
            x4 = add([x2, x4])
        with backend.name_scope("block_5"):
            x5_1 = _separable_conv_block(
                x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}"
            )
            x5_2 = _pool(MaxPooling2D, 2, "valid", f"reduction_right5_{block_id}")(h3)
            x5 = add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
        x = concatenate([x2, x3, x4, x5], axis=channel_dim, name=f"reduction_concat_{block_id}")
    return x, ip


def _nasnet(
    input_shape: Any,
    penultimate_filters: int,
    num_blocks: int,
    stem_block_filters: int,
    skip_reduction: bool,
    filter_multiplier: int,
    include_top: bool,
    weights: Any,
    input_tensor: Any,
    pooling: Any,
    classes: int,
    default_size: int,
    kwargs: dict[str, Any],
) -> Model:
    setup.check_kwargs(kwargs)
    setup.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(
            "When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
            "input_shape argument must be static (no None entries). Got: `input_shape="
            + str(input_shape)
            + "`."
        )
    # NASNet always needs a static input shape (require_flatten=True whatever the top).
    input_shape = setup.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, require_flatten=True, weights=weights
    )
    old_data_format = None
    if backend.image_data_format() != "channels_last":
        warnings.warn(
            "The NASNet family of models is only available for the input data format "
            '"channels_last" '
            "(width, height, channels). However your settings specify the default data format "
            '"channels_first" (channels, width, height). You should set '
            '`image_data_format="channels_last"` in your Keras config located at '
            "~/.keras/keras.json. The model being returned right now will expect inputs to "
            'follow the "channels_last" data format.',
            stacklevel=1,
        )
        backend.set_image_data_format("channels_last")
        old_data_format = "channels_first"
    img_input = setup.image_input(input_tensor, input_shape)
    if penultimate_filters % (24 * filter_multiplier**2) != 0:
        raise ValueError(
            "For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
            f"(`filter_multiplier` ** 2). Current value: {int(penultimate_filters)}"
        )
    filters = penultimate_filters // 24
    x = Conv2D(
        stem_block_filters,
        (3, 3),
        strides=(2, 2),
        padding="valid",
        use_bias=False,
        name="stem_conv1",
        kernel_initializer="he_normal",
    )(img_input)
    x = _bn("stem_bn1")(x)
    p = None
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier**2, block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        width = filters * filter_multiplier**stage
        if stage:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block = stage * num_blocks + i + (1 if stage else 0)
            x, p = _normal_a_cell(x, p, width, block_id=str(block))
    x = Activation("relu")(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        x = Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = setup.pooled(x, pooling)
    model = setup.functional_model(input_tensor, img_input, x, "NASNet")
    if weights == "imagenet":
        if default_size not in _FILES:
            raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
        fname, origin, file_hash = _FILES[default_size][0 if include_top else 1]
        setup.load_weights(model, weights, (fname, _RELEASE + origin, file_hash))
    elif weights is not None:
        model.load_weights(weights)
    if old_data_format:
        backend.set_image_data_format(old_data_format)
    return model


def NASNetLarge(
    input_shape: Any = None,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    return _nasnet(
        input_shape,
        4032,
        6,
        96,
        True,
        2,
        include_top,
        weights,
        input_tensor,
        pooling,
        classes,
        331,
        kwargs,
    )


def NASNetMobile(
    input_shape: Any = None,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: Any = None,
    classes: int = 1000,
    **kwargs: Any,
) -> Model:
    return _nasnet(
        input_shape,
        1056,
        4,
        32,
        False,
        2,
        include_top,
        weights,
        input_tensor,
        pooling,
        classes,
        224,
        kwargs,
    )
