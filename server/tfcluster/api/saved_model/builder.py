"""tf.saved_model.builder"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.builder import SavedModelBuilder

__getattr__ = _unimplemented.module_getattr("saved_model.builder")
