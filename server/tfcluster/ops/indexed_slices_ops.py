"""An IndexedSlices as a dense tensor: what tf.convert_to_tensor, and any op given one, makes
of it. Its rows are summed into a tensor of its dense_shape (UnsortedSegmentSum; repeated
rows add up), with TF's warning when that tensor is big (>= 10^8 elements) or of a shape not
known while the graph is built. Registered when this module is imported (by the gradients,
the optimizers and the tf.* face)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Tensor, register_tensor_conversion_function
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import segment_ops

LARGE_SPARSE_NUM_ELEMENTS = 100000000


def indexed_slices_to_tensor(
    value: IndexedSlices, dtype: Any = None, name: str | None = None, as_ref: bool = False
) -> Tensor:
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for IndexedSlices with dtype "
            f"{value.dtype.name}"
        )
    if value.dense_shape is None:
        raise ValueError(
            f"Tensor conversion requested for IndexedSlices without dense_shape: {value}"
        )
    dense_shape = tensor_util.constant_value(value.dense_shape)
    if dense_shape is not None:
        num_elements = int(np.prod(dense_shape, dtype=np.int64))
        if num_elements >= LARGE_SPARSE_NUM_ELEMENTS:
            warnings.warn(
                f"Converting sparse IndexedSlices to a dense Tensor with {num_elements} "
                "elements. This may consume a large amount of memory.",
                stacklevel=2,
            )
    else:
        warnings.warn(
            "Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may "
            "consume a large amount of memory.",
            stacklevel=2,
        )
    return segment_ops.unsorted_segment_sum(
        value.values, value.indices, value.dense_shape[0], name=name
    )


register_tensor_conversion_function(IndexedSlices, indexed_slices_to_tensor)
