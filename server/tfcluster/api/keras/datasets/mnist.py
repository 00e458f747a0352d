"""tf.keras.datasets.mnist"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.mnist import load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.mnist")
