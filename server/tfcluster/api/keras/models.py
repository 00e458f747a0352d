"""tf.keras.models"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.engine.sequential import Sequential
from tfcluster.lib.keras.engine.training import Model

__getattr__ = _unimplemented.module_getattr("keras.models")
