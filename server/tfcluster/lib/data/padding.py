"""Dataset.padded_batch: batches whose components are padded to a common shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset, _bool, _int64, _static_bool, _static_int
from tfcluster.ops import array_ops, dataset_ops, math_ops


def _shape_tensor(padded: Any, component: TensorShape) -> tuple[Tensor, TensorShape]:
    """The padded shape as an int64 vector (-1: the longest in the batch) and what is known
    of it statically."""
    if isinstance(padded, (list, tuple)) and any(isinstance(d, Tensor) for d in padded):
        # Dimensions given as tensors (bucket_by_sequence_length's boundaries): one vector.
        padded = array_ops.stack(
            [
                math_ops.cast(d, dtypes.int64)
                if isinstance(d, Tensor)
                else convert_to_tensor(-1 if d is None else int(d), dtype=dtypes.int64)
                for d in padded
            ]
        )
    if isinstance(padded, Tensor):
        t = convert_to_tensor(padded, dtype=dtypes.int64, name="padded_shape")
        if t.shape.ndims not in (None, 1):
            raise ValueError(f"Padded shape {padded} must be a 1-D tensor of tf.int64 values")
        return t, tensor_util.constant_value_as_shape(t)
    shape = as_shape(padded)
    if shape.ndims is None:
        shape = TensorShape([None] * component.ndims) if component.ndims is not None else shape
    if shape.ndims is None:
        raise ValueError("padded_batch needs the rank of every component to be known")
    if component.ndims is not None and (
        component.ndims != shape.ndims
        or any(
            p is not None and c is not None and c > p
            for p, c in zip(shape.as_list(), component.as_list())
        )
    ):
        raise ValueError(
            f"The padded shape {shape} is not compatible with the corresponding input component "
            f"shape {component}."
        )
    dims = [-1 if d is None else d for d in shape.as_list()]
    t = convert_to_tensor(np.array(dims, dtype=np.int64), dtype=dtypes.int64)
    return t, shape


def _padding_tensor(value: Any, dtype: dtypes.DType) -> Tensor:
    if value is None:
        value = b"" if dtype == dtypes.string else np.zeros((), dtype=dtype.as_numpy_dtype)
    t = convert_to_tensor(value, dtype=dtype, name="padding_value")
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"Padding value should be a scalar, but is not: {value}")
    return t


def padded_batch(
    dataset: Dataset,
    batch_size: Any,
    padded_shapes: Any,
    padding_values: Any,
    drop_remainder: bool,
) -> Dataset:
    specs = st.flatten(dataset._structure)
    if any(s.kind != st.DENSE for s in specs):
        raise TypeError("Batching of padded sparse tensors is not currently supported")
    size = _int64(batch_size, "batch_size")  # made first, as TF does
    types = dataset.output_types
    if padded_shapes is None:
        flat_padded: list[Any] = [None] * len(specs)
    else:
        flat_padded = st.flatten_up_to(types, padded_shapes)
    shapes = [_shape_tensor(p, s.shape) for p, s in zip(flat_padded, specs)]
    if padding_values is None:
        flat_values: list[Any] = [None] * len(specs)
    else:
        flat_values = st.flatten_up_to(types, padding_values)
    values = [_padding_tensor(v, s.dtype) for v, s in zip(flat_values, specs)]
    drop = _bool(drop_remainder, "drop_remainder")
    dim = _static_int(size) if _static_bool(drop) else None
    structure = st.pack_as(
        dataset._structure,
        [
            st.dense(s.dtype, TensorShape([dim]).concatenate(shape))
            for s, (_, shape) in zip(specs, shapes)
        ],
    )
    attrs = {**st.op_attrs(structure), "N": len(specs), "Toutput_types": [s.dtype for s in specs]}
    inputs = [dataset._variant_tensor, size, *[t for t, _ in shapes], *values, drop]
    variant = dataset_ops.dataset_op("PaddedBatchDatasetV2", inputs, attrs)
    return Dataset(variant, structure, [dataset])
