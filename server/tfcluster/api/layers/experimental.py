"""tf.layers.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.layers.base import keras_style_scope, set_keras_style

__getattr__ = _unimplemented.module_getattr("layers.experimental")
