"""Top-level names of the image family: `tf.random_crop` (also `tf.image.random_crop`) and
`tf.extract_image_patches`."""

from tfcluster.ops.image_ops import random_crop
from tfcluster.ops.image_window_ops import extract_image_patches

__all__ = ["extract_image_patches", "random_crop"]
