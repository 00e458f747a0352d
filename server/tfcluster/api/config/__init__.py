"""tf.config"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.config import experimental, optimizer, threading
from tfcluster.client.context_config import get_soft_device_placement, set_soft_device_placement

__getattr__ = _unimplemented.module_getattr("config")
