"""tf.autograph"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.autograph.api import set_verbosity, to_code, to_graph, trace

__getattr__ = _unimplemented.module_getattr("autograph")
