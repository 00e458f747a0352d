"""`tf.*` names of the string ops (tf.string_to_number comes with parsing)."""

# ruff: noqa: F401
from tfcluster.ops import string_ops as _string_ops
from tfcluster.ops.string_ops import *  # noqa: F403
from tfcluster.ops.string_ops import strip as string_strip

__all__ = sorted({*_string_ops.__all__, "string_strip"})
