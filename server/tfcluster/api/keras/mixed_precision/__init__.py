"""tf.keras.mixed_precision"""

from tfcluster.api import _unimplemented

__getattr__ = _unimplemented.module_getattr("keras.mixed_precision")
