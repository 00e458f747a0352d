"""tf.estimator.inputs"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.estimator.numpy_io import numpy_input_fn, pandas_input_fn

__getattr__ = _unimplemented.module_getattr("estimator.inputs")
