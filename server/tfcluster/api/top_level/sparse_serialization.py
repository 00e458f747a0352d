"""`tf.*` names of sparse tensor serialization."""

from tfcluster.ops import sparse_serialization_ops as _ops
from tfcluster.ops.sparse_serialization_ops import *  # noqa: F403

__all__ = sorted(_ops.__all__)
