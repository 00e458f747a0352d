"""tf.keras.optimizers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.optimizers import (
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    Ftrl,
    Nadam,
    Optimizer,
    RMSprop,
    deserialize,
    get,
    serialize,
)

__getattr__ = _unimplemented.module_getattr("keras.optimizers")
