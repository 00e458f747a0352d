"""Counting and reordering ops: tf.bincount, tf.unique_with_counts, tf.setdiff1d,
tf.histogram_fixed_width(_bins), tf.reverse_sequence and tf.roll, as TF 1.15 builds them."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, NamedTuple

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.inferred_values import inferred_value
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, clip_ops, constant_op, math_ops, segment_ops
from tfcluster.ops.infer_util import (
    check_dtype,
    index_tensor,
    shape_list,
    static_int,
    with_rank,
)
from tfcluster.ops.op_util import NUMERIC, Outputs, make_op

_REAL = tuple(d for d in NUMERIC if not d.is_complex)
_INT_FLOAT = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _bincount_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 0, "size")
    size = inferred_value(inputs[1])  # TF's refiner evaluates the size's constant subgraph
    return [(attrs["T"], TensorShape([None if size is None else int(size)]))]


def _unique_with_counts_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    with_rank(x.shape, 1, "x")
    idx = attrs["out_idx"]
    return [
        (x.dtype.base_dtype, TensorShape([None])),
        (idx, x.shape),
        (idx, TensorShape([None])),
    ]


def _list_diff_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, y = inputs
    with_rank(x.shape, 1, "x")
    with_rank(y.shape, 1, "y")
    return [(x.dtype.base_dtype, TensorShape([None])), (attrs["out_idx"], TensorShape([None]))]


def _histogram_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 1, "value_range")
    with_rank(inputs[2].shape, 0, "nbins")
    return [(attrs["dtype"], TensorShape([static_int(inputs[2])]))]


def _same_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _reverse_sequence_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, lengths = inputs
    with_rank(lengths.shape, 1, "seq_lengths")
    dims = shape_list(x.shape)
    seq_dim, batch_dim = int(attrs["seq_dim"]), int(attrs["batch_dim"])
    if dims is not None:
        rank = len(dims)
        if not (0 <= seq_dim < rank) or not (0 <= batch_dim < rank):
            raise ValueError(
                f"Invalid seq_dim {seq_dim} or batch_dim {batch_dim} for input of rank {rank}"
            )
        if seq_dim == batch_dim:
            raise ValueError(f"seq_dim and batch_dim must differ, both are {seq_dim}")
        n = lengths.shape.as_list()[0] if lengths.shape.ndims else None
        if n is not None and dims[batch_dim] is not None and n != dims[batch_dim]:
            raise ValueError(
                f"Dimensions must be equal, but are {dims[batch_dim]} and {n} for "
                "'ReverseSequence' (batch dimension and seq_lengths)"
            )
    return [(x.dtype.base_dtype, x.shape)]


op_def_registry.register("Bincount", _bincount_infer)
op_def_registry.register("UniqueWithCounts", _unique_with_counts_infer)
op_def_registry.register("ListDiff", _list_diff_infer)
op_def_registry.register("HistogramFixedWidth", _histogram_infer)
op_def_registry.register("ReverseSequence", _reverse_sequence_infer)
op_def_registry.register("Roll", _same_shape_infer)


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = dtypes.int32,
) -> Tensor:
    """How often each value 0, 1, ... occurs in `arr` (or the sum of its weights)."""
    with name_scope(None, "bincount", [arr, weights, minlength, maxlength]):
        a = convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        nonempty = math_ops.greater(math_ops.reduce_prod(array_ops.shape(a)), 0)
        output_size = math_ops.cast(nonempty, dtypes.int32) * (math_ops.reduce_max(a) + 1)
        if minlength is not None:
            low = convert_to_tensor(minlength, name="minlength", dtype=dtypes.int32)
            output_size = math_ops.maximum(low, output_size)
        if maxlength is not None:
            high = convert_to_tensor(maxlength, name="maxlength", dtype=dtypes.int32)
            output_size = math_ops.minimum(high, output_size)
        if weights is not None:
            w = convert_to_tensor(weights, name="weights")
            return segment_ops.unsorted_segment_sum(w, a, output_size)
        want = dtypes.as_dtype(dtype).base_dtype
        w = constant_op.constant([], want)
        attrs = {"T": want}
        return make_op("Bincount", [a, output_size, w], attrs, name="Bincount").outputs[0]


# (y, idx, count): TF's namedtuple, which Session.run gives back as one too (its field `count`
# hides tuple.count, as in TF).
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> Any:
    """The distinct values of a vector (in order of first appearance), each element's index
    into them, and how often each occurs."""
    with name_scope(name, "UniqueWithCounts", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        idx = dtypes.as_dtype(out_idx).base_dtype
        attrs = {"T": t.dtype.base_dtype, "out_idx": idx}
        op = make_op("UniqueWithCounts", [t], attrs, name=scope)
    return UniqueWithCounts(*op.outputs)


class ListDiff(NamedTuple):
    """(out, idx): TF's namedtuple, which Session.run gives back as one too."""

    out: Tensor
    idx: Tensor


def setdiff1d(x: Any, y: Any, index_dtype: Any = dtypes.int32, name: str | None = None) -> Any:
    """(values of x not in y, in order and with repeats; their positions in x)."""
    with name_scope(name, "ListDiff", [x, y]) as scope:
        a = convert_to_tensor(x, name="x")
        b = convert_to_tensor(y, dtype=a.dtype.base_dtype, name="y")
        attrs = {"T": a.dtype.base_dtype, "out_idx": dtypes.as_dtype(index_dtype).base_dtype}
        op = make_op("ListDiff", [a, b], attrs, name=scope)
    return ListDiff(*op.outputs)


def histogram_fixed_width(
    values: Any,
    value_range: Any,
    nbins: Any = 100,
    dtype: Any = dtypes.int32,
    name: str | None = None,
) -> Tensor:
    """Counts of values in nbins equal bins over value_range (outliers go to the end bins)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        v = convert_to_tensor(values, name="values")
        check_dtype(v, _INT_FLOAT, "HistogramFixedWidth", "values")
        r = convert_to_tensor(value_range, dtype=v.dtype.base_dtype, name="value_range")
        n = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        attrs = {"T": v.dtype.base_dtype, "dtype": dtypes.as_dtype(dtype).base_dtype}
        return make_op("HistogramFixedWidth", [v, r, n], attrs, name=scope).outputs[0]


def histogram_fixed_width_bins(
    values: Any,
    value_range: Any,
    nbins: Any = 100,
    dtype: Any = dtypes.int32,
    name: str | None = None,
) -> Tensor:
    """The bin (0 .. nbins-1) each value falls in."""
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        v = convert_to_tensor(values, name="values")
        shape = array_ops.shape(v)
        v = array_ops.reshape(v, [-1])
        r = convert_to_tensor(value_range, name="value_range")
        n = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        nbins_float = math_ops.cast(n, v.dtype.base_dtype)
        scaled = math_ops.truediv(
            math_ops.subtract(v, r[0]), math_ops.subtract(r[1], r[0]), name="scaled_values"
        )
        indices = math_ops.floor(math_ops.multiply(nbins_float, scaled), name="indices")
        clipped = clip_ops.clip_by_value(
            indices, math_ops.cast(0, indices.dtype), math_ops.subtract(nbins_float, 1)
        )
        return array_ops.reshape(math_ops.cast(clipped, dtypes.as_dtype(dtype)), shape)


def _lookup(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


def reverse_sequence(
    input: Any,
    seq_lengths: Any,
    seq_axis: Any = None,
    batch_axis: Any = None,
    name: str | None = None,
    seq_dim: Any = None,
    batch_dim: Any = None,
) -> Tensor:
    """Reverses the first seq_lengths[b] entries along seq_axis of each batch entry b."""
    seq_axis = _lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument: 'seq_axis'")
    with name_scope(name, "ReverseSequence", [input, seq_lengths]) as scope:
        x = convert_to_tensor(input, name="input")
        lengths = index_tensor(seq_lengths, "seq_lengths", dtype=None)
        attrs = {
            "seq_dim": int(seq_axis),
            "batch_dim": int(batch_axis or 0),
            "T": x.dtype.base_dtype,
            "Tlen": lengths.dtype.base_dtype,
        }
        return make_op("ReverseSequence", [x, lengths], attrs, name=scope).outputs[0]


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """Entries shifted (with wrap-around) by `shift` along `axis` (both may be lists)."""
    with name_scope(name, "Roll", [input, shift, axis]) as scope:
        x = convert_to_tensor(input, name="input")
        s = index_tensor(shift, "shift")
        a = index_tensor(axis, "axis")
        attrs = {"T": x.dtype.base_dtype, "Tshift": s.dtype.base_dtype, "Taxis": a.dtype.base_dtype}
        return make_op("Roll", [x, s, a], attrs, name=scope).outputs[0]


__all__ = [
    "bincount",
    "histogram_fixed_width",
    "histogram_fixed_width_bins",
    "reverse_sequence",
    "roll",
    "setdiff1d",
    "unique_with_counts",
]
