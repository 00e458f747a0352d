"""tf.keras.datasets.boston_housing"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.boston_housing import load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.boston_housing")
