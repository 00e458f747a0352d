"""`tf.function` and `tf.wrap_function`: Python functions traced into graph functions."""

from tfcluster.lib.function.def_function import function, wrap_function

__all__ = ["function", "wrap_function"]
