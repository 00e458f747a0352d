"""Raised-cosine windows (tf.signal.hann_window, tf.signal.hamming_window) as TF 1.15 computes
them: a - b * cos(2 pi k / n) with n = length - 1, or n = length for a periodic window of even
length (TF's rule: an odd length gives the symmetric window even when periodic)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, constant_op, control_flow_ops, math_ops


def _raised_cosine(
    name: str | None,
    default_name: str,
    window_length: Any,
    periodic: Any,
    dtype: Any,
    a: float,
    b: float,
) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]):
        length = convert_to_tensor(window_length, dtype=dtypes.int32, name="window_length")
        length.shape.assert_has_rank(0)
        known = tensor_util.constant_value(length)
        if known is not None and int(known) == 1:
            return array_ops.ones([1], dtype=dtype)
        periodic_t = convert_to_tensor(periodic, dtype=dtypes.bool_, name="periodic")
        periodic_t.shape.assert_has_rank(0)
        periodic_i = math_ops.cast(periodic_t, dtypes.int32)
        even = 1 - math_ops.floormod(length, 2)
        n = math_ops.cast(length + periodic_i * even - 1, dtype)
        k = math_ops.cast(math_ops.range(length), dtype)
        phase = constant_op.constant(2 * np.pi, dtype=dtype) * k / n
        window = a - b * math_ops.cos(phase)
        if known is not None:
            return window
        return control_flow_ops.cond(
            math_ops.equal(length, 1),
            lambda: array_ops.ones([1], dtype=dtype),
            lambda: window,
        )


def hann_window(
    window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32, name: str | None = None
) -> Tensor:
    """0.5 - 0.5 cos(2 pi k / n): the Hann window."""
    return _raised_cosine(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(
    window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32, name: str | None = None
) -> Tensor:
    """0.54 - 0.46 cos(2 pi k / n): the Hamming window."""
    return _raised_cosine(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)
