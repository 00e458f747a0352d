"""tf.keras.datasets.reuters"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.datasets.reuters import get_word_index, load_data

__getattr__ = _unimplemented.module_getattr("keras.datasets.reuters")
