"""tf.manip"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.array_ops import gather_nd, reshape, reverse, scatter_nd, tile
from tfcluster.ops.counting_ops import roll
from tfcluster.ops.space_to_batch_ops import batch_to_space_nd, space_to_batch_nd

__getattr__ = _unimplemented.module_getattr("manip")
