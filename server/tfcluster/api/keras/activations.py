"""tf.keras.activations"""

# ruff: noqa: F403
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.activations import *

__getattr__ = _unimplemented.module_getattr("keras.activations")
