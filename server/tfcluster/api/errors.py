"""tf.errors"""

from tfcluster.api import _unimplemented
from tfcluster.framework.errors import *  # noqa: F403
from tfcluster.framework.errors import OpError, error_from_code, exception_for_code  # noqa: F401

__getattr__ = _unimplemented.module_getattr("errors")
