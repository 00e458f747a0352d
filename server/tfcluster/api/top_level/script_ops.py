"""`tf.*` names of ops that call Python functions."""

from tfcluster.ops.script_ops import numpy_function, py_func, py_function

__all__ = ["numpy_function", "py_func", "py_function"]
