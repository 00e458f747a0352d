"""tf.LMDBReader."""

from tfcluster.ops.lmdb_ops import LMDBReader

__all__ = ["LMDBReader"]
