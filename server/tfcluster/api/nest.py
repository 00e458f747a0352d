"""tf.nest"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.nest import (
    assert_same_structure,
    flatten,
    is_nested,
    map_structure,
    pack_sequence_as,
)

__getattr__ = _unimplemented.module_getattr("nest")
