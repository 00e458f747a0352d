"""Dataset kernels that group elements by a key: GroupByWindowDataset (windows of one key,
each turned into a dataset by reduce_func), GroupByReducerDataset (one reduction per key) and
DenseToSparseBatchDataset (batches as SparseTensors), as TF's kernels order their output:
groups still open at the end of the input come out in ascending key order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import sparse_serialization
from tfcluster.kernels.dataset_batching import Elements
from tfcluster.kernels.dataset_functions import _bind_inputs, _function
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _key_of(results: Sequence[Any]) -> int:
    key = np.asarray(results[0])
    if key.shape != () or key.dtype != np.int64:
        raise errors.InvalidArgumentError(None, None, "Key function must return a scalar int64.")
    return int(key)


def _split(ins: list[Any], node: Any, attrs: Sequence[str]) -> list[list[Any]]:
    """The captured arguments of each function, in the op's input order after the dataset."""
    out, pos = [], 1
    for attr in attrs:
        n = len(node.attrs.get(attr) or [])
        out.append(list(ins[pos : pos + n]))
        pos += n
    return out


# ---- group_by_window -------------------------------------------------------------------------
class _GroupByWindow(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        funcs: tuple[base.DatasetFunction, base.DatasetFunction, base.DatasetFunction],
        captured: list[list[Any]],
    ) -> None:
        super().__init__(specs)
        self.data = data
        self.key_fn, self.reduce_fn, self.size_fn = funcs
        self.captured = captured

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _GroupByWindowIterator(self, self.data.iterate(pipeline), pipeline)


class _GroupByWindowIterator(base.ElementIterator):
    def __init__(
        self, data: _GroupByWindow, it: base.ElementIterator, pipeline: base.Pipeline
    ) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it
        self._pipeline = pipeline
        self._groups: dict[int, list[base.Element]] = {}
        self._sizes: dict[int, int] = {}
        self._current: base.ElementIterator | None = None

    def _window_size(self, key: int) -> int:
        d = self._data
        results = d.size_fn.call_tensors(self._pipeline, [np.int64(key), *d.captured[2]])
        size = np.asarray(results[0])
        if size.shape != () or size.dtype != np.int64:
            raise errors.InvalidArgumentError(
                None, None, "Window size function must return a scalar int64."
            )
        if int(size) <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Window size must be greater than zero, but got {int(size)}."
            )
        return int(size)

    def _flush(self, key: int) -> None:
        """reduce_func over the key's window; the group is kept when that fails (TF's next
        read tries it again)."""
        d = self._data
        window = Elements(d.data.specs, self._groups[key])
        results = d.reduce_fn.call_tensors(self._pipeline, [np.int64(key), window, *d.captured[1]])
        dataset = results[0]
        if not isinstance(dataset, base.Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"reduce_func must return a dataset, got {type(dataset).__name__}"
            )
        self._current = dataset.iterate(self._pipeline)
        del self._groups[key]

    def next(self) -> base.Element | None:
        d = self._data
        while True:
            if self._current is not None:
                item = self._current.next()
                if item is not None:
                    return item
                self._current.close()
                self._current = None
            if self._it is None:
                if not self._groups:
                    return None
                self._flush(min(self._groups))
                continue
            while self._it is not None:
                element = self._it.next()
                if element is None:
                    self._it.close()
                    self._it = None
                    break
                key = _key_of(
                    d.key_fn.call_tensors(
                        self._pipeline,
                        [*base.element_tensors(element, d.data.specs), *d.captured[0]],
                    )
                )
                if key not in self._groups:
                    self._sizes[key] = self._window_size(key)
                    self._groups[key] = []
                group = self._groups[key]
                group.append(element)
                if len(group) == self._sizes[key]:
                    self._flush(key)
                    break

    def close(self) -> None:
        for it in (self._current, self._it):
            if it is not None:
                it.close()
        self._current = self._it = None


@kernel("GroupByWindowDataset", devices=CPU_ONLY)
def group_by_window_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    key_fn = _function(node, "key_func", out_prefix="")
    reduce_fn = _function(node, "reduce_func", out_prefix="")
    size_fn = _function(node, "window_size_func", out_prefix="")
    names = (
        "Tkey_func_other_arguments",
        "Treduce_func_other_arguments",
        "Twindow_size_func_other_arguments",
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        funcs = (_bind_inputs(key_fn, data), reduce_fn, size_fn)
        return (_GroupByWindow(specs, data, funcs, _split(ins, node, names)),)

    return compute


# ---- group_by_reducer ------------------------------------------------------------------------
class _GroupByReducer(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        funcs: Sequence[base.DatasetFunction],
        captured: list[list[Any]],
    ) -> None:
        super().__init__(specs)
        self.data = data
        self.key_fn, self.init_fn, self.reduce_fn, self.finalize_fn = funcs
        self.captured = captured

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _GroupByReducerIterator(self, self.data.iterate(pipeline), pipeline)


class _GroupByReducerIterator(base.ElementIterator):
    def __init__(
        self, data: _GroupByReducer, it: base.ElementIterator, pipeline: base.Pipeline
    ) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it
        self._pipeline = pipeline
        self._states: dict[int, list[Any]] = {}
        self._keys: list[int] | None = None

    def _consume(self) -> None:
        d = self._data
        assert self._it is not None
        while True:
            element = self._it.next()
            if element is None:
                break
            tensors = base.element_tensors(element, d.data.specs)
            key = _key_of(d.key_fn.call_tensors(self._pipeline, [*tensors, *d.captured[0]]))
            if key not in self._states:
                self._states[key] = d.init_fn.call_tensors(
                    self._pipeline, [np.int64(key), *d.captured[1]]
                )
            state = self._states[key]
            self._states[key] = d.reduce_fn.call_tensors(
                self._pipeline, [*state, *tensors, *d.captured[2]]
            )
        self._it.close()
        self._it = None
        self._keys = sorted(self._states)

    def next(self) -> base.Element | None:
        if self._keys is None:
            self._consume()
        assert self._keys is not None
        if not self._keys:
            return None
        d = self._data
        state = self._states.pop(self._keys.pop(0))
        results = d.finalize_fn.call_tensors(self._pipeline, [*state, *d.captured[3]])
        return base.element_from_tensors(results, d.specs)

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("GroupByReducerDataset", devices=CPU_ONLY)
def group_by_reducer_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    funcs = [
        _function(node, attr, out_prefix="")
        for attr in ("key_func", "init_func", "reduce_func", "finalize_func")
    ]
    names = (
        "Tkey_func_other_arguments",
        "Tinit_func_other_arguments",
        "Treduce_func_other_arguments",
        "Tfinalize_func_other_arguments",
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        bound = [_bind_inputs(funcs[0], data), *funcs[1:]]
        return (_GroupByReducer(specs, data, bound, _split(ins, node, names)),)

    return compute


# ---- dense_to_sparse_batch ---------------------------------------------------------------------
class _DenseToSparseBatch(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], data: base.Dataset, size: int, row_shape: list[int]
    ) -> None:
        super().__init__(specs)
        self.data, self.size, self.row_shape = data, size, row_shape

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _DenseToSparseBatchIterator(self, self.data.iterate(pipeline))


class _DenseToSparseBatchIterator(base.ElementIterator):
    def __init__(self, data: _DenseToSparseBatch, it: base.ElementIterator) -> None:
        self._data = data
        self._it = it

    def next(self) -> base.Element | None:
        d = self._data
        batch = self._it.next_many(d.size)
        if not batch:
            return None
        rank = len(d.row_shape)
        dtype = d.data.specs[0].dtype
        shape = list(d.row_shape)
        indices, values = [], []
        for b, (leaf,) in enumerate(batch):
            arr = base.as_array(leaf, dtype)
            # TF reports an element that does not fit the row shape as DataLoss.
            if arr.ndim != rank:
                raise errors.DataLossError(
                    None,
                    None,
                    f"Input element had shape ({', '.join(str(s) for s in arr.shape)}) that is "
                    f"incompatible with the row shape ({', '.join(str(s) for s in d.row_shape)}).",
                )
            for j, dim in enumerate(arr.shape):
                if d.row_shape[j] == -1:
                    shape[j] = max(shape[j], dim)
                elif dim > d.row_shape[j]:
                    raise errors.DataLossError(
                        None,
                        None,
                        f"Input element had shape ({', '.join(str(s) for s in arr.shape)}) "
                        "that is incompatible with the row shape "
                        f"({', '.join(str(s) for s in d.row_shape)}).",
                    )
            # Every entry of the element, row-major, is one value of the batch.
            at = np.indices(arr.shape).reshape(rank, -1).T if rank else np.zeros((1, 0), int)
            indices.append(np.concatenate([np.full((at.shape[0], 1), b), at], axis=1))
            values.append(arr.reshape(-1))
        shape = [max(s, 0) for s in shape]
        all_indices = np.concatenate(indices).astype(np.int64).reshape(-1, rank + 1)
        all_values = np.concatenate(values) if values else np.zeros(0, dtype.as_numpy_dtype)
        dense_shape = np.asarray([len(batch), *shape], dtype=np.int64)
        if d.specs[0].kind == base.SPARSE:
            return (base.SparseValue(all_indices, all_values, dense_shape),)
        return (sparse_serialization.boxed(all_indices, all_values, dense_shape),)

    def close(self) -> None:
        self._it.close()


@kernel("DenseToSparseBatchDataset", devices=CPU_ONLY)
def dense_to_sparse_batch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        size = base.scalar_int(ins[1], "batch_size")
        if size <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Batch size must be greater than zero, got {size}"
            )
        row_shape = [int(v) for v in np.asarray(ins[2]).reshape(-1)]
        return (_DenseToSparseBatch(specs, data, size, row_shape),)

    return compute
