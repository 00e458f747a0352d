"""The SparseTensorsMap resource (SparseTensors by int64 handle, on a task) and the kernels
that add to it and take from it (how batching carries SparseTensors through queues)."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute
from tfcluster.kernels.registry import CPU_ONLY, kernel

Sparse = tuple[np.ndarray, np.ndarray, np.ndarray]


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


class SparseTensorsMap:
    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._tensors: dict[int, Sparse] = {}
        self._ids = itertools.count(1)

    def add(self, tensors: list[Sparse]) -> np.ndarray:
        with self._lock:
            handles = [next(self._ids) for _ in tensors]
            self._tensors.update(zip(handles, tensors))
        return np.asarray(handles, dtype=np.int64)

    def take(self, handles: np.ndarray) -> list[Sparse]:
        out = []
        with self._lock:
            for h in handles.tolist():
                got = self._tensors.pop(int(h), None)
                if got is None:
                    raise _invalid(f"Unable to find SparseTensor: {h} in map: {self.name}")
                out.append(got)
        return out

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        with self._lock:
            self._tensors.clear()


def _the_map(ctx: Any, node: Any, name: str) -> SparseTensorsMap:
    container = node.attrs.get("container") or ""
    m = ctx.resources.lookup_or_create(container, name, lambda: SparseTensorsMap(name))
    if not isinstance(m, SparseTensorsMap):
        raise _invalid(f"Resource '{name}' is not a SparseTensorsMap")
    return m


def _sparse_inputs(ins: list[Any]) -> Sparse:
    indices = np.asarray(ins[0], dtype=np.int64)
    values = np.asarray(ins[1])
    shape = np.asarray(ins[2], dtype=np.int64)
    if indices.ndim != 2:
        raise _invalid(f"Input indices should be a matrix but received shape {list(indices.shape)}")
    if values.ndim != 1:
        raise _invalid(f"Input values should be a vector but received shape {list(values.shape)}")
    if shape.ndim != 1:
        raise _invalid(f"Input shape should be a vector but received shape {list(shape.shape)}")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise _invalid(
            f"Inconsistent SparseTensor: indices {list(indices.shape)}, values "
            f"{list(values.shape)}, dense_shape {list(shape.shape)}"
        )
    return indices, values, shape


def _map_name(node: Any) -> str:
    shared = node.attrs.get("shared_name") or ""
    return (shared.decode() if isinstance(shared, bytes) else shared) or node.name


@kernel("AddSparseToTensorsMap", devices=CPU_ONLY)
def add_sparse(node: Any, xp: Any) -> Compute:
    name = _map_name(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        sparse = _sparse_inputs(ins)
        return (_the_map(ctx, node, name).add([sparse])[0],)

    return compute


@kernel("AddManySparseToTensorsMap", devices=CPU_ONLY)
def add_many_sparse(node: Any, xp: Any) -> Compute:
    name = _map_name(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, values, shape = _sparse_inputs(ins)
        if shape.shape[0] < 2:
            raise _invalid(
                f"Rank of input SparseTensor should be > 1, but saw rank: {shape.shape[0]}"
            )
        rows = int(shape[0])
        which = indices[:, 0]
        if which.size and (which.min() < 0 or which.max() >= rows):
            raise _invalid(f"Row index out of range [0, {rows}) in the minibatch SparseTensor")
        order = np.argsort(which, kind="stable")
        bounds = np.searchsorted(which[order], np.arange(rows + 1))
        parts = []
        for r in range(rows):
            pick = order[bounds[r] : bounds[r + 1]]
            parts.append((indices[pick, 1:], values[pick], shape[1:].copy()))
        return (_the_map(ctx, node, name).add(parts),)

    return compute


@kernel("TakeManySparseFromTensorsMap", devices=CPU_ONLY)
def take_many_sparse(node: Any, xp: Any) -> Compute:
    name = _map_name(node)
    np_dtype = node.attrs["dtype"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handles = np.asarray(ins[0])
        if handles.ndim != 1:
            raise _invalid(
                f"sparse_handles should be a vector but received shape {list(handles.shape)}"
            )
        taken = _the_map(ctx, node, name).take(handles)
        if not taken:
            raise _invalid("Must have at least 1 serialized SparseTensor, but has 0")
        rank = taken[0][2].shape[0]
        for i, (_, _, shape) in enumerate(taken):
            if shape.shape[0] != rank:
                raise _invalid(
                    f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[{i}] "
                    f"was: {rank + 1} but rank of SparseTensor[{i}] is: {shape.shape[0] + 1}"
                )
        out_indices = np.concatenate(
            [
                np.concatenate([np.full((idx.shape[0], 1), i, np.int64), idx], axis=1)
                for i, (idx, _, _) in enumerate(taken)
            ]
        )
        out_values = np.concatenate([v for _, v, _ in taken]).astype(np_dtype, copy=False)
        dims = np.max(np.stack([s for _, _, s in taken]), axis=0) if rank else np.zeros(0, np.int64)
        out_shape = np.concatenate([[len(taken)], dims]).astype(np.int64)
        return out_indices, out_values, out_shape

    return compute
