"""tf.config"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.config import experimental, optimizer, threading
from tfcluster.client.context_config import get_soft_device_placement, set_soft_device_placement
from tfcluster.client.context_config import list_device_names as experimental_list_devices
from tfcluster.lib.function.def_function import (
    run_functions_eagerly as experimental_run_functions_eagerly,
)

__getattr__ = _unimplemented.module_getattr("config")
