"""tf.keras (TF 1.15, graph mode)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.engine.input_layer import Input
from tfcluster.lib.keras.engine.sequential import Sequential
from tfcluster.lib.keras.engine.training import Model

__getattr__ = _unimplemented.module_getattr("keras")
