"""tf.saved_model.tag_constants"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING

__getattr__ = _unimplemented.module_getattr("saved_model.tag_constants")
