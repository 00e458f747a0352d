"""tf.keras.applications.resnet50"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions
from tfcluster.lib.keras.applications.imagenet_utils import (
    preprocess_input_caffe as preprocess_input,
)
from tfcluster.lib.keras.applications.resnet import ResNet50

__getattr__ = _unimplemented.module_getattr("keras.applications.resnet50")
