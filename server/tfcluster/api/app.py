"""tf.app"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented, flags
from tfcluster.lib.platform.app import run

__getattr__ = _unimplemented.module_getattr("app")
