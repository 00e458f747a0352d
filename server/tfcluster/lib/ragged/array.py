"""Array ops over RaggedTensors as TF 1.15's tf.ragged has them: boolean_mask, concat and
stack (also what tf.concat / tf.stack do given a RaggedTensor), stack_dynamic_partitions,
and what tf.expand_dims, tf.size and tf.rank do given one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.ragged import math as ragged_math
from tfcluster.lib.ragged import util as ragged_util
from tfcluster.ops import array_ops, math_ops, ragged_checks, sort_ops
from tfcluster.ops.ragged_getitem import gather
from tfcluster.ops.ragged_tensor import (
    RaggedTensor,
    convert_to_tensor_or_ragged_tensor,
    row_splits_to_segment_ids,
)


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """The items of data where mask is True; mask's shape is a prefix of data's. A mask of
    rank > 1 gives a RaggedTensor (rows keep their own number of items)."""
    with name_scope(name, "RaggedMask", [data, mask]):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        mask = convert_to_tensor_or_ragged_tensor(mask, dtypes.bool_, name="mask")
        if mask.dtype.base_dtype != dtypes.bool_:
            raise ValueError("mask must have dtype bool")
        if (
            isinstance(data, RaggedTensor)
            and isinstance(mask, RaggedTensor)
            and data.row_splits.dtype != mask.row_splits.dtype
        ):
            raise ValueError(
                "Input RaggedTensors have mismatched row_splits dtypes; use "
                "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
            )
        splits_dtype = next(
            (t.row_splits.dtype for t in (data, mask) if isinstance(t, RaggedTensor)),
            dtypes.int64,
        )
        if mask.shape.ndims is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.ndims == 0:
            raise ValueError("mask cannot be scalar.")
        if isinstance(mask, RaggedTensor):
            return _mask_by_ragged(data, mask, splits_dtype)
        if isinstance(data, RaggedTensor) and mask.shape.ndims == 1:
            # Whole rows: keep their lengths and the values of the rows kept.
            masked_lengths = array_ops.boolean_mask(data.row_lengths(), mask)
            masked_splits = _lengths_to_splits(masked_lengths)
            segment_mask = array_ops.gather(mask, row_splits_to_segment_ids(data.row_splits))
            masked_values = boolean_mask(data.values, segment_mask)
            return RaggedTensor.from_row_splits(masked_values, masked_splits, validate=False)
        if isinstance(data, RaggedTensor):
            ragged_mask = RaggedTensor.from_tensor(
                mask,
                ragged_rank=min(data.ragged_rank, mask.shape.ndims - 1),
                row_splits_dtype=data.row_splits.dtype,
            )
            return boolean_mask(data, ragged_mask)
        masked_values = array_ops.boolean_mask(data, mask)
        if mask.shape.ndims >= 2:
            # The kept items of each innermost row, then the outer rows (all uniform).
            masked_lengths = math_ops.count_nonzero(mask, axis=-1, dtype=splits_dtype)
            flat_lengths = array_ops.reshape(masked_lengths, [-1])
            masked_values = RaggedTensor.from_row_lengths(
                masked_values, flat_lengths, validate=False
            )
            if mask.shape.ndims > 2:
                mask_shape = array_ops.shape(mask, out_type=splits_dtype)
                split_size = math_ops.cumprod(mask_shape) + 1
                for dim in range(mask.shape.ndims - 3, -1, -1):
                    elt_size = mask_shape[dim + 1]
                    masked_splits = math_ops.range(split_size[dim]) * elt_size
                    masked_values = RaggedTensor.from_row_splits(
                        masked_values, masked_splits, validate=False
                    )
        return masked_values


def _lengths_to_splits(lengths: Any) -> Any:
    return array_ops.concat([array_ops.zeros([1], lengths.dtype), math_ops.cumsum(lengths)], 0)


def _mask_by_ragged(data: Any, mask: RaggedTensor, splits_dtype: Any) -> Any:
    """A ragged mask: its partition must be data's outer one; each level keeps its splits but
    the innermost, which counts what each row kept."""
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(
            data, ragged_rank=mask.ragged_rank, row_splits_dtype=mask.row_splits.dtype
        )
    checks = [
        ragged_checks.assert_equal(a, b, message="Inputs must have identical ragged splits")
        for a, b in zip(mask.nested_row_splits, data.nested_row_splits[: mask.ragged_rank])
    ]
    with control_dependencies(checks):
        splits = []
        current: Any = mask
        while isinstance(current, RaggedTensor):
            if (current.shape.ndims or 0) > 2:
                splits.append(current.row_splits)
            else:
                int_mask = current.with_flat_values(
                    math_ops.cast(current.flat_values, splits_dtype)
                )
                masked_row_lengths = ragged_math.reduce_sum(int_mask, axis=1)
                splits.append(_lengths_to_splits(masked_row_lengths))
            current = current.values
            data = data.values
        masked_values = boolean_mask(data, current)
        return RaggedTensor.from_nested_row_splits(masked_values, splits, validate=False)


def _as_ragged(values: Sequence[Any], ragged_rank: int, splits_dtype: Any) -> list[RaggedTensor]:
    out = []
    for v in values:
        if isinstance(v, RaggedTensor):
            out.append(v.with_row_splits_dtype(splits_dtype))
        else:
            out.append(
                RaggedTensor.from_tensor(v, ragged_rank=ragged_rank, row_splits_dtype=splits_dtype)
            )
    return out


def _concat_rows(rts: Sequence[RaggedTensor]) -> RaggedTensor:
    """Axis-0 concatenation of RaggedTensors of one ragged_rank: the flat values joined, and
    each level's row splits joined with the offsets of the inputs before."""
    flat_values = array_ops.concat([rt.flat_values for rt in rts], axis=0)
    nested_splits = [rt.nested_row_splits for rt in rts]
    levels = [
        _concat_splits([splits[level] for splits in nested_splits])
        for level in range(rts[0].ragged_rank)
    ]
    return RaggedTensor.from_nested_row_splits(flat_values, levels, validate=False)


def _concat_splits(splits_list: Sequence[Any]) -> Any:
    pieces = [splits_list[0]]
    offset = splits_list[0][-1]
    for splits in splits_list[1:]:
        pieces.append(splits[1:] + offset)
        offset += splits[-1]
    return array_ops.concat(pieces, axis=0)


def concat(values: Sequence[Any], axis: int, name: str | None = None) -> Any:
    """values joined along axis (0: more rows; 1: each row the rows of all inputs)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", list(values)):
        return _concat_or_stack(list(values), axis, stack_values=False)


def stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> Any:
    """values stacked along a new axis (0 or 1)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", list(values)):
        return _concat_or_stack(list(values), axis, stack_values=True)


def _concat_or_stack(values: list[Any], axis: int, stack_values: bool) -> Any:
    values = [convert_to_tensor_or_ragged_tensor(v, name="rt_input") for i, v in enumerate(values)]
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    if not ragged:
        fn = array_ops.stack if stack_values else array_ops.concat
        return fn(values, axis=axis)
    ndims = values[0].shape.ndims
    for v in values:
        if v.shape.ndims is None:
            raise ValueError("rt_inputs must have known rank")
        if v.shape.ndims != ndims:
            raise ValueError("rt_inputs must all have the same rank")
    if axis < 0:
        axis += ndims + (1 if stack_values else 0)
    ragged_rank = max(max(v.ragged_rank for v in ragged), 1)
    splits_dtype = ragged[0].row_splits.dtype.base_dtype
    rts = _as_ragged(values, ragged_rank, splits_dtype)
    n = len(rts)
    if axis == 0:
        if not stack_values:
            return _concat_rows(rts)
        joined = _concat_rows(rts)
        outer = _lengths_to_splits(array_ops.stack([rt.nrows() for rt in rts]))
        return RaggedTensor.from_row_splits(joined, outer, validate=False)
    if axis == 1:
        # Rows of all inputs (input-major), reordered row-major, then grouped per output row.
        nrows = rts[0].nrows()
        checks = [
            ragged_checks.assert_equal(
                rt.nrows(), nrows, message="Input tensors have incompatible shapes."
            )
            for rt in rts[1:]
        ]
        with control_dependencies(checks):
            joined = _concat_rows(rts)
            order = array_ops.reshape(
                array_ops.transpose(array_ops.reshape(math_ops.range(nrows * n), [n, -1])),
                [-1],
            )
            interleaved = gather(joined, order)
            if stack_values:
                splits = math_ops.range(0, nrows * n + 1, n)
                _copy_row_shape(rts, splits)
                return RaggedTensor.from_row_splits(interleaved, splits, validate=False)
            splits = interleaved.row_splits[::n]
            _copy_row_shape(rts, splits)
            return RaggedTensor.from_row_splits(interleaved.values, splits, validate=False)
    raise ValueError(f"tfcluster's ragged concat/stack supports axis 0 and 1 only, got axis={axis}")


def stack_dynamic_partitions(
    data: Any, partitions: Any, num_partitions: int, name: str | None = None
) -> RaggedTensor:
    """Row p of the result holds the items of data whose partition is p, in order."""
    with name_scope(name, "SegmentStack", [data, partitions, num_partitions]):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        partitions = convert_to_tensor_or_ragged_tensor(partitions, dtypes.int32, name="partitions")
        if isinstance(partitions, RaggedTensor):
            if not isinstance(data, RaggedTensor):
                raise ValueError("data and partitions must both be ragged or both dense")
            data = data.flat_values
            partitions = partitions.flat_values
        elif isinstance(data, RaggedTensor):
            raise ValueError("data and partitions must both be ragged or both dense")
        partitions = math_ops.cast(partitions, dtypes.int32)
        checks = [
            ragged_checks.assert_non_negative(
                partitions, message="partitions must be non-negative"
            ),
            ragged_checks.assert_less(
                partitions, num_partitions, message="partitions must be less than num_partitions"
            ),
        ]
        with control_dependencies(checks):
            permutation = sort_ops.argsort(partitions, stable=True)
        # Items sorted by partition, each row one partition's (in their order).
        sorted_partitions = array_ops.gather(partitions, permutation)
        if isinstance(data, RaggedTensor):
            values = gather(data, permutation)
        else:
            values = array_ops.gather(data, permutation)
        return RaggedTensor.from_value_rowids(
            values, sorted_partitions, num_partitions, validate=False
        )


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:
    """A new dimension of size 1 at axis (axis 0: one row holding all; 1: each row alone)."""
    if dim is not None:
        axis = dim
    with name_scope(name, "RaggedExpandDims", [input]):
        input = convert_to_tensor_or_ragged_tensor(input, name="input")
        if not isinstance(input, RaggedTensor):
            return array_ops.expand_dims(input, axis)
        ndims = None if input.shape.ndims is None else input.shape.ndims + 1
        axis = _positive_axis(axis, ndims)
        if axis == 0:
            values: Any = input
            splits = array_ops.stack([0, input.nrows()])
        elif axis == 1:
            values = input
            splits = math_ops.range(input.nrows() + 1)
        else:
            values = expand_dims(input.values, axis - 1)
            splits = input.row_splits
        return RaggedTensor.from_row_splits(values, splits, validate=False)


def _positive_axis(axis: Any, ndims: int | None) -> int:
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    if ndims is not None and not -ndims <= axis < ndims:
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    if axis < 0:
        if ndims is None:
            raise ValueError("axis may only be negative if ndims is statically known.")
        axis += ndims
    return axis


def size(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Any:
    """The number of values (the flat values' size)."""
    if isinstance(input, RaggedTensor):
        return array_ops.size(input.flat_values, out_type=out_type, name=name)
    return array_ops.size(input, out_type=out_type, name=name)


def rank(input: Any, name: str | None = None) -> Any:
    """ragged_rank + the rank of the flat values."""
    with name_scope(name, "RaggedRank", [input]) as scope:
        if not isinstance(input, RaggedTensor):
            return array_ops.rank(input, scope)
        return input.ragged_rank + array_ops.rank(input.flat_values)


__all__: list[str] = []


def _copy_row_shape(rts: list[RaggedTensor], splits: Tensor) -> None:
    """The rows' splits of an axis-1 concat or stack have one more entry than any input has
    rows, where one input's number of rows is known."""
    for rt in rts:
        if rt.shape[0] is not None:
            splits.set_shape(TensorShape([rt.shape[0] + 1]))


def tile(input: Any, multiples: Any, name: str | None = None) -> Any:
    """A RaggedTensor repeated multiples[i] times along each dimension i (each row's length
    in a ragged dimension multiplied by the next dimension's multiple)."""
    with name_scope(name, "RaggedTile", [input, multiples]):
        rt = convert_to_tensor_or_ragged_tensor(input, name="input")
        if not isinstance(rt, RaggedTensor):
            return array_ops.tile(rt, multiples, name)
        multiples = ragged_util.convert_to_int_tensor(
            multiples, name="multiples", dtype=rt.row_splits.dtype
        )
        multiples.shape.with_rank(1)
        known = ragged_util.python_constant_value(multiples)  # tiling by 1 builds nothing
        return RaggedTensor.from_nested_row_splits(
            _tiled_values(rt, multiples, known), _tiled_splits(rt, multiples, known), validate=False
        )


def _tiled_values(rt: RaggedTensor, multiples: Tensor, known: Any) -> Tensor:
    """The flat values of the tiled tensor: ids of rt's flat values repeated per ragged
    dimension (innermost first), gathered, then tiled along the uniform dimensions."""
    splits_list = rt.nested_row_splits
    ids = math_ops.range(splits_list[-1][-1])
    previous = None
    for axis in range(rt.ragged_rank, 0, -1):
        splits = splits_list[axis - 1]
        if previous is not None:  # point into ids, not into the next dimension's rows
            splits = array_ops.gather(previous * multiples[axis + 1], splits)
        if known is None or known[axis] != 1:
            ids = ragged_util.repeat_ranges(ids, splits, multiples[axis])
        previous = splits
    gathered = array_ops.gather(rt.flat_values, ids)
    inner = array_ops.concat([multiples[:1], multiples[rt.ragged_rank + 1 :]], axis=0)
    return array_ops.tile(gathered, inner)


def _tiled_splits(rt: RaggedTensor, multiples: Tensor, known: Any) -> list[Tensor]:
    """The row splits of each ragged dimension of the tiled tensor."""
    ragged_rank = rt.ragged_rank
    splits_list = rt.nested_row_splits
    # projected[src][dst]: the split points of src's rows in dimension dst's values.
    projected: list[dict[int, Tensor]] = [{i: splits_list[i]} for i in range(ragged_rank)]
    for src in range(ragged_rank):
        for dst in range(src + 1, ragged_rank - 1):
            projected[src][dst] = array_ops.gather(splits_list[dst], projected[src][dst - 1])
    result = []
    for axis in range(ragged_rank):
        lengths = splits_list[axis][1:] - splits_list[axis][:-1]
        lengths = lengths * multiples[axis + 1]
        repeats: Any = 1
        for d in range(axis - 1, -1, -1):
            if known is None or known[d + 1] != 1:
                splits = projected[d][axis - 1] * repeats
                lengths = ragged_util.repeat_ranges(lengths, splits, multiples[d + 1])
            repeats *= multiples[d + 1]
        lengths = array_ops.tile(lengths, multiples[:1])
        result.append(ragged_util.lengths_to_splits(lengths))
    return result
