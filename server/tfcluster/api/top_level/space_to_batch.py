"""tf.space_to_batch(_nd), tf.batch_to_space(_nd), tf.space_to_depth, tf.depth_to_space and
tf.required_space_to_batch_paddings."""

from tfcluster.ops.space_to_batch_ops import (
    batch_to_space,
    batch_to_space_nd,
    depth_to_space,
    required_space_to_batch_paddings,
    space_to_batch,
    space_to_batch_nd,
    space_to_depth,
)

__all__ = [
    "batch_to_space",
    "batch_to_space_nd",
    "depth_to_space",
    "required_space_to_batch_paddings",
    "space_to_batch",
    "space_to_batch_nd",
    "space_to_depth",
]
