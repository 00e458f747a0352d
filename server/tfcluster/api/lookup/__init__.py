"""tf.lookup"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.lookup_ops import HashTable as StaticHashTable
from tfcluster.ops.lookup_ops import (
    KeyValueTensorInitializer,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__getattr__ = _unimplemented.module_getattr("lookup")
