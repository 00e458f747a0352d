"""Top-level names of the image family: `tf.random_crop` (also `tf.image.random_crop`)."""

from tfcluster.ops.image_ops import random_crop

__all__ = ["random_crop"]
