"""tf.keras.applications.nasnet"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import NASNetLarge, NASNetMobile, decode_predictions
from tfcluster.lib.keras.applications.exported import preprocess_input_tf as preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.nasnet")
