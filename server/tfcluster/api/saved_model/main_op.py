"""tf.saved_model.main_op"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.main_op import main_op, main_op_with_restore

__getattr__ = _unimplemented.module_getattr("saved_model.main_op")
