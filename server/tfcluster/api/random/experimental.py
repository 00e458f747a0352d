"""tf.random.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.stateful_random import (
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)

__getattr__ = _unimplemented.module_getattr("random.experimental")
