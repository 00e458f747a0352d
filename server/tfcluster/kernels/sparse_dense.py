"""Kernels where a sparse tensor meets a dense one: SparseTensorDenseAdd (the dense tensor
plus every (index, value) of the sparse one, repeated indices adding up)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid, shape_str
from tfcluster.kernels.registry import kernel


@kernel("SparseTensorDenseAdd", host=[0, 2])
def sparse_tensor_dense_add(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = np.asarray(ins[0])
        values = xp.asarray(ins[1])
        shape = np.asarray(ins[2]).reshape(-1)
        dense = xp.asarray(ins[3])
        if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
            raise invalid(
                "Input a_indices must be a matrix and a_values a vector of its number of rows, "
                f"got a_indices {shape_str(indices.shape)} and a_values "
                f"{shape_str(values.shape)}"
            )
        if tuple(int(d) for d in shape) != tuple(dense.shape):
            raise invalid(
                "a.shape and b.shape must match: a.shape "
                f"{shape_str(shape.tolist())} vs. b.shape {shape_str(dense.shape)}"
            )
        if indices.shape[1] != dense.ndim:
            raise invalid(f"a_indices has rank {indices.shape[1]} entries, b has rank {dense.ndim}")
        if indices.size and np.any((indices < 0) | (indices >= shape)):
            row = int(np.argmax(np.any((indices < 0) | (indices >= shape), axis=1)))
            raise invalid(
                f"Index {shape_str(indices[row].tolist())} of a_indices is out of bounds of the "
                f"shape {shape_str(shape.tolist())}"
            )
        out = dense.copy()
        if indices.shape[0]:
            xp.add.at(out, tuple(xp.asarray(i) for i in indices.T), values)
        return (out,)

    return compute
