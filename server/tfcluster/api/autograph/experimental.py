"""tf.autograph.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.autograph.api import Feature, do_not_convert, set_loop_options

__getattr__ = _unimplemented.module_getattr("autograph.experimental")
