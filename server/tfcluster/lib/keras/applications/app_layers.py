"""The tf.keras layers the applications are built from, gathered from their modules."""

# ruff: noqa: F401
from tfcluster.lib.keras.layers.convolutional_extra import (
    Cropping2D,
    DepthwiseConv2D,
    ZeroPadding2D,
)
from tfcluster.lib.keras.layers.core import Activation, Lambda, ReLU, Reshape
from tfcluster.lib.keras.layers.from_tf_layers import (
    AveragePooling2D,
    BatchNormalization,
    Conv2D,
    Dense,
    Dropout,
    Flatten,
    MaxPooling2D,
    SeparableConv2D,
)
from tfcluster.lib.keras.layers.global_pooling import GlobalAveragePooling2D, GlobalMaxPooling2D
from tfcluster.lib.keras.layers.merge import Add, Concatenate, add, concatenate
