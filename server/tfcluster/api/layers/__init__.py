"""tf.layers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.layers.base import InputSpec, Layer
from tfcluster.lib.layers.convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    SeparableConv1D,
    SeparableConv2D,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    separable_conv1d,
    separable_conv2d,
)
from tfcluster.lib.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from tfcluster.lib.layers.normalization import BatchNormalization, batch_normalization
from tfcluster.lib.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    average_pooling1d,
    average_pooling2d,
    average_pooling3d,
    max_pooling1d,
    max_pooling2d,
    max_pooling3d,
)

__getattr__ = _unimplemented.module_getattr("layers")
