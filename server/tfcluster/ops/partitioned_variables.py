"""Partitioners (how tf.get_variable splits a variable into shards) and the older
create_partitioned_variables. A partitioner is `fn(shape, dtype) -> [shards per axis]`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import variable_scope

Partitioner = Callable[..., list[int]]


def variable_axis_size_partitioner(
    max_shard_bytes: int,
    axis: int = 0,
    bytes_per_string_element: int = 16,
    max_shards: int | None = None,
) -> Partitioner:
    """As many shards along `axis` as keep each under `max_shard_bytes` (at most max_shards)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape: Any, dtype: Any) -> list[int]:
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        if not isinstance(dtype, dtypes.DType):
            raise ValueError(f"dtype is not a DType: {dtype}")
        if dtype.base_dtype == dtypes.string:
            element_size = bytes_per_string_element
        else:
            element_size = dtype.size
        dims = [int(d) for d in shape.as_list()]  # type: ignore[arg-type]
        partitions = [1] * len(dims)
        bytes_per_slice = 1.0 * (math.prod(dims) / dims[axis]) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = math.ceil(1.0 * dims[axis] / slices_per_shard)
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(
    max_partitions: int = 1,
    axis: int = 0,
    min_slice_size: int = 256 << 10,
    bytes_per_string_element: int = 16,
) -> Partitioner:
    """Shards of at least `min_slice_size` bytes, at most `max_partitions` of them."""

    def _partitioner(shape: Any, dtype: Any) -> list[int]:
        if axis >= len(shape):
            raise ValueError(
                f"Can not partition variable along axis {axis} when shape is only {shape}"
            )
        if dtype.base_dtype == dtypes.string:
            bytes_per_element = bytes_per_string_element
        else:
            bytes_per_element = dtype.size
        total_size_bytes = shape.num_elements() * bytes_per_element
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(
            1, min(shape.dims[axis].value, max_partitions, math.ceil(partitions))
        )
        return partitions_list

    return _partitioner


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """`num_shards` shards along `axis` (fewer when the axis is shorter)."""

    def _partitioner(shape: Any, **unused_args: Any) -> list[int]:
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape.dims[axis].value)
        return partitions_list

    return _partitioner


def create_partitioned_variables(
    shape: Sequence[int],
    slicing: Sequence[int],
    initializer: Any,
    dtype: Any = dtypes.float32,
    trainable: bool = True,
    collections: Sequence[str] | None = None,
    name: str | None = None,
    reuse: Any = None,
) -> list[Any]:
    """The shards of a new partitioned variable (deprecated in TF for get_variable with a
    partitioner), in a variable scope `name` or 'PartitionedVariable'."""
    if len(shape) != len(slicing):
        raise ValueError(
            "The 'shape' and 'slicing' of a partitioned Variable must have the length: "
            f"shape: {shape}, slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")

    def partitioner(**unused_kwargs: Any) -> list[int]:
        return list(slicing)

    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned_var = variable_scope._get_partitioned_variable(
            name=None,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            trainable=trainable,
            partitioner=partitioner,
            collections=collections,
        )
        return list(partitioned_var)


__all__ = [
    "create_partitioned_variables",
    "fixed_size_partitioner",
    "min_max_variable_partitioner",
    "variable_axis_size_partitioner",
]
