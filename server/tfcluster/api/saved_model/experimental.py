"""tf.saved_model.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.save import save

__getattr__ = _unimplemented.module_getattr("saved_model.experimental")
