"""`tf.*` names of lookup tables."""

from tfcluster.ops.lookup_ops import initialize_all_tables, tables_initializer

__all__ = ["initialize_all_tables", "tables_initializer"]
