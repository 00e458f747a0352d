"""`tf.*` names of sparse tensors' ops (tf.SparseTensor itself comes with parsing)."""

from tfcluster.ops import sparse_ops as _sparse_ops
from tfcluster.ops.sparse_ops import *  # noqa: F403

__all__ = sorted(_sparse_ops.__all__)
