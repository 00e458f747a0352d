"""tf.keras.applications.resnet50"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import ResNet50, decode_predictions
from tfcluster.lib.keras.applications.exported import (
    preprocess_input_caffe as preprocess_input,
)

__getattr__ = _unimplemented.module_getattr("keras.applications.resnet50")
