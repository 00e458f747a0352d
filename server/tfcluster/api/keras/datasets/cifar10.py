"""tf.keras.datasets.cifar10"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.cifar10 import load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.cifar10")
