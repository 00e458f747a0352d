"""`tf.*` names of lookup tables."""

from tfcluster.ops.lookup_ops import tables_initializer

__all__ = ["tables_initializer"]
