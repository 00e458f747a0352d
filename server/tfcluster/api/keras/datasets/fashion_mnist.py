"""tf.keras.datasets.fashion_mnist"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.fashion_mnist import load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.fashion_mnist")
