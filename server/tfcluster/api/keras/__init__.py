"""tf.keras (only tf.keras.regularizers so far)"""

from tfcluster.api import _unimplemented

__getattr__ = _unimplemented.module_getattr("keras")
