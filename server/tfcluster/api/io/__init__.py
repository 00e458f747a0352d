"""tf.io"""

from tfcluster.api import _unimplemented

__getattr__ = _unimplemented.module_getattr("io")
