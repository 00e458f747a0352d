"""tf.keras.wrappers.scikit_learn"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.scikit_learn import KerasClassifier, KerasRegressor

__getattr__ = _unimplemented.module_getattr("keras.wrappers.scikit_learn")
