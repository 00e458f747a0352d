"""tf.config.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.client.context_config import (
    VirtualDeviceConfiguration,
    get_device_policy,
    get_memory_growth,
    get_synchronous_execution,
    get_virtual_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_device_policy,
    set_memory_growth,
    set_synchronous_execution,
    set_virtual_device_configuration,
    set_visible_devices,
)

__getattr__ = _unimplemented.module_getattr("config.experimental")
