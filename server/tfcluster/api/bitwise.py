"""tf.bitwise"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.bitwise_ops import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__getattr__ = _unimplemented.module_getattr("bitwise")
