"""Helpers the ragged ops share (TF 1.15's ragged_util): integer conversion, lengths to
splits, and repeating ranges of a tensor's rows (what tiling and broadcasting build on)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.ops import array_extras, array_ops, math_ops, ragged_ops
from tfcluster.ops.op_util import make_op


def convert_to_int_tensor(value: Any, name: str, dtype: Any = dtypes.int32) -> Tensor:
    """An integer tensor cast to `dtype` (a Cast op even where it has that dtype already, as
    TF's convert_to_int_tensor builds it); TypeError for a non-integer one."""
    t = convert_to_tensor(value, name=name, preferred_dtype=dtype)
    if not t.dtype.is_integer:
        raise TypeError(f"{name} must be an integer tensor; dtype={t.dtype.name}")
    dst = dtypes.as_dtype(dtype).base_dtype
    attrs = {"SrcT": t.dtype.base_dtype, "DstT": dst, "Truncate": False}
    return make_op("Cast", [t], attrs, name="Cast").outputs[0]


def lengths_to_splits(lengths: Any) -> Tensor:
    """[0, cumsum(lengths)...]."""
    return array_ops.concat([[0], math_ops.cumsum(lengths)], axis=-1)


def repeat_ranges(params: Any, splits: Tensor, repeats: Any) -> Tensor:
    """Range i of params (params[splits[i]:splits[i + 1]]) repeated repeats[i] times (or a
    scalar `repeats` times each), the repeated ranges one after the other."""
    if repeats.shape.ndims != 0:
        starts = array_extras.repeat(splits[:-1], repeats, axis=0)
        limits = array_extras.repeat(splits[1:], repeats, axis=0)
    else:
        # Repeating the splits: the ranges from one repeat of a split to the next.
        repeated = array_extras.repeat(splits, repeats, axis=0)
        n = array_ops.shape(repeated, out_type=repeats.dtype)[0]
        starts = repeated[: n - repeats]
        limits = repeated[repeats:]
    one = array_ops.ones((), starts.dtype)
    offsets = ragged_ops.ragged_range_op(starts, limits, one, dtypes.int64, "RaggedRange")
    return array_ops.gather(params, offsets.outputs[1])
