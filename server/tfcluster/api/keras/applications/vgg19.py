"""tf.keras.applications.vgg19"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import VGG19, decode_predictions, preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.vgg19")
