"""tf.experimental (TF 1.15's v1 tree: function_executor_type, output_all_intermediates)."""

from tfcluster.api import _unimplemented
from tfcluster.framework.function_call_options import function_executor_type
from tfcluster.lib.platform.behavior_switches import output_all_intermediates

__all__ = ["function_executor_type", "output_all_intermediates"]

__getattr__ = _unimplemented.module_getattr("experimental")
