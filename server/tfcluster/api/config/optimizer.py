"""tf.config.optimizer"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.client.context_config import (
    get_optimizer_experimental_options as get_experimental_options,
)
from tfcluster.client.context_config import get_optimizer_jit as get_jit
from tfcluster.client.context_config import (
    set_optimizer_experimental_options as set_experimental_options,
)
from tfcluster.client.context_config import set_optimizer_jit as set_jit

__getattr__ = _unimplemented.module_getattr("config.optimizer")
