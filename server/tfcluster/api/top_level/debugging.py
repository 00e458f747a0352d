"""`tf.*` names of printing and checking: tf.Print, tf.print, tf.Assert, the assert_* family,
check_numerics and the predicates of tf.debugging."""

# ruff: noqa: F401
from tfcluster.ops import check_ops as _check_ops
from tfcluster.ops.check_ops import *  # noqa: F403
from tfcluster.ops.logging_ops import Assert, Print
from tfcluster.ops.logging_ops import print_v2 as print
from tfcluster.ops.numerics import (
    add_check_numerics_ops,
    check_numerics,
    verify_tensor_all_finite,
)

__all__ = sorted(
    {
        *_check_ops.__all__,
        "Assert",
        "Print",
        "add_check_numerics_ops",
        "check_numerics",
        "print",
        "verify_tensor_all_finite",
    }
)
