"""tf.batch_scatter_update: scatter_update within each batch entry of a variable, built as TF
1.15 builds it: the batch coordinates of every index joined to it, then one ScatterNdUpdate."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.scatter_ops import scatter_nd_update


def batch_scatter_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Tensor:
    """ref[i, ..., j, indices[i, ..., j]] = updates[i, ..., j] for the leading (batch)
    dimensions that ref and indices share."""
    with name_scope(name):
        idx = convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(idx)
        ndims = idx.shape.ndims
        if ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(idx, axis=-1)
        parts = []
        for dimension in range(ndims - 1):
            size = indices_shape[dimension]
            broadcast: list[Any] = [1] * (ndims + 1)
            broadcast[dimension] = size
            coords = array_ops.reshape(math_ops.range(0, size, 1), broadcast)
            if coords.dtype.base_dtype != nd_indices.dtype.base_dtype:
                coords = math_ops.cast(coords, nd_indices.dtype)
            parts.append(coords * array_ops.ones_like(nd_indices))
        parts.append(nd_indices)
        final_indices = array_ops.concat(parts, axis=-1)
        return scatter_nd_update(ref, final_indices, updates, use_locking=use_locking)


__all__ = ["batch_scatter_update"]
