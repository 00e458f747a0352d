"""tf.keras.estimator"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.estimator.keras_model import model_to_estimator

__getattr__ = _unimplemented.module_getattr("keras.estimator")
