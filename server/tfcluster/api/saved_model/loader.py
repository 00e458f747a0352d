"""tf.saved_model.loader"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.loader import load, maybe_saved_model_directory

__getattr__ = _unimplemented.module_getattr("saved_model.loader")
