"""Reductions over RaggedTensors (what tf.reduce_sum, reduce_mean, ... do given one, as TF
1.15's ragged dispatch makes them): along the ragged dimension a segment reduction over
value_rowids, along the rows one over each value's column, inner uniform dimensions on the
values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops, segment_ops
from tfcluster.ops.ragged_getitem import ragged_range
from tfcluster.ops.ragged_tensor import (
    RaggedTensor,
    convert_to_tensor_or_ragged_tensor,
    row_splits_to_segment_ids,
)

# name -> (dense reduction, segment reduction)
_REDUCERS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "Sum": (math_ops.reduce_sum, segment_ops.unsorted_segment_sum),
    "Prod": (math_ops.reduce_prod, segment_ops.unsorted_segment_prod),
    "Min": (math_ops.reduce_min, segment_ops.unsorted_segment_min),
    "Max": (math_ops.reduce_max, segment_ops.unsorted_segment_max),
}


def _undispatched(fn: Callable[..., Any]) -> Callable[..., Any]:
    return getattr(fn, "__wrapped__", fn)


def _reduce(kind: str, rt_input: Any, axis: Any, keepdims: bool, name: str | None = None) -> Any:
    dense_reduce, segment_reduce = (_undispatched(f) for f in _REDUCERS[kind])
    if not isinstance(rt_input, RaggedTensor):
        return dense_reduce(rt_input, axis, keepdims=keepdims)
    if keepdims:
        raise ValueError("keepdims=True is not supported for RaggedTensors.")
    if isinstance(axis, Tensor):
        axis = tensor_util.constant_value(axis)
        if axis is None:
            raise ValueError("axis must be known at graph construction time.")
        axis = axis.tolist()
    if axis is None:
        # Every value: one reduction named as the ragged reduction's scope.
        return dense_reduce(rt_input.flat_values, None, name=name)
    # (The top call re-enters its caller's scope; nested calls open RaggedReduce scopes.)
    with name_scope(name, "RaggedReduce", [rt_input]):
        return _reduce_along(kind, segment_reduce, rt_input, axis)


def _reduce_along(
    kind: str, segment_reduce: Callable[..., Any], rt_input: RaggedTensor, axis: Any
) -> Any:
    if isinstance(axis, (list, tuple)):
        if not axis:
            return rt_input
        if len(axis) > 1:
            # The innermost axis first, then the rest of the (shrunk) tensor.
            axes = sorted(_positive_axis(a, rt_input.shape.ndims) for a in axis)
            inner_reduced = _reduce(kind, rt_input, axes[-1], False)
            return _reduce(kind, inner_reduced, axes[:-1], False)
        axis = axis[0]
    axis = _positive_axis(axis, rt_input.shape.ndims)
    if axis == 0:
        # Column j of the result reduces the j-th item of every row.
        row_lengths = rt_input.row_splits[1:] - rt_input.row_splits[:-1]
        num_segments = math_ops.maximum(math_ops.reduce_max(row_lengths), 0)
        segment_ids = ragged_range(row_lengths).values
        return _segment_reduce(segment_reduce, rt_input.values, segment_ids, num_segments)
    if axis == 1:
        num_segments = array_ops.shape(rt_input.row_splits)[0] - 1
        segment_ids = row_splits_to_segment_ids(rt_input.row_splits)
        out = _segment_reduce(segment_reduce, rt_input.values, segment_ids, num_segments)
        if isinstance(out, Tensor):
            out.set_shape(TensorShape([rt_input.shape[0]]).concatenate(rt_input.values.shape[1:]))
        return out
    return rt_input.with_values(_reduce(kind, rt_input.values, axis - 1, False))


def _segment_reduce(
    segment_reduce: Callable[..., Any], data: Any, segment_ids: Any, num_segments: Any
) -> Any:
    """An unsorted segment reduction of data's rows; ragged rows are reduced item by item,
    each output row as long as the longest row reduced into it."""
    if not isinstance(data, RaggedTensor):
        return segment_reduce(data, segment_ids, num_segments)
    with name_scope(None, "RaggedSegment", [data, segment_ids, num_segments]):
        data_row_lengths = data.row_splits[1:] - data.row_splits[:-1]
        segment_ids = math_ops.cast(segment_ids, data_row_lengths.dtype)
        output_row_lengths = math_ops.maximum(
            segment_ops.unsorted_segment_max(data_row_lengths, segment_ids, num_segments),
            math_ops.cast(0, data_row_lengths.dtype),
        )
        output_splits = array_ops.concat(
            [
                array_ops.zeros([1], output_row_lengths.dtype),
                math_ops.cumsum(output_row_lengths),
            ],
            axis=0,
        )
        # Where each data row's items go among the output values.
        out_row_starts = array_ops.gather(output_splits, segment_ids)
        out_row_limits = out_row_starts + data_row_lengths
        value_targets = ragged_range(out_row_starts, out_row_limits).values
        output_values = _segment_reduce(
            segment_reduce, data.values, value_targets, output_splits[-1]
        )
        return RaggedTensor.from_row_splits(output_values, output_splits, validate=False)


def _positive_axis(axis: int, ndims: int | None) -> int:
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {axis!r}")
    if axis < 0:
        if ndims is None:
            raise ValueError("axis may only be negative if ndims is statically known.")
        axis += ndims
    if ndims is not None and not 0 <= axis < ndims:
        raise ValueError(f"axis={axis} out of bounds: expected 0<=axis<{ndims}")
    return axis


def _scope_name(scope: str) -> str:
    """The scope itself as an op name ("RaggedReduceSum/": the op is named RaggedReduceSum)."""
    return scope


def _keep(keepdims: Any, keep_dims: Any) -> bool:
    return bool(keepdims if keepdims is not None else keep_dims)


def _axis(axis: Any, reduction_indices: Any) -> Any:
    return axis if axis is not None else reduction_indices


def _reduction(kind: str) -> Callable[..., Any]:
    """tf.reduce_<kind> given a RaggedTensor: TF 1.15's signature and its RaggedReduce<Kind>
    name scope."""

    def reduce(
        input_tensor: Any,
        axis: Any = None,
        keepdims: Any = None,
        name: str | None = None,
        reduction_indices: Any = None,
        keep_dims: Any = None,
    ) -> Any:
        with name_scope(name, f"RaggedReduce{kind}", [input_tensor, axis]) as scope:
            rt = convert_to_tensor_or_ragged_tensor(input_tensor, name="input_tensor")
            axis = _axis(axis, reduction_indices)
            return _reduce(kind, rt, axis, _keep(keepdims, keep_dims), _scope_name(scope))

    reduce.__name__ = reduce.__qualname__ = f"reduce_{kind.lower()}"
    return reduce


reduce_sum = _reduction("Sum")
reduce_prod = _reduction("Prod")
reduce_min = _reduction("Min")
reduce_max = _reduction("Max")


def reduce_mean(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Any:
    """The sum over the count of values (an empty row gives nan, as in TF)."""
    with name_scope(name, "RaggedReduceMean", [input_tensor, axis]):
        rt = convert_to_tensor_or_ragged_tensor(input_tensor, name="input_tensor")
        axis, keep = _axis(axis, reduction_indices), _keep(keepdims, keep_dims)
        total = _reduce("Sum", rt, axis, keep)
        ones: Any
        if isinstance(rt, RaggedTensor):
            ones = RaggedTensor.from_nested_row_splits(
                array_ops.ones_like(rt.flat_values), rt.nested_row_splits, validate=False
            )
        else:
            ones = array_ops.ones_like(rt)
        count = _reduce("Sum", ones, axis, keep)
        if isinstance(total, RaggedTensor):
            return RaggedTensor.from_nested_row_splits(
                total.flat_values / count.flat_values, total.nested_row_splits, validate=False
            )
        return total / count


def _bool_reduce(
    kind: str, scope: str, input_tensor: Any, axis: Any, keep: bool, name: str | None
) -> Any:
    with name_scope(name, scope, [input_tensor, axis]):
        rt = convert_to_tensor_or_ragged_tensor(input_tensor, name="input_tensor")
        as_int: Any
        if isinstance(rt, RaggedTensor):
            as_int = rt.with_flat_values(math_ops.cast(rt.flat_values, dtypes.int32))
        else:
            as_int = math_ops.cast(rt, dtypes.int32)
        out = _reduce(kind, as_int, axis, keep)
        if isinstance(out, RaggedTensor):
            return out.with_flat_values(math_ops.cast(out.flat_values, dtypes.bool_))
        return math_ops.cast(out, dtypes.bool_)


def reduce_all(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Any:
    return _bool_reduce(
        "Prod",
        "RaggedReduceAll",
        input_tensor,
        _axis(axis, reduction_indices),
        _keep(keepdims, keep_dims),
        name,
    )


def reduce_any(
    input_tensor: Any,
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: Any = None,
) -> Any:
    return _bool_reduce(
        "Sum",
        "RaggedReduceAny",
        input_tensor,
        _axis(axis, reduction_indices),
        _keep(keepdims, keep_dims),
        name,
    )


__all__: list[str] = []
