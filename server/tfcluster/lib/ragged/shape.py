"""The shape of a possibly ragged tensor as tensors, and broadcasting by it (TF 1.15's
ragged_tensor_shape): what element-wise ops on RaggedTensors build to bring their operands
to one shape.

A shape is a list of dimension sizes: `partitioned_dim_sizes`, one per dimension a
RaggedTensor's row partitions encode (a scalar for a uniform dimension, the first always
is; a vector of row lengths for a ragged one, the last always is), and `inner_dim_sizes`,
one vector of the uniform sizes of its flat values' inner dimensions.

    [[1, 2, 3], [4, 5, 6]]        partitioned ()                     inner (2, 3)
    [[1, 2], [], [3, 4, 5]]       partitioned (3, (2, 0, 3))         inner ()
    [[[1, 2], [3, 4]], [[5, 6]]]  partitioned (2, (2, 1))            inner (2,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import dimension_value
from tfcluster.lib.ragged import array as ragged_array
from tfcluster.lib.ragged import util as ragged_util
from tfcluster.ops import array_ops, broadcast_ops, math_ops
from tfcluster.ops.logging_ops import Assert
from tfcluster.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor


class RaggedTensorDynamicShape:
    """The dimension sizes of a possibly ragged tensor, as tensors (see the module's
    docstring)."""

    def __init__(
        self,
        partitioned_dim_sizes: Sequence[Any],
        inner_dim_sizes: Any,
        dim_size_dtype: Any = None,
    ) -> None:
        if not isinstance(partitioned_dim_sizes, (list, tuple)):
            raise TypeError("partitioned_dim_sizes must be a list or tuple")
        with name_scope(None, "RaggedTensorDynamicShape", [partitioned_dim_sizes, inner_dim_sizes]):
            partitioned = tuple(
                convert_to_tensor(size, name=f"partitioned_dimension_size_{i}")
                for i, size in enumerate(partitioned_dim_sizes)
            )
            inner = convert_to_tensor(inner_dim_sizes, name="inner_dim_sizes")
            for axis, size in enumerate(partitioned):
                if size.shape.ndims is None:
                    raise ValueError(f"rank of partitioned_dim_sizes[{axis}] is unknown")
                size.shape.with_rank_at_most(1)
            if partitioned and partitioned[0].shape.ndims == 1:
                raise ValueError("outermost partitioned dimension must be uniform")
            if partitioned and partitioned[-1].shape.ndims == 0:
                raise ValueError("innermost partitioned dimension must be ragged")
            inner.shape.with_rank(1)
            if dim_size_dtype is None:
                found = {p.dtype.base_dtype for p in partitioned if p.shape.ndims == 1}
                if not found:
                    dim_size_dtype = dtypes.int64
                elif len(found) == 1:
                    dim_size_dtype = found.pop()
                else:
                    raise ValueError("partitioned_dim_sizes must have matching dtypes")
            self._partitioned_dim_sizes = tuple(
                math_ops.cast(p, dim_size_dtype) for p in partitioned
            )
            self._inner_dim_sizes = math_ops.cast(inner, dim_size_dtype)

    def __repr__(self) -> str:
        return (
            f"RaggedTensorDynamicShape(partitioned_dim_sizes={self._partitioned_dim_sizes!r}, "
            f"inner_dim_sizes={self._inner_dim_sizes!r})"
        )

    @staticmethod
    def from_dim_sizes(dim_sizes: Sequence[Any]) -> RaggedTensorDynamicShape:
        """A shape from one size per dimension (a scalar where uniform, a vector of lengths
        where ragged)."""
        with name_scope(None, "RaggedTensorDynamicShapeFromDimensionSizes", [dim_sizes]):
            sizes = tuple(
                convert_to_tensor(size, preferred_dtype=dtypes.int64, name="dim_sizes")
                for size in dim_sizes
            )
            inner_split = 0
            for dim, size in enumerate(sizes):
                if size.shape.ndims == 1:
                    inner_split = dim + 1
                elif size.shape.ndims != 0:
                    raise ValueError("Each dim_size must be a scalar or a vector")
            return RaggedTensorDynamicShape(sizes[:inner_split], sizes[inner_split:])

    @classmethod
    def from_tensor(cls, rt_input: Any, dim_size_dtype: Any = None) -> RaggedTensorDynamicShape:
        """The shape of a possibly ragged tensor."""
        with name_scope(None, "RaggedTensorDynamicShapeFromTensor", [rt_input]):
            rt_input = convert_to_tensor_or_ragged_tensor(rt_input)
            if not isinstance(rt_input, RaggedTensor):
                return cls([], array_ops.shape(rt_input))
            partitioned = (rt_input.nrows(), *rt_input.nested_row_lengths())
            return RaggedTensorDynamicShape(
                partitioned,
                array_ops.shape(rt_input.flat_values)[1:],
                dim_size_dtype=dim_size_dtype,
            )

    def dimension_size(self, axis: int) -> Tensor:
        """The size of the slices across dimension `axis` (a vector where it is ragged)."""
        if not isinstance(axis, int):
            raise TypeError("axis must be an integer")
        n = len(self._partitioned_dim_sizes)
        if axis < n:
            return self._partitioned_dim_sizes[axis]
        return self._inner_dim_sizes[axis - n]  # type: ignore[no-any-return]

    def is_ragged(self, axis: int) -> bool:
        if not isinstance(axis, int):
            raise TypeError("axis must be an integer")
        rank = self.rank
        if axis < 0:
            raise ValueError("Negative axis values are not supported")
        if rank is not None and axis >= rank:
            raise ValueError(f"Expected axis={axis} < rank={rank}")
        return (
            0 < axis < len(self._partitioned_dim_sizes)
            and self._partitioned_dim_sizes[axis].shape.ndims == 1
        )

    @property
    def rank(self) -> int | None:
        inner = dimension_value(self._inner_dim_sizes.shape[0])
        return None if inner is None else len(self._partitioned_dim_sizes) + inner

    @property
    def partitioned_dim_sizes(self) -> tuple[Tensor, ...]:
        return self._partitioned_dim_sizes

    @property
    def inner_dim_sizes(self) -> Tensor:
        return self._inner_dim_sizes

    @property
    def num_partitioned_dimensions(self) -> int:
        return len(self._partitioned_dim_sizes)

    @property
    def num_inner_dimensions(self) -> int | None:
        return dimension_value(self._inner_dim_sizes.shape[0])  # type: ignore[no-any-return]

    @property
    def dim_size_dtype(self) -> dtypes.DType:
        return self._inner_dim_sizes.dtype

    def broadcast_to_rank(self, rank: int) -> RaggedTensorDynamicShape:
        """This shape with leading size-1 dimensions added up to `rank`."""
        if self.rank is None:
            raise ValueError("Unable to broadcast: self.rank is unknown")
        add = rank - self.rank
        if add < 0:
            raise ValueError(
                f"Unable to broadcast: rank={rank} must be greater than self.rank={self.rank}."
            )
        if add == 0:
            return self
        if self._partitioned_dim_sizes:
            return RaggedTensorDynamicShape(
                (1,) * add + self._partitioned_dim_sizes, self._inner_dim_sizes
            )
        inner = array_ops.concat(
            [array_ops.ones([add], self.dim_size_dtype), self.inner_dim_sizes], axis=0
        )
        return RaggedTensorDynamicShape([], inner)

    def broadcast_dimension(self, axis: int, lengths: Any) -> RaggedTensorDynamicShape:
        """This shape with dimension `axis` broadcast to `lengths` (a scalar size or a vector
        of row lengths), with a run-time check that the sizes are compatible."""
        lengths = ragged_util.convert_to_int_tensor(
            lengths, name="lengths", dtype=self.dim_size_dtype
        )
        if lengths.shape.ndims is None:
            raise ValueError("lengths must have a known rank.")
        if lengths.shape.ndims > 1:
            raise ValueError("lengths must be a scalar or vector")
        scalar = lengths.shape.ndims == 0
        if self.is_ragged(axis):
            if scalar:
                condition = math_ops.equal(lengths, 1)
            else:
                condition = math_ops.reduce_all(math_ops.equal(lengths, self.dimension_size(axis)))
        else:
            size = self.dimension_size(axis)
            if scalar:
                condition = (
                    math_ops.equal(lengths, 1)
                    | math_ops.equal(size, 1)
                    | math_ops.equal(size, lengths)
                )
            else:
                condition = math_ops.equal(size, 1)
        message = [
            "Unable to broadcast: dimension size mismatch in dimension",
            axis,
            "lengths=",
            lengths,
            "dim_size=",
            self.dimension_size(axis),
        ]
        check = Assert(condition, data=message, summarize=10)
        with control_dependencies([check]):
            if axis < self.num_partitioned_dimensions:
                if self.is_ragged(axis):
                    return RaggedTensorDynamicShape(
                        self._partitioned_dim_sizes, array_ops.identity(self.inner_dim_sizes)
                    )
                return self._broadcast_uniform_partitioned_dimension(axis, lengths)
            if scalar:
                return self._broadcast_inner_dimension_to_uniform(axis, lengths)
            if axis == 0:
                raise ValueError("Unable to broadcast: outermost dimension must be uniform.")
            return self._broadcast_inner_dimension_to_ragged(axis, lengths)

    def num_slices_in_dimension(self, axis: int) -> Tensor:
        """How many slices dimension `axis` has in all."""
        if axis < 0:
            return convert_to_tensor(1, dtype=self.dim_size_dtype)
        if self.is_ragged(axis):
            return math_ops.reduce_sum(self._partitioned_dim_sizes[axis])
        return self.dimension_size(axis) * self.num_slices_in_dimension(axis - 1)  # type: ignore[no-any-return]

    def _broadcast_uniform_partitioned_dimension(
        self, axis: int, lengths: Tensor
    ) -> RaggedTensorDynamicShape:
        size = self.dimension_size(axis)
        partitioned: list[Any] = list(self._partitioned_dim_sizes[:axis])
        if lengths.shape.ndims == 0:
            lengths = array_ops.where(math_ops.equal(size, 1), lengths, size)
            repeats: Any = array_ops.where(math_ops.equal(size, 1), lengths, 1)
            splits: Any = array_ops.stack([0, self.num_slices_in_dimension(axis)])
        else:
            splits = math_ops.range(array_ops.size(lengths, out_type=self.dim_size_dtype) + 1)
            repeats = lengths
        partitioned.append(lengths)
        for dim_size in self._partitioned_dim_sizes[axis + 1 :]:
            if dim_size.shape.ndims == 0:
                partitioned.append(dim_size)
                splits *= dim_size
            else:
                partitioned.append(ragged_util.repeat_ranges(dim_size, splits, repeats))
                splits = array_ops.gather(ragged_util.lengths_to_splits(dim_size), splits)
        return RaggedTensorDynamicShape(partitioned, self._inner_dim_sizes)

    def _broadcast_inner_dimension_to_uniform(
        self, axis: int, length: Tensor
    ) -> RaggedTensorDynamicShape:
        size = self.dimension_size(axis)
        at = axis - self.num_partitioned_dimensions
        inner = array_ops.concat(
            [
                self._inner_dim_sizes[:at],
                [array_ops.where(math_ops.equal(size, 1), length, size)],
                self._inner_dim_sizes[at + 1 :],
            ],
            axis=0,
        )
        return RaggedTensorDynamicShape(self._partitioned_dim_sizes, inner)

    def _broadcast_inner_dimension_to_ragged(
        self, axis: int, lengths: Tensor
    ) -> RaggedTensorDynamicShape:
        at = axis - self.num_partitioned_dimensions
        partitioned = (
            self._partitioned_dim_sizes
            + tuple(self._inner_dim_sizes[i] for i in range(at))
            + (lengths,)
        )
        return RaggedTensorDynamicShape(partitioned, self._inner_dim_sizes[at + 1 :])

    def with_dim_size_dtype(self, dtype: Any) -> RaggedTensorDynamicShape:
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("dtype must be int32 or int64")
        if self.dim_size_dtype == dtype:
            return self
        return RaggedTensorDynamicShape(
            [math_ops.cast(p, dtype) for p in self._partitioned_dim_sizes],
            math_ops.cast(self._inner_dim_sizes, dtype),
        )


def broadcast_dynamic_shape(
    shape_x: RaggedTensorDynamicShape, shape_y: RaggedTensorDynamicShape
) -> RaggedTensorDynamicShape:
    """The shape both broadcast to (checked when the graph runs)."""
    if not isinstance(shape_x, RaggedTensorDynamicShape):
        raise TypeError("shape_x must be a RaggedTensorDynamicShape")
    if not isinstance(shape_y, RaggedTensorDynamicShape):
        raise TypeError("shape_y must be a RaggedTensorDynamicShape")
    if shape_x.rank is None or shape_y.rank is None:
        raise ValueError("Unable to broadcast: unknown rank")
    rank = max(shape_x.rank, shape_y.rank)
    shape_x = shape_x.broadcast_to_rank(rank)
    shape_y = shape_y.broadcast_to_rank(rank)
    for axis in range(rank):
        shape_x = shape_x.broadcast_dimension(axis, shape_y.dimension_size(axis))
        shape_y = shape_y.broadcast_dimension(axis, shape_x.dimension_size(axis))
    return shape_x


def broadcast_to(
    rt_input: Any, shape: RaggedTensorDynamicShape, broadcast_inner_dimensions: bool = True
) -> Any:
    """rt_input tiled to `shape` (which it must broadcast to); with broadcast_inner_dimensions
    False its flat values keep their inner dimensions."""
    if not isinstance(shape, RaggedTensorDynamicShape):
        raise TypeError("shape must be a RaggedTensorDynamicShape")
    rt_input = convert_to_tensor_or_ragged_tensor(rt_input)
    if shape.num_partitioned_dimensions == 0:
        if isinstance(rt_input, RaggedTensor):
            raise ValueError("Incompatible with shape: ragged rank mismatch")
        if broadcast_inner_dimensions:
            return broadcast_ops.broadcast_to(rt_input, shape.inner_dim_sizes)
        return rt_input
    return _broadcast_to_ragged_shape(rt_input, shape, broadcast_inner_dimensions)


def _broadcast_to_ragged_shape(
    rt_input: Any, dst_shape: RaggedTensorDynamicShape, broadcast_inner_dimensions: bool
) -> Any:
    if isinstance(rt_input, RaggedTensor) and rt_input.row_splits.dtype != dst_shape.dim_size_dtype:
        raise ValueError(
            "rt_input and dst_shape have different row_split dtypes; use "
            "RaggedTensor.with_row_splits_dtype() or "
            "RaggedTensorDynamicShape.with_dim_size_dtype() to convert to a compatible dtype."
        )
    if rt_input.shape.ndims is None or dst_shape.rank is None:
        raise ValueError("Unable to broadcast: unknown rank")
    if rt_input.shape.ndims > dst_shape.rank:
        raise ValueError("Incompatible with shape: rank mismatch")
    if (
        isinstance(rt_input, RaggedTensor)
        and rt_input.ragged_rank >= dst_shape.num_partitioned_dimensions
    ):
        raise ValueError("Incompatible with shape: ragged rank mismatch")
    dtype = dst_shape.dim_size_dtype
    src_shape = RaggedTensorDynamicShape.from_tensor(rt_input).broadcast_to_rank(dst_shape.rank)

    # Add the missing outer dimensions, each of one row.
    if dst_shape.rank > rt_input.shape.ndims:
        inner_count = dst_shape.num_inner_dimensions or 0
        if rt_input.shape.ndims < inner_count + 1:
            rt_input = array_ops.reshape(
                rt_input, array_ops.concat([[-1], dst_shape.inner_dim_sizes], axis=0)
            )
        for _ in range(dst_shape.rank - rt_input.shape.ndims):
            if isinstance(rt_input, RaggedTensor):
                nrows = rt_input.nrows()
            else:
                nrows = array_ops.shape(rt_input, out_type=dtype)[0]
            rt_input = RaggedTensor.from_row_lengths(rt_input, [nrows], validate=False)

    # Partition as many dimensions as the destination does.
    if isinstance(rt_input, RaggedTensor):
        flat_ndims = rt_input.flat_values.shape.ndims
        if flat_ndims is None:
            raise ValueError("Unable to broadcast: unknown rank")
        extra = flat_ndims - 1 - (dst_shape.num_inner_dimensions or 0)
        if extra > 0:
            rt_input = rt_input.with_flat_values(
                RaggedTensor.from_tensor(
                    rt_input.flat_values, ragged_rank=extra, row_splits_dtype=dtype
                )
            )
    else:
        rt_input = RaggedTensor.from_tensor(
            rt_input, ragged_rank=dst_shape.num_partitioned_dimensions - 1, row_splits_dtype=dtype
        )

    # Tile the uniform dimensions of size 1 the destination has larger.
    multiples: list[Any] = [1] * dst_shape.rank
    for axis in range(dst_shape.num_partitioned_dimensions):
        if not src_shape.is_ragged(axis) and not dst_shape.is_ragged(axis):
            src_size = src_shape.dimension_size(axis)
            dst_size = dst_shape.dimension_size(axis)
            src_known = _constant_int(src_size)
            if src_known in (1, None) and _constant_int(dst_size) != 1:
                multiples[axis] = array_ops.where(math_ops.equal(src_size, 1), dst_size, 1)
    if not all(isinstance(m, int) and m == 1 for m in multiples):
        rt_input = ragged_array.tile(rt_input, array_ops.stack(multiples, axis=0))

    if broadcast_inner_dimensions:
        rt_input = rt_input.with_flat_values(
            array_ops.reshape(
                rt_input.flat_values,
                array_ops.concat([[-1], dst_shape.inner_dim_sizes], axis=0),
            )
        )

    # Tile the uniform dimensions the destination has ragged.
    for axis in range(dst_shape.num_partitioned_dimensions):
        if not src_shape.is_ragged(axis) and dst_shape.is_ragged(axis):
            rt_input = _ragged_tile_axis(rt_input, axis, dst_shape.dimension_size(axis), dtype)
    return rt_input


def _constant_int(t: Tensor) -> Any:
    """A scalar's value as TF's Python constant_value knows it, else None."""
    value = ragged_util.python_constant_value(t)
    return None if value is None else np.asarray(value).item()


def _ragged_tile_axis(rt_input: Any, axis: int, repeats: Tensor, splits_dtype: Any) -> Any:
    """rt_input's uniform dimension `axis` tiled to the ragged lengths `repeats`."""
    if axis <= 0:
        raise ValueError("the outermost dimension is never ragged")
    if not isinstance(rt_input, RaggedTensor):
        rt_input = RaggedTensor.from_tensor(rt_input, ragged_rank=1, row_splits_dtype=splits_dtype)
    if axis > 1:
        return rt_input.with_values(
            _ragged_tile_axis(rt_input.values, axis - 1, repeats, splits_dtype)
        )
    src_splits = rt_input.nested_row_splits
    src_lengths = rt_input.nested_row_lengths()
    splits = src_splits[0]
    dst_lengths: list[Any] = [repeats]
    for i in range(1, len(src_lengths)):
        dst_lengths.append(ragged_util.repeat_ranges(src_lengths[i], splits, repeats))
        splits = array_ops.gather(src_splits[i], splits)
    values = ragged_util.repeat_ranges(rt_input.flat_values, splits, repeats)
    return RaggedTensor.from_nested_row_lengths(values, dst_lengths, validate=False)
