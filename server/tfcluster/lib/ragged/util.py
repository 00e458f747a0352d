"""Helpers the ragged ops share (TF 1.15's ragged_util): integer conversion, lengths to
splits, and repeating ranges of a tensor's rows (what tiling and broadcasting build on)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
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


def python_constant_value(t: Any) -> np.ndarray | None:
    """A tensor's value as TF 1.15's Python tf.get_static_value knows it, what the ragged ops
    decide by (whether to tile a dimension): Const, Shape/Size/Rank of known shapes, and Range,
    Cast, ConcatV2, Pack (axis 0), Fill, Equal, NotEqual of known values; not the strided
    slices of shapes that tfcluster's tensor_util.constant_value also reads."""
    if not isinstance(t, Tensor):
        return None
    op = t.op
    if op.type in ("Const", "Shape", "Size", "Rank"):
        return tensor_util.constant_value(t)
    inputs = op.inputs
    if op.type == "Fill":
        fill = python_constant_value(inputs[1])
        dims = t.shape.as_list() if t.shape.ndims is not None else [None]
        sizes = [d for d in dims if d is not None]
        if fill is None or len(sizes) != len(dims):
            return None
        return np.full(sizes, fill, dtype=fill.dtype)
    if op.type == "Pack" and (not inputs or op.attrs.get("axis", 0) != 0):
        return None
    found = [python_constant_value(i) for i in inputs]
    values = [v for v in found if v is not None]
    if len(values) != len(found):
        return None
    if op.type == "Range":
        return np.arange(*(np.asarray(v).item() for v in values), dtype=t.dtype.as_numpy_dtype)
    if op.type == "Cast":
        return np.asarray(values[0]).astype(t.dtype.as_numpy_dtype)
    if op.type == "ConcatV2":
        return np.concatenate(values[:-1], axis=int(values[-1]))
    if op.type == "Pack":
        return np.array(values)
    if op.type == "Equal":
        return np.asarray(np.equal(values[0], values[1]))
    if op.type == "NotEqual":
        return np.asarray(np.not_equal(values[0], values[1]))
    return None
