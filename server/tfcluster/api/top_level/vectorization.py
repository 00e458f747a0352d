"""`tf.vectorized_map`."""

from tfcluster.ops.vectorized_map import vectorized_map

__all__ = ["vectorized_map"]
