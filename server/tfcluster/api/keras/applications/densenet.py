"""tf.keras.applications.densenet"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import (
    DenseNet121,
    DenseNet169,
    DenseNet201,
    decode_predictions,
)
from tfcluster.lib.keras.applications.exported import preprocess_input_torch as preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.densenet")
