"""tf.config.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.client.context_config import (
    get_memory_growth,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_memory_growth,
)

__getattr__ = _unimplemented.module_getattr("config.experimental")
