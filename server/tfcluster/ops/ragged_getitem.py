"""RaggedTensor.__getitem__ with the slicing TF 1.15 supports (an int or slice on the rows,
slices on inner ragged dimensions, any key on uniform inner dimensions, Ellipsis and
newaxis), and what it is built from: tf.ragged.range (the RaggedRange op) and a gather of
whole ragged rows (the RaggedGather op)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, control_flow_ops, math_ops, ragged_ops
from tfcluster.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

_NEWAXIS = None


def ragged_range(
    starts: Any,
    limits: Any = None,
    deltas: Any = 1,
    dtype: Any = None,
    name: str | None = None,
    row_splits_dtype: Any = dtypes.int64,
) -> RaggedTensor:
    """Row i is range(starts[i], limits[i], deltas[i]) (scalars broadcast)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    with name_scope(name, "RaggedRange", [starts, limits, deltas]) as scope:
        given = [t for t in (starts, limits, deltas) if isinstance(t, Tensor)]
        if dtype is None and given:
            dtype = given[0].dtype.base_dtype
        starts = convert_to_tensor(starts, dtype=dtype, name="starts")
        limits = convert_to_tensor(limits, dtype=starts.dtype, name="limits")
        deltas = convert_to_tensor(deltas, dtype=starts.dtype, name="deltas")
        op = ragged_ops.ragged_range_op(starts, limits, deltas, row_splits_dtype, scope)
        return RaggedTensor.from_row_splits(op.outputs[1], op.outputs[0], validate=False)


def gather(params: Any, indices: Any, name: str | None = None) -> Any:
    """The rows of params (a RaggedTensor or Tensor) at the 1-D `indices`."""
    with name_scope(name, "RaggedGather", [params, indices]):
        params = convert_to_tensor_or_ragged_tensor(params, name="params")
        indices = convert_to_tensor_or_ragged_tensor(indices, name="indices")
        if isinstance(indices, RaggedTensor):
            return indices.with_values(gather(params, indices.values))
        if not isinstance(params, RaggedTensor):
            return array_ops.gather(params, indices)
        if indices.shape.ndims is None:
            raise ValueError("indices.shape.ndims must be known statically")
        op = ragged_ops.ragged_gather_op(
            params.nested_row_splits, params.flat_values, indices, "RaggedGather"
        )
        return RaggedTensor.from_nested_row_splits(op.outputs[-1], op.outputs[:-1], validate=False)


def ragged_tensor_getitem(rt: RaggedTensor, key: Any) -> Any:
    scope_inputs = [rt]
    with name_scope(None, "RaggedGetItem", scope_inputs):
        key_list = list(key) if isinstance(key, (list, tuple)) else [key]
        return _ragged_getitem(rt, key_list)


def _ragged_getitem(rt: Any, key_list: list[Any]) -> Any:
    if not key_list:
        return rt
    if not isinstance(rt, RaggedTensor):
        return rt.__getitem__(tuple(key_list))
    row_key, inner_keys = key_list[0], key_list[1:]
    if row_key is Ellipsis:
        return _ragged_getitem(rt, _expand_ellipsis(key_list, rt.shape.ndims))
    if row_key is _NEWAXIS:
        inner = _ragged_getitem(rt, inner_keys)
        nsplits = array_ops.shape(inner.row_splits, out_type=inner.row_splits.dtype)[0]
        return RaggedTensor.from_row_splits(
            inner, array_ops.stack([0, nsplits - 1]), validate=False
        )
    if isinstance(row_key, slice):
        sliced = _slice_rows(rt, row_key)
        return _getitem_inner(sliced, inner_keys)
    starts = rt.row_splits[:-1]
    limits = rt.row_splits[1:]
    row = rt.values[starts[row_key] : limits[row_key]]
    # (Even with no inner keys: TF slices the row once more, an identity strided slice.)
    return row.__getitem__(tuple(inner_keys) if isinstance(row, Tensor) else inner_keys)


def _slice_rows(rt: RaggedTensor, row_key: slice) -> RaggedTensor:
    if row_key.start is None and row_key.stop is None and row_key.step is None:
        return rt
    new_starts = rt.row_splits[:-1][row_key]
    new_limits = rt.row_splits[1:][row_key]
    zero_pad = array_ops.zeros([1], rt.row_splits.dtype)
    if row_key.step is None or row_key.step == 1:
        # Splits of the kept rows, rebased to start at 0 ([0] alone when no row is kept).
        new_splits = array_ops.concat(
            [zero_pad[array_ops.size(new_starts) :], new_starts[:1], new_limits], axis=0
        )
        values_start = new_splits[0]
        values_limit = new_splits[-1]
        return RaggedTensor.from_row_splits(
            rt.values[values_start:values_limit], new_splits - values_start, validate=False
        )
    return _from_value_ranges(new_starts, new_limits, 1, rt.values)


def _getitem_inner(rt: Any, key_list: list[Any]) -> Any:
    """Keys for the dimensions inside the rows; the rows themselves stay."""
    if not key_list:
        return rt
    if isinstance(rt, Tensor):
        return rt.__getitem__(tuple([slice(None, None, None), *key_list]))
    column_key = key_list[0]
    if column_key is Ellipsis:
        return _getitem_inner(rt, _expand_ellipsis(key_list, rt.values.shape.ndims))
    if column_key is _NEWAXIS:
        inner = _getitem_inner(rt, key_list[1:])
        nsplits = array_ops.shape(inner.row_splits, out_type=inner.row_splits.dtype)[0]
        return RaggedTensor.from_row_splits(inner, math_ops.range(nsplits), validate=False)
    if isinstance(column_key, slice):
        if column_key.start is None and column_key.stop is None and column_key.step is None:
            return rt.with_values(_getitem_inner(rt.values, key_list[1:]))
        starts = rt.row_splits[:-1]
        limits = rt.row_splits[1:]
        inner_starts, inner_limits = starts, limits
        if column_key.start is not None and column_key.start != 0:
            inner_starts = _add_offset(column_key.start, starts, limits)
        if column_key.stop is not None and column_key.stop != 0:
            inner_limits = _add_offset(column_key.stop, starts, limits)
        inner_rt = _from_value_ranges(inner_starts, inner_limits, column_key.step, rt.values)
        return inner_rt.with_values(_getitem_inner(inner_rt.values, key_list[1:]))
    raise ValueError("Cannot index into an inner ragged dimension.")


def _expand_ellipsis(key_list: list[Any], num_remaining_dims: int | None) -> list[Any]:
    if num_remaining_dims is None:
        raise ValueError("Ellipsis not supported for unknown shape RaggedTensors")
    num_indices = sum(1 for idx in key_list if idx is not _NEWAXIS)
    if num_indices > num_remaining_dims + 1:
        raise IndexError("Too many indices for RaggedTensor")
    if num_indices == num_remaining_dims + 1:
        return key_list[1:]
    return [slice(None, None, None), *key_list]


def _from_value_ranges(starts: Tensor, limits: Tensor, step: Any, values: Any) -> RaggedTensor:
    """Row i is values[starts[i]:limits[i]:step]."""
    if step is None:
        step = 1
    step_t = convert_to_tensor(step, name="step")
    if not step_t.dtype.is_integer:
        raise TypeError("slice strides must be integers or None")
    step_t = math_ops.cast(step_t, starts.dtype)
    value_indices = ragged_range(starts, limits, step_t, row_splits_dtype=starts.dtype)
    if isinstance(values, RaggedTensor):
        gathered = gather(values, value_indices.values)
    else:
        gathered = array_ops.gather(values, value_indices.values)
    return value_indices.with_values(gathered)


def _add_offset(offset: Any, starts: Tensor, limits: Tensor) -> Tensor:
    """min(starts + offset, limits) for offset >= 0, else max(limits + offset, starts)."""

    def positive(o: Any) -> Tensor:
        return math_ops.minimum(starts + o, limits)

    def negative(o: Any) -> Tensor:
        return math_ops.maximum(limits + o, starts)

    if isinstance(offset, Tensor):
        offset = math_ops.cast(offset, starts.dtype)
        return control_flow_ops.cond(  # type: ignore[no-any-return]
            offset >= 0, lambda: positive(offset), lambda: negative(offset)
        )
    if isinstance(offset, int):
        return positive(offset) if offset > 0 else negative(offset)
    raise TypeError("slice offsets must be integers or None")


__all__: list[str] = []
