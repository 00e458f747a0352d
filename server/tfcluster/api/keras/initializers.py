"""tf.keras.initializers"""

# ruff: noqa: F403
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.initializers import *

__getattr__ = _unimplemented.module_getattr("keras.initializers")
