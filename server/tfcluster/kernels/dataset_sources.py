"""Kernels of the datasets that make elements from tensors or Python: TensorDataset
(from_tensors), TensorSliceDataset (from_tensor_slices), SparseTensorSliceDataset, RangeDataset
and _PyGeneratorDataset (from_generator).

Slicing and ranges hand out whole runs of elements at once (`next_columns`) to a batch that
follows them, so `from_tensor_slices(arrays).batch(n)` copies slices, not elements.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors, py_callbacks
from tfcluster.kernels import _philox
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.py_func import as_callback_arg
from tfcluster.kernels.registry import CPU_ONLY, kernel


# ---- from_tensors ----------------------------------------------------------------------------
class _OneElement(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], element: base.Element) -> None:
        super().__init__(specs)
        self.element = element

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _OnceIterator(self.element)

    def cardinality(self) -> int:
        return 1


class _OnceIterator(base.ElementIterator):
    def __init__(self, element: base.Element) -> None:
        self._element: base.Element | None = element

    def next(self) -> base.Element | None:
        element, self._element = self._element, None
        return element


@kernel("TensorDataset", devices=CPU_ONLY)
def tensor_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        element = base.element_from_tensors(ins, specs)
        return (_OneElement(specs, element),)

    return compute


# ---- from_tensor_slices --------------------------------------------------------------------
def _sparse_slices(value: base.SparseValue) -> list[base.SparseValue]:
    """The slices of a sparse leaf along its first dimension."""
    shape = value.dense_shape
    n = int(shape[0])
    rows = value.indices[:, 0] if len(value.indices) else np.zeros(0, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    rows = rows[order]
    indices = value.indices[order][:, 1:]
    values = np.asarray(value.values)[order]
    bounds = np.searchsorted(rows, np.arange(n + 1))
    return [
        base.SparseValue(indices[a:b], values[a:b], shape[1:])
        for a, b in itertools.pairwise(bounds)
    ]


class _Slices(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], leaves: Sequence[Any]) -> None:
        super().__init__(specs)
        sizes = set()
        self.columns: list[Any] = []
        for leaf, spec in zip(leaves, specs):
            if spec.kind == base.SPARSE:
                column: Any = _sparse_slices(leaf)
            else:
                column = np.asarray(leaf)
                if column.ndim == 0:
                    raise errors.InvalidArgumentError(
                        None, None, "from_tensor_slices: every component must have rank >= 1"
                    )
            sizes.add(len(column))
            self.columns.append(column)
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"All components must have the same size in the 0th dimension, got {sorted(sizes)}",
            )
        self.size = sizes.pop() if sizes else 0
        self.all_dense = all(s.kind == base.DENSE for s in specs)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _SliceIterator(self)

    def cardinality(self) -> int:
        return self.size


class _SliceIterator(base.ElementIterator):
    def __init__(self, data: _Slices) -> None:
        self._columns = data.columns
        self._size = data.size
        self._dense = data.all_dense
        self._i = 0

    def next(self) -> base.Element | None:
        i = self._i
        if i >= self._size:
            return None
        self._i = i + 1
        return tuple(c[i] for c in self._columns)

    def next_many(self, n: int) -> list[base.Element]:
        i = self._i
        j = min(self._size, i + n)
        self._i = j
        return list(zip(*[list(c[i:j]) for c in self._columns]))

    def next_columns(self, n: int) -> list[Any] | None:
        """Up to n elements as one array per component ([] at the end); None when a
        component is not dense."""
        if not self._dense:
            return None
        i = self._i
        j = min(self._size, i + n)
        self._i = j
        if j == i:
            return []
        return [c[i:j] for c in self._columns]


@kernel("TensorSliceDataset", devices=CPU_ONLY)
def tensor_slice_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    # The element's leaves are the slices: one dimension less than the components.

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        leaves = base.element_from_tensors(ins, specs)
        return (_Slices(specs, leaves),)

    return compute


@kernel("SparseTensorSliceDataset", devices=CPU_ONLY)
def sparse_tensor_slice_dataset(node: Any, xp: Any) -> Any:
    """from_sparse_tensor_slices: elements are (indices, values, dense_shape) of each row."""
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        value = base.SparseValue(ins[0], ins[1], ins[2])
        if value.dense_shape.size == 0:
            raise errors.InvalidArgumentError(
                None, None, "from_sparse_tensor_slices needs a sparse tensor of rank >= 1"
            )
        rows = _sparse_slices(value)
        columns = [
            [r.indices for r in rows],
            [np.asarray(r.values) for r in rows],
            [r.dense_shape for r in rows],
        ]
        data = _Slices.__new__(_Slices)
        base.Dataset.__init__(data, specs)
        data.columns = columns
        data.size = len(rows)
        data.all_dense = False
        return (data,)

    return compute


# ---- range -----------------------------------------------------------------------------------
class _Range(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], start: int, stop: int, step: int) -> None:
        super().__init__(specs)
        self.start, self.stop, self.step = start, stop, step

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _RangeIterator(self.start, self.stop, self.step)

    def cardinality(self) -> int:
        return len(range(self.start, self.stop, self.step))


class _RangeIterator(base.ElementIterator):
    def __init__(self, start: int, stop: int, step: int) -> None:
        self._next, self._stop, self._step = start, stop, step

    def _left(self, n: int) -> int:
        return max(0, min(n, len(range(self._next, self._stop, self._step))))

    def next(self) -> base.Element | None:
        if self._left(1) == 0:
            return None
        value = np.int64(self._next)
        self._next += self._step
        return (value,)

    def next_many(self, n: int) -> list[base.Element]:
        cols = self.next_columns(n)
        return [(v,) for v in cols[0]] if cols else []

    def next_columns(self, n: int) -> list[Any]:
        k = self._left(n)
        if k == 0:
            return []
        values = self._next + self._step * np.arange(k, dtype=np.int64)
        self._next += self._step * k
        return [values]


@kernel("RangeDataset", devices=CPU_ONLY)
def range_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        start, stop, step = (
            base.scalar_int(v, what) for v, what in zip(ins, ["start", "stop", "step"])
        )
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        return (_Range(specs, start, stop, step),)

    return compute


# ---- from_generator ------------------------------------------------------------------------
class _Generator(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], token: str, args: Sequence[Any]) -> None:
        super().__init__(specs)
        self.token = token
        self.args = list(args)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _GeneratorIterator(self)


class _GeneratorIterator(base.ElementIterator):
    def __init__(self, data: _Generator) -> None:
        self._data = data
        self._it: Iterator[Any] | None = None
        self._done = False

    def next(self) -> base.Element | None:
        if self._done:
            return None
        if self._it is None:
            make = py_callbacks.lookup(self._data.token)
            if make is None:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    "The generator of Dataset.from_generator lives in the process that built "
                    "the graph; this task runs in another one. Place the dataset on a device "
                    "of the client's process, or read the data with a file dataset.",
                )
            self._it = _call(make, self._data.args)
        try:
            flat = next(self._it)
        except StopIteration:
            self._done = True
            return None
        except errors.OpError:
            raise
        except Exception as e:
            raise _as_op_error(e) from e
        return tuple(flat)


def _call(make: Any, args: Sequence[Any]) -> Iterator[Any]:
    try:
        return iter(make(*args))
    except errors.OpError:
        raise
    except Exception as e:
        raise _as_op_error(e) from e


def _as_op_error(e: Exception) -> errors.OpError:
    """A generator's exception as TensorFlow's py_func reports it."""
    text = f"{type(e).__name__}: {e}"
    if isinstance(e, (TypeError, ValueError)):
        return errors.InvalidArgumentError(None, None, text)
    if isinstance(e, NotImplementedError):
        return errors.UnimplementedError(None, None, text)
    return errors.UnknownError(None, None, text)


@kernel("_PyGeneratorDataset", devices=CPU_ONLY)
def py_generator_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    token = str(node.attrs["token"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Generator(specs, token, [as_callback_arg(v) for v in ins]),)

    return compute


# ---- random ----------------------------------------------------------------------------------
class _Random(base.Dataset):
    """TF 1.15's RandomDataset: the uint32 words of PhiloxRandom(seed, seed2), one per
    element, from the start of the stream for each iterator."""

    def __init__(self, specs: Sequence[base.LeafSpec], seed: int, seed2: int) -> None:
        super().__init__(specs)
        if seed == 0 and seed2 == 0:
            # TF's convention: both zero seeds the stream non-deterministically.
            seed, seed2 = (int(x) for x in np.random.SeedSequence().generate_state(2, np.uint64))
        self.seed, self.seed2 = seed, seed2

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _RandomIterator(self.seed, self.seed2)

    def cardinality(self) -> int:
        return base.INFINITE


class _RandomIterator(base.ElementIterator):
    _CALLS = 256  # generator calls (4 words each) made at a time

    def __init__(self, seed: int, seed2: int) -> None:
        self._seed, self._seed2 = seed, seed2
        self._calls = 0
        self._values = np.empty(0, dtype=np.int64)
        self._i = 0

    def next(self) -> base.Element | None:
        if self._i >= len(self._values):
            start = _philox.stateful_start(self._seed, self._seed2, self._calls)
            self._values = _philox.words(start, self._CALLS).reshape(-1).astype(np.int64)
            self._calls += self._CALLS
            self._i = 0
        self._i += 1
        return (self._values[self._i - 1],)


@kernel("RandomDataset", devices=CPU_ONLY)
def random_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Random(specs, base.scalar_int(ins[0], "seed"), base.scalar_int(ins[1], "seed2")),)

    return compute
