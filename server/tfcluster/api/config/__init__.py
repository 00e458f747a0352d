"""tf.config"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.config import threading

__getattr__ = _unimplemented.module_getattr("config")
