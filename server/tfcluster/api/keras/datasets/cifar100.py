"""tf.keras.datasets.cifar100"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.cifar100 import load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.cifar100")
