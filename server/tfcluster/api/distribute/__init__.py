"""tf.distribute"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.distribute import cluster_resolver
from tfcluster.task_server.server import Server

__getattr__ = _unimplemented.module_getattr("distribute")
