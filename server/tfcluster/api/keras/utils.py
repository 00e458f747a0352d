"""tf.keras.utils"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.utils import Progbar, get_file, normalize, to_categorical

__getattr__ = _unimplemented.module_getattr("keras.utils")
