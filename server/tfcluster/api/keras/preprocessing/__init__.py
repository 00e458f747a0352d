"""tf.keras.preprocessing"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.keras.preprocessing import sequence, text

__getattr__ = _unimplemented.module_getattr("keras.preprocessing")
