"""tf.keras.wrappers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.keras.wrappers import scikit_learn

__getattr__ = _unimplemented.module_getattr("keras.wrappers")
