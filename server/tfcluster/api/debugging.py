"""tf.debugging"""

# ruff: noqa: F401
from typing import Any

from tfcluster.api import _unimplemented
from tfcluster.client.device_placement_logging import (
    get_log_device_placement,
    set_log_device_placement,
)
from tfcluster.framework.graph import Tensor
from tfcluster.ops.check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_shapes,
    assert_type,
    is_non_decreasing,
    is_numeric_tensor,
    is_strictly_increasing,
)
from tfcluster.ops.logging_ops import Assert
from tfcluster.ops.math_ops import is_finite, is_inf, is_nan
from tfcluster.ops.numerics import check_numerics, verify_tensor_all_finite


def assert_all_finite(
    t: Any = None, msg: Any = None, name: str | None = None, x: Any = None, message: Any = None
) -> Tensor:
    """tf.debugging.assert_all_finite: tf.verify_tensor_all_finite."""
    return verify_tensor_all_finite(t, msg, name, x, message)


__getattr__ = _unimplemented.module_getattr("debugging")
