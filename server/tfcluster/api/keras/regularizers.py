"""tf.keras.regularizers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.regularizers import (
    L1L2,
    Regularizer,
    deserialize,
    get,
    l1,
    l1_l2,
    l2,
    serialize,
)

__getattr__ = _unimplemented.module_getattr("keras.regularizers")
