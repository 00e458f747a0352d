"""tf.keras.applications.densenet"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.densenet import (
    DenseNet121,
    DenseNet169,
    DenseNet201,
    preprocess_input,
)
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions

__getattr__ = _unimplemented.module_getattr("keras.applications.densenet")
