"""Kernels of the datasets that group elements: BatchDatasetV2, PaddedBatchDatasetV2,
UnbatchDataset, WindowDataset.

A batch stacks its elements' leaves along a new first dimension, variant ones too (a boxed
SparseTensor's [3] become [batch, 3], as in TF); sparse leaves of graphs that carry them as
three tensors (output_sparse) are batched as TF batches SparseTensors (a new first index, the
dense shape the largest of the elements').
A batch after a source that hands out whole runs of dense elements (slices, ranges, records)
takes them as arrays, without making one tuple per element.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.dataset_sources import _Slices
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _batch_sparse(values: Sequence[Any], what: str) -> base.SparseValue:
    ranks = {len(v.dense_shape) for v in values}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot batch sparse tensors of different ranks in {what}"
        )
    shape = np.max(np.stack([v.dense_shape for v in values]), axis=0)
    indices = [
        np.concatenate([np.full((len(v.indices), 1), i, dtype=np.int64), v.indices], axis=1)
        for i, v in enumerate(values)
    ]
    rank = ranks.pop()
    return base.SparseValue(
        np.concatenate(indices) if indices else np.zeros((0, rank + 1), dtype=np.int64),
        np.concatenate([np.asarray(v.values) for v in values]),
        np.concatenate([[len(values)], shape]).astype(np.int64),
    )


def batch_elements(
    elements: Sequence[base.Element], specs: Sequence[base.LeafSpec]
) -> base.Element:
    """One element whose leaves are the elements' leaves stacked."""
    out: list[Any] = []
    columns = list(zip(*elements)) if elements else [() for _ in specs]
    for j, spec in enumerate(specs):
        column = list(columns[j])
        what = f"component {j}"
        if spec.kind == base.SPARSE:
            out.append(_batch_sparse(column, what))
        elif spec.kind == base.DATASET:
            if not all(isinstance(v, np.ndarray) for v in column):
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch elements that are datasets"
                )
            # Variant tensors (boxed SparseTensors): stacked as they are.
            out.append(base.stack_variants(column, what))
        else:
            out.append(base.stack(column, spec.dtype, what))
    return tuple(out)


class _Batch(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        batch_size: int,
        drop_remainder: bool,
        in_specs: Sequence[base.LeafSpec],
    ) -> None:
        super().__init__(specs)
        self.data, self.batch_size, self.drop = data, batch_size, drop_remainder
        self.in_specs = list(in_specs)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        it = self._map_batches(pipeline)
        if it is not None:
            return it
        return _BatchIterator(self, self.data.iterate(pipeline))

    def _map_batches(self, pipeline: base.Pipeline) -> base.ElementIterator | None:
        """A map before the batch computes whole batches at once (its batched form), also
        through datasets that only pick and order elements (map, shuffle, batch runs as
        shuffle, then the map on each batch: the same elements, for a function of the
        element alone)."""
        between: list[base.Dataset] = []
        data = self.data
        while data.with_input(data) is not None:
            between.append(data)
            data = data.data  # type: ignore[attr-defined]
        batches = getattr(data, "iterate_batches", None)
        if batches is None:
            return None
        source = data.data  # type: ignore[attr-defined]
        for d in reversed(between):
            source = d.with_input(source)
        it = batches(pipeline, self.batch_size, self.drop, self.specs, source)
        return it  # type: ignore[no-any-return]

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if n < 0:
            return n
        return n // self.batch_size if self.drop else -(-n // self.batch_size)


class _BatchIterator(base.ElementIterator):
    def __init__(self, data: _Batch, it: base.ElementIterator) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it
        self._columns = all(s.kind == base.DENSE for s in data.in_specs) and hasattr(
            it, "next_columns"
        )

    def next(self) -> base.Element | None:
        it = self._it
        if it is None:
            return None
        n = self._data.batch_size
        if self._columns:
            batch = self._from_columns(it, n)
            if batch is not NotImplemented:
                return batch
            self._columns = False
        elements = it.next_many(n)
        if len(elements) < n:
            self.close()
            if not elements or self._data.drop:
                return None
        return batch_elements(elements, self._data.in_specs)

    def _from_columns(self, it: base.ElementIterator, n: int) -> Any:
        parts: list[list[Any]] = []
        have = 0
        while have < n:
            cols = it.next_columns(n - have)  # type: ignore[attr-defined]
            if cols is None:
                if parts:
                    raise errors.InternalError(None, None, "input stopped handing out columns")
                return NotImplemented
            if not cols:
                break
            parts.append(cols)
            have += len(cols[0])
        if have < n:
            self.close()
            if not have or self._data.drop:
                return None
        if len(parts) == 1:
            out = parts[0]
        else:
            out = [np.concatenate([p[j] for p in parts]) for j in range(len(parts[0]))]
        specs = self._data.in_specs
        return tuple(
            c
            if c.dtype == s.dtype.as_numpy_dtype or s.dtype.as_numpy_dtype is object
            else c.astype(s.dtype.as_numpy_dtype)
            for c, s in zip(out, specs)
        )

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


def _batch_size(value: Any) -> int:
    n = base.scalar_int(value, "batch_size")
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"Batch size must be greater than zero, got {n}"
        )
    return n


@kernel("BatchDatasetV2", devices=CPU_ONLY)
def batch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        drop = bool(np.asarray(ins[2]))
        return (_Batch(specs, data, _batch_size(ins[1]), drop, data.specs),)

    return compute


# ---- padded_batch --------------------------------------------------------------------------
class _PaddedBatch(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        batch_size: int,
        shapes: list[np.ndarray],
        values: list[Any],
        drop: bool,
    ) -> None:
        super().__init__(specs)
        self.data, self.batch_size, self.drop = data, batch_size, drop
        self.shapes, self.values = shapes, values

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _PaddedBatchIterator(self, self.data.iterate(pipeline))

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if n < 0:
            return n
        return n // self.batch_size if self.drop else -(-n // self.batch_size)


class _PaddedBatchIterator(base.ElementIterator):
    def __init__(self, data: _PaddedBatch, it: base.ElementIterator) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it

    def next(self) -> base.Element | None:
        if self._it is None:
            return None
        d = self._data
        elements = self._it.next_many(d.batch_size)
        if len(elements) < d.batch_size:
            self.close()
            if not elements or d.drop:
                return None
        out = []
        for j, (spec, padded, pad) in enumerate(zip(d.data.specs, d.shapes, d.values)):
            column = [base.as_array(e[j], spec.dtype) for e in elements]
            out.append(_pad_stack(column, padded, pad, spec, j))
        return tuple(out)

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


def _pad_stack(
    column: list[np.ndarray], padded: np.ndarray, pad: Any, spec: base.LeafSpec, j: int
) -> np.ndarray:
    ranks = {a.ndim for a in column}
    if len(ranks) != 1 or ranks.pop() != len(padded):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Mismatch in the rank of component {j}: the padded shape has rank {len(padded)}, "
            f"elements have shapes {sorted({a.shape for a in column})}",
        )
    biggest = (
        np.max(np.array([a.shape for a in column], dtype=np.int64).reshape(len(column), -1), axis=0)
        if len(padded)
        else np.zeros(0, np.int64)
    )
    target = []
    for k, want in enumerate(padded):
        want = int(want)
        if want < 0:
            target.append(int(biggest[k]))
        else:
            if biggest[k] > want:
                raise errors.DataLossError(
                    None,
                    None,
                    "Attempted to pad to a smaller size than the input element. (component "
                    f"{j}: padded shape {[int(x) for x in padded]}, element dimension {k} is "
                    f"{int(biggest[k])})",
                )
            target.append(want)
    np_dtype = spec.dtype.as_numpy_dtype
    pad_value = np.asarray(pad, dtype=object if np_dtype is object else np_dtype)
    out = np.empty([len(column), *target], dtype=object if np_dtype is object else np_dtype)
    out[...] = pad_value
    for i, a in enumerate(column):
        index: tuple[Any, ...] = (i, *[slice(0, s) for s in a.shape])
        out[index] = a
    return out


@kernel("PaddedBatchDatasetV2", devices=CPU_ONLY)
def padded_batch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    n = int(node.attrs["N"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        size = _batch_size(ins[1])
        shapes = [np.asarray(s, dtype=np.int64).reshape(-1) for s in ins[2 : 2 + n]]
        values = list(ins[2 + n : 2 + 2 * n])
        drop = bool(np.asarray(ins[2 + 2 * n]))
        if any(s.kind != base.DENSE for s in data.specs):
            raise errors.InvalidArgumentError(
                None, None, "padded_batch only batches dense tensors (not SparseTensors)"
            )
        return (_PaddedBatch(specs, data, size, shapes, values, drop),)

    return compute


# ---- unbatch -------------------------------------------------------------------------------
class _Unbatch(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset) -> None:
        super().__init__(specs)
        self.data = data

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _UnbatchIterator(self.data.iterate(pipeline), self.data.specs)


class _UnbatchIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator, specs: Sequence[base.LeafSpec]) -> None:
        self._it = it
        self._specs = list(specs)
        self._rows: list[base.Element] = []
        self._pos = 0

    def next(self) -> base.Element | None:
        while self._pos >= len(self._rows):
            batch = self._it.next()
            if batch is None:
                return None
            slices = _Slices(
                self._specs,
                [
                    base.as_array(b) if s.kind == base.DENSE else b
                    for b, s in zip(batch, self._specs)
                ],
            )
            self._rows = _Slices_rows(slices)
            self._pos = 0
        row = self._rows[self._pos]
        self._pos += 1
        return row

    def close(self) -> None:
        self._it.close()


def _Slices_rows(slices: _Slices) -> list[base.Element]:
    return list(zip(*[list(c) for c in slices.columns])) if slices.columns else []


@kernel("UnbatchDataset", devices=CPU_ONLY)
def unbatch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Unbatch(specs, _input(ins[0], node.name)),)

    return compute


# ---- window --------------------------------------------------------------------------------
class Elements(base.Dataset):
    """A dataset of elements held in memory (a window's contents)."""

    def __init__(self, specs: Sequence[base.LeafSpec], elements: Sequence[base.Element]) -> None:
        super().__init__(specs)
        self.elements = list(elements)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ListIterator(self.elements)

    def cardinality(self) -> int:
        return len(self.elements)


class _ListIterator(base.ElementIterator):
    def __init__(self, elements: list[base.Element]) -> None:
        self._elements = elements
        self._i = 0

    def next(self) -> base.Element | None:
        if self._i >= len(self._elements):
            return None
        self._i += 1
        return self._elements[self._i - 1]

    def next_many(self, n: int) -> list[base.Element]:
        out = self._elements[self._i : self._i + n]
        self._i += len(out)
        return out


class _Window(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        size: int,
        shift: int,
        stride: int,
        drop: bool,
    ) -> None:
        super().__init__(specs)
        self.data, self.size, self.shift, self.stride, self.drop = data, size, shift, stride, drop

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _WindowIterator(self, self.data.iterate(pipeline))


class _WindowIterator(base.ElementIterator):
    def __init__(self, data: _Window, it: base.ElementIterator) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it
        self._buffer: collections.deque[base.Element] = collections.deque()
        self._done = False

    def _fill(self, n: int) -> None:
        while len(self._buffer) < n and self._it is not None:
            got = self._it.next_many(n - len(self._buffer))
            self._buffer.extend(got)
            if not got:
                self._it.close()
                self._it = None

    def next(self) -> base.Element | None:
        d = self._data
        if self._done:
            return None
        span = (d.size - 1) * d.stride + 1
        self._fill(span)
        if not self._buffer:
            self._done = True
            return None
        if len(self._buffer) < span and d.drop:
            self._done = True
            return None
        picked = [self._buffer[k] for k in range(0, min(span, len(self._buffer)), d.stride)]
        for _ in range(min(d.shift, len(self._buffer))):
            self._buffer.popleft()
        if d.shift > span:
            # Elements between windows are read and dropped.
            skip = d.shift - span
            while skip and self._it is not None:
                got = self._it.next_many(skip)
                skip -= len(got)
                if not got:
                    break
        specs = d.data.specs
        return tuple(Elements([spec], [(e[j],) for e in picked]) for j, spec in enumerate(specs))

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("WindowDataset", devices=CPU_ONLY)
def window_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size, shift, stride = (
            base.scalar_int(v, w) for v, w in zip(ins[1:4], ("size", "shift", "stride"))
        )
        for value, what in ((size, "size"), (shift, "shift"), (stride, "stride")):
            if value <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Window {what} must be greater than zero, but got {value}."
                )
        drop = bool(np.asarray(ins[4]))
        return (_Window(specs, _input(ins[0], node.name), size, shift, stride, drop),)

    return compute
