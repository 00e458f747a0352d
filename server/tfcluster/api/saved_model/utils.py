"""tf.saved_model.utils"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info

__getattr__ = _unimplemented.module_getattr("saved_model.utils")
