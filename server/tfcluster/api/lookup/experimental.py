"""tf.lookup.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.lookup.dense_hash_table import DenseHashTable

__getattr__ = _unimplemented.module_getattr("lookup.experimental")
