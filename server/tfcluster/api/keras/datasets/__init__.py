"""tf.keras.datasets"""

from tfcluster.api import _unimplemented

__getattr__ = _unimplemented.module_getattr("keras.datasets")
