"""Kernels of sparse tensors: SparseTensorDenseAdd (a dense tensor plus every (index, value)
of a sparse one, repeated indices adding up), SparseReshape, SparseConcat."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel


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


@kernel("SparseReshape", devices=CPU_ONLY)
def sparse_reshape(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = np.asarray(ins[0], dtype=np.int64)
        in_shape = np.asarray(ins[1], dtype=np.int64).reshape(-1)
        wanted = np.asarray(ins[2], dtype=np.int64).reshape(-1).copy()
        if indices.ndim != 2 or indices.shape[1] != in_shape.size:
            raise invalid(
                f"Input rank ({in_shape.size}) and indices dimension "
                f"({indices.shape[1] if indices.ndim == 2 else '?'}) must match"
            )
        size = int(np.prod(in_shape))
        unknown = np.flatnonzero(wanted == -1)
        if unknown.size > 1:
            raise invalid(
                f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}"
            )
        if np.any(wanted < -1):
            raise invalid(f"size {int(np.argmax(wanted < -1))} must be non-negative")
        if unknown.size:
            known = int(np.prod(wanted[wanted != -1]))
            if known == 0 or size % known:
                raise invalid(
                    f"Input to reshape is a SparseTensor with {size} dense values, but the "
                    f"requested shape requires a multiple of {known}"
                )
            wanted[unknown[0]] = size // known
        if int(np.prod(wanted)) != size:
            raise invalid(
                f"Input to reshape is a tensor with {size} dense values, but the requested "
                f"shape has {int(np.prod(wanted))}"
            )
        if indices.shape[0] == 0:
            return (np.zeros((0, wanted.size), np.int64), wanted)
        flat = np.ravel_multi_index(indices.T, in_shape)
        out = np.stack(np.unravel_index(flat, wanted), axis=1).astype(np.int64)
        return (out.reshape(-1, wanted.size), wanted)

    return compute


@kernel("SparseConcat", devices=CPU_ONLY)
def sparse_concat(node: Any, xp: Any) -> Compute:
    n = int(node.attrs["N"])
    axis = int(node.attrs["concat_dim"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = [np.asarray(x, dtype=np.int64) for x in ins[:n]]
        values = [host_array(x) for x in ins[n : 2 * n]]
        shapes = [np.asarray(x, dtype=np.int64).reshape(-1) for x in ins[2 * n :]]
        rank = shapes[0].size
        dim = axis + rank if axis < 0 else axis
        if not 0 <= dim < rank:
            raise invalid(f"Concat dimension must be in range [{-rank}, {rank}), got {axis}")
        for i, shape in enumerate(shapes[1:], 1):
            others = np.delete(shape, dim) if shape.size == rank else None
            if others is None or not np.array_equal(others, np.delete(shapes[0], dim)):
                raise invalid(
                    f"All dimensions except {dim} must match. Input {i} has shape "
                    f"{shape_str(shape.tolist())} and doesn't match input 0 with shape "
                    f"{shape_str(shapes[0].tolist())}."
                )
        offsets = np.cumsum([0] + [int(s[dim]) for s in shapes[:-1]])
        moved = []
        for idx, off in zip(indices, offsets):
            shifted = idx.reshape(-1, rank).copy()
            shifted[:, dim] += off
            moved.append(shifted)
        out_ind = np.concatenate(moved, 0)
        out_val = np.concatenate([v.reshape(-1) for v in values], 0)
        order = np.lexsort(out_ind.T[::-1]) if out_ind.shape[0] else np.zeros(0, np.int64)
        out_shape = shapes[0].copy()
        out_shape[dim] = sum(int(s[dim]) for s in shapes)
        return (out_ind[order], out_val[order], out_shape)

    return compute
