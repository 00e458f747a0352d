"""tf.keras.applications.mobilenet"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import MobileNet, decode_predictions
from tfcluster.lib.keras.applications.exported import preprocess_input_tf as preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.mobilenet")
