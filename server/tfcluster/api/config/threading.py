"""tf.config.threading"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.client.thread_settings import (
    get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads,
)

__getattr__ = _unimplemented.module_getattr("config.threading")
