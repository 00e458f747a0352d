"""`tf.function`, `tf.wrap_function` and `tf.nondifferentiable_batch_function`: Python
functions traced into graph functions."""

from tfcluster.lib.function.batch_function import nondifferentiable_batch_function
from tfcluster.lib.function.def_function import function, wrap_function

__all__ = ["function", "nondifferentiable_batch_function", "wrap_function"]
