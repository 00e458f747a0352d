"""tf.keras.applications.imagenet_utils"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import decode_predictions, preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.imagenet_utils")
