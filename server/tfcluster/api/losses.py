"""tf.losses"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.losses.regularization import (
    get_regularization_loss,
    get_regularization_losses,
)

__getattr__ = _unimplemented.module_getattr("losses")
