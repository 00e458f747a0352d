"""tf.keras.preprocessing"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.keras.preprocessing import image, sequence, text

__getattr__ = _unimplemented.module_getattr("keras.preprocessing")
