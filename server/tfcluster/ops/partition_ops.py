"""tf.dynamic_partition, tf.dynamic_stitch and tf.parallel_dynamic_stitch (TF's data_flow_ops):
rows split by a partition number, and rows of several tensors merged by index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.inferred_values import inferred_value
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import shape_list
from tfcluster.ops.op_util import Outputs, make_op


def _partition_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, partitions = inputs
    num = int(attrs["num_partitions"])
    dtype = data.dtype.base_dtype
    dims, part_dims = shape_list(data.shape), shape_list(partitions.shape)
    if dims is None or part_dims is None:
        return [(dtype, TensorShape(None))] * num
    if len(part_dims) > len(dims) or not TensorShape(dims[: len(part_dims)]).is_compatible_with(
        partitions.shape
    ):
        raise ValueError(
            f"data.shape must start with partitions.shape, got {data.shape} and {partitions.shape}"
        )
    return [(dtype, TensorShape([None, *dims[len(part_dims) :]]))] * num


def _stitch_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = int(attrs["N"])
    indices, data = inputs[:n], inputs[n:]
    dtype = data[0].dtype.base_dtype
    tail: TensorShape | None = None
    largest = -1
    all_known = True
    for idx, d in zip(indices, data):
        idx_dims, d_dims = shape_list(idx.shape), shape_list(d.shape)
        if idx_dims is not None and d_dims is not None:
            if not TensorShape(d_dims[: len(idx_dims)]).is_compatible_with(idx.shape):
                raise ValueError(
                    f"Dimensions of data {d.shape} must start with those of indices {idx.shape}"
                )
            here = TensorShape(d_dims[len(idx_dims) :])
            tail = here if tail is None else tail.merge_with(here)
        value = inferred_value(idx)
        if value is None:
            all_known = False
        elif np.size(value):
            largest = max(largest, int(np.max(value)))
    first = largest + 1 if all_known else None
    if tail is None or tail.ndims is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([first, *tail.as_list()]))]


op_def_registry.register("DynamicPartition", _partition_infer)
op_def_registry.register("DynamicStitch", _stitch_infer)
op_def_registry.register("ParallelDynamicStitch", _stitch_infer)


def dynamic_partition(
    data: Any, partitions: Any, num_partitions: int, name: str | None = None
) -> list[Tensor]:
    """num_partitions tensors: the rows of data whose partition number is 0, 1, ..."""
    if not isinstance(num_partitions, (int, np.integer)) or num_partitions < 1:
        raise ValueError(f"num_partitions must be a positive int, got {num_partitions!r}")
    with name_scope(name, "DynamicPartition", [data, partitions]) as scope:
        d = convert_to_tensor(data, name="data")
        p = convert_to_tensor(partitions, dtype=dtypes.int32, name="partitions")
        attrs = {"num_partitions": int(num_partitions), "T": d.dtype.base_dtype}
        return list(make_op("DynamicPartition", [d, p], attrs, name=scope).outputs)


def _stitch(op_type: str, indices: Any, data: Any, name: str | None) -> Tensor:
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError(f"Expected lists of indices and data for '{op_type}'")
    if len(indices) != len(data) or not indices:
        raise ValueError(
            f"List argument 'data' to '{op_type}' Op with length {len(data)} must match length "
            f"{len(indices)} of argument 'indices'."
        )
    with name_scope(name, op_type, [*indices, *data]) as scope:
        idx = [
            convert_to_tensor(v, dtype=dtypes.int32, name=f"indices_{i}")
            for i, v in enumerate(indices)
        ]
        first = next((v for v in data if isinstance(v, Tensor)), None)
        want = first.dtype.base_dtype if first is not None else None
        vals = [convert_to_tensor(v, dtype=want, name=f"data_{i}") for i, v in enumerate(data)]
        base = vals[0].dtype.base_dtype
        for i, v in enumerate(vals):
            if v.dtype.base_dtype != base:
                raise TypeError(
                    f"Input 'data' of '{op_type}' Op has type {v.dtype.base_dtype.name} at "
                    f"position {i} that does not match type {base.name}."
                )
        attrs = {"N": len(idx), "T": base}
        return make_op(op_type, [*idx, *vals], attrs, name=scope).outputs[0]


def dynamic_stitch(indices: Sequence[Any], data: Sequence[Any], name: str | None = None) -> Tensor:
    """merged[indices[m][i, ...], ...] = data[m][i, ...]; later inputs win on repeats."""
    return _stitch("DynamicStitch", indices, data, name)


def parallel_dynamic_stitch(
    indices: Sequence[Any], data: Sequence[Any], name: str | None = None
) -> Tensor:
    return _stitch("ParallelDynamicStitch", indices, data, name)


__all__ = ["dynamic_partition", "dynamic_stitch"]
