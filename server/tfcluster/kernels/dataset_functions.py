"""Kernels of the datasets that call functions: MapDataset, ParallelMapDataset,
MapAndBatchDataset, FilterDataset, FlatMapDataset, InterleaveDataset,
ParallelInterleaveDatasetV2, ParallelInterleaveDataset (experimental), ScanDataset,
TakeWhileDataset, DirectedInterleaveDataset; and the ops that read a whole dataset in one
step: ReduceDataset, DatasetToSingleElement.

Functions are function graphs (framework/func_graph.py) run by an executor of their own,
once per element. A parallel map runs them in `num_parallel_calls` threads of the pipeline,
each taking a run of input elements at a time (longer runs when the function is quick), and
hands the results out in the input's order; numpy releases the GIL in its large operations,
so the threads overlap where the work is in arrays. Interleaving in parallel reads each open
input dataset ahead in a thread of its own, in the same order as the sequential interleave.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_batching import _Batch
from tfcluster.kernels.dataset_buffering import _END, OrderedWork, PrefetchIterator, _Failure
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import thread_budget

AUTOTUNE = -1
# A parallel map's thread takes runs of input elements lasting about this long to map.
_RUN_SECONDS = 0.002
_MAX_RUN = 64
# A batched map in a pipeline thread starts its threads after this many batches in a row were
# asked for before one took to compute (the steps wait for the pipeline).
_STARVED = 8
# A batched map without state computes pieces of about this many bytes of results (at most
# _PIECE_BATCHES batches, _PIECE_ROWS elements) in one call of its batched form. The costs
# paid once per piece (reads, shuffle hand-outs, the function's call) are most of a batch's
# when the pipeline thread wakes between steps with cold caches: 16 batches of 128 MNIST
# rows a piece cut its CPU per batch from 0.44 ms (4) to 0.33 ms.
_PIECE_BYTES = 8 << 20
_PIECE_BATCHES = 16
_PIECE_ROWS = 2048


def _parallelism(value: int, what: str) -> int:
    if value == AUTOTUNE:
        # As TF's autotuner at most: the threads one kernel may use (the thread budget owns
        # CPU counts: the process's CPUs, its quota, its share of the host's tasks).
        return max(1, thread_budget.current().intra)
    if value <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be greater than zero or AUTOTUNE (-1), got {value}"
        )
    return value


def _function(
    node: Any, attr: str, in_specs: Any = None, out_prefix: str = "output"
) -> base.DatasetFunction:
    return base.DatasetFunction(
        node.attrs[attr],
        f"{node.name} {attr}",
        node.device,
        out_specs=base.leaf_specs(node.attrs, out_prefix) if out_prefix else None,
    )


def _bind_inputs(fn: base.DatasetFunction, data: base.Dataset) -> base.DatasetFunction:
    """The function, reading elements of `data` (sparse leaves as three tensors)."""
    fn.in_specs = list(data.specs)
    return fn


# ---- map -----------------------------------------------------------------------------------
class _Map(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        fn: base.DatasetFunction,
        captured: Sequence[Any],
        parallel: int = 0,
        vectorized: base.DatasetFunction | None = None,
    ) -> None:
        super().__init__(specs)
        self.data, self.fn, self.captured, self.parallel = data, fn, list(captured), parallel
        self.vectorized = vectorized
        # Batches per piece of the batched form, by batch size, as the last iterator sized
        # them: the next one (the next epoch under a repeat) starts with whole pieces.
        self.piece_batches: dict[int, int] = {}

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        it = self.data.iterate(pipeline)
        if self.parallel:
            return _ParallelMapIterator(self, it, pipeline)
        return _MapIterator(self, it, pipeline)

    def iterate_batches(
        self,
        pipeline: base.Pipeline,
        batch_size: int,
        drop_remainder: bool,
        batch_specs: Sequence[base.LeafSpec],
        source: base.Dataset | None = None,
    ) -> base.ElementIterator | None:
        """Batches of this map's elements, each computed by one call of the function's
        batched form on elements of `source` (default: its input); None when it has no
        batched form."""
        if self.vectorized is None or any(s.kind != base.DENSE for s in self.data.specs):
            return None
        source = self.data if source is None else source
        return _VectorizedBatches(self, pipeline, batch_size, drop_remainder, batch_specs, source)

    def cardinality(self) -> int:
        return self.data.cardinality()


class _MapIterator(base.ElementIterator):
    def __init__(self, data: _Map, it: base.ElementIterator, pipeline: base.Pipeline) -> None:
        self._fn, self._captured = data.fn, data.captured
        self._it = it
        self._pipeline = pipeline

    def next(self) -> base.Element | None:
        item = self._it.next()
        if item is None:
            return None
        return self._fn(self._pipeline, item, self._captured)

    def close(self) -> None:
        self._it.close()


class _ParallelMapIterator(base.ElementIterator):
    def __init__(self, data: _Map, it: base.ElementIterator, pipeline: base.Pipeline) -> None:
        self._fn, self._captured = data.fn, data.captured
        self._it = it
        self._pipeline = pipeline
        self._run = 1
        self._seconds_per_element = 0.0
        self._work = OrderedWork(
            pipeline, self._pull, self._compute, data.parallel, 2 * data.parallel, "map"
        )

    def _pull(self) -> list[Any] | None:
        out: list[Any] = []
        for _ in range(self._run):
            try:
                item = self._it.next()
            except errors.CancelledError:
                raise
            except errors.OpError as e:
                out.append(_Failure(e))
                continue
            if item is None:
                break
            out.append(item)
        return out or None

    def _compute(self, piece: list[Any]) -> list[Any]:
        start = time.perf_counter()
        out: list[Any] = []
        fn, pipeline, captured = self._fn, self._pipeline, self._captured
        for item in piece:
            if isinstance(item, _Failure):
                out.append(item)
                continue
            try:
                out.append(fn(pipeline, item, captured))
            except errors.CancelledError:
                if pipeline.closed:
                    raise
                out.append(_Failure(errors.CancelledError(None, None, "Cancelled")))
            except BaseException as e:
                out.append(_Failure(e))
        per = (time.perf_counter() - start) / max(1, len(piece))
        # Quick functions are mapped in longer runs, so the hand-over costs little per element.
        self._seconds_per_element = 0.8 * self._seconds_per_element + 0.2 * per
        self._run = int(max(1, min(_MAX_RUN, _RUN_SECONDS / max(self._seconds_per_element, 1e-7))))
        return out

    def next(self) -> base.Element | None:
        item = self._work.next()
        if item is _END:
            return None
        if isinstance(item, _Failure):
            raise item.error
        return item  # type: ignore[no-any-return]

    def close(self) -> None:
        self._work.close()
        self._it.close()


def _vectorized(node: Any) -> base.DatasetFunction | None:
    if "vectorized_f" not in node.attrs:
        return None
    return base.DatasetFunction(
        node.attrs["vectorized_f"], f"{node.name} vectorized_f", node.device
    )


def _map_kernel(node: Any, parallel: bool) -> Any:
    specs = base.leaf_specs(node.attrs)
    fn = _function(node, "f")
    vectorized = _vectorized(node)
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        captured = ins[1 : 1 + nargs]
        workers = 0
        if parallel:
            workers = _parallelism(
                base.scalar_int(ins[1 + nargs], "num_parallel_calls"), "num_parallel_calls"
            )
        return (_Map(specs, data, _bind_inputs(fn, data), captured, workers, vectorized),)

    return compute


@kernel("MapDataset", devices=CPU_ONLY)
def map_dataset(node: Any, xp: Any) -> Any:
    return _map_kernel(node, parallel=False)


@kernel("ParallelMapDataset", devices=CPU_ONLY)
def parallel_map_dataset(node: Any, xp: Any) -> Any:
    return _map_kernel(node, parallel=True)


@kernel("MapAndBatchDataset", devices=CPU_ONLY)
def map_and_batch_dataset(node: Any, xp: Any) -> Any:
    """map_and_batch: a parallel map, then a batch (one dataset for TF's fused op)."""
    specs = base.leaf_specs(node.attrs)
    fn = _function(node, "f", out_prefix="")
    vectorized = _vectorized(node)
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        captured = ins[1 : 1 + nargs]
        batch_size = base.scalar_int(ins[1 + nargs], "batch_size")
        if batch_size <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Batch size must be greater than zero, got {batch_size}"
            )
        workers = _parallelism(
            base.scalar_int(ins[2 + nargs], "num_parallel_calls"), "num_parallel_calls"
        )
        drop = bool(np.asarray(ins[3 + nargs]))
        fn.out_specs = [base.LeafSpec(s.kind, s.dtype, _unbatched(s.shape)) for s in specs]
        mapped = _Map(fn.out_specs, data, _bind_inputs(fn, data), captured, workers, vectorized)
        return (_Batch(specs, mapped, batch_size, drop, fn.out_specs),)

    return compute


def _unbatched(shape: Any) -> Any:
    from tfcluster.framework.tensor_shape import TensorShape

    return TensorShape(None) if shape.ndims is None else TensorShape(shape.as_list()[1:])


class _VectorizedBatches(base.ElementIterator):
    """map(f).batch(n) as f's batched form on n stacked input elements at a time (in
    num_parallel_calls threads for a parallel map, batches in order). A batch whose batched
    call fails is mapped element by element, so its error is the one TF gives.

    A function without state (no random or other stateful op: its results do not depend on
    how the elements are grouped into calls) is called on a few batches' elements at once,
    read from the input at once, and its results are cut into the batches: the costs of a
    call and of a read that do not grow with the elements are paid once per piece."""

    def __init__(
        self,
        data: _Map,
        pipeline: base.Pipeline,
        batch_size: int,
        drop: bool,
        batch_specs: Sequence[base.LeafSpec],
        source: base.Dataset,
    ) -> None:
        self._map = data
        self._pipeline = pipeline
        self._n = batch_size
        self._drop = drop
        self._specs = list(batch_specs)
        self._in_specs = list(data.data.specs)
        self._it: base.ElementIterator | None = source.iterate(pipeline)
        self._columns = hasattr(self._it, "next_columns")
        self._work: OrderedWork | None = None
        # The batched function is the ops' work alone (no py_func, nothing that waits), so
        # threads beyond the CPUs the thread budget gives one kernel only add hand-overs.
        self._workers = min(data.parallel, max(1, thread_budget.current().intra))
        self._starved = 0  # batches in a row asked for sooner than one takes to compute
        self._returned: float | None = None  # when the last inline batch was handed out
        self._ready: collections.deque[Any] = collections.deque()  # computed, not taken
        # Batches per piece: one until a batch's size is known (then _pieces()), unless an
        # earlier iterator of this map knew it.
        self._per_piece = data.piece_batches.get(batch_size, 1)
        assert data.vectorized is not None
        self._joinable = not data.vectorized.stateful and all(
            s.kind == base.DENSE for s in self._specs
        )

    def _pieces(self, batch: base.Element) -> None:
        """Sizes the pieces from a batch's results: about _PIECE_BYTES of them."""
        if not self._joinable:
            return
        size = sum(int(getattr(b, "nbytes", 0)) for b in batch)
        k = _PIECE_BYTES // max(1, size)
        self._per_piece = int(max(1, min(_PIECE_BATCHES, k, _PIECE_ROWS // self._n)))
        self._map.piece_batches[self._n] = self._per_piece

    def _pull(self) -> tuple[list[Any], list[base.Element] | None, list[int], Any] | None:
        """The next piece: the input elements of up to _per_piece batches as stacked leaves
        (and the elements, when read one by one), the batches' sizes, and an input error
        met after them (raised in its place, after the batches before it); None at the
        end. Batches are read one at a time, so an error drops what it dropped before."""
        if self._per_piece > 1 and self._columns:
            ahead = self._pull_ahead()
            if ahead is not NotImplemented:
                return ahead  # type: ignore[no-any-return]
        pieces: list[tuple[list[Any], list[base.Element] | None]] = []
        error: BaseException | None = None
        while len(pieces) < self._per_piece:
            try:
                got = self._pull_batch()
            except errors.CancelledError:
                raise
            except errors.OpError as e:
                if not pieces:
                    raise
                error = e
                break
            if got is None:
                break
            pieces.append(got)
            if len(got[0][0]) < self._n:
                break  # the input's end
        if not pieces:
            return None
        sizes = [len(leaves[0]) for leaves, _ in pieces]
        if len(pieces) == 1:
            leaves, rows = pieces[0]
        else:
            leaves = [np.concatenate([p[0][j] for p in pieces]) for j in range(len(pieces[0][0]))]
            rows = None
            if all(p[1] is not None for p in pieces):
                rows = [r for p in pieces for r in p[1]]  # type: ignore[union-attr]
        return leaves, rows, sizes, error

    def _pull_ahead(self) -> Any:
        """_pull's piece from an input that reads several batches' columns in one call
        (next_columns_ahead: the elements and the error of one call per batch, without
        those calls); NotImplemented when it cannot now."""
        it = self._it
        take = getattr(it, "next_columns_ahead", None)
        if take is None:
            return NotImplemented
        n = self._n
        got = take(self._per_piece * n, n)
        if got is None:
            return NotImplemented
        cols, error = got
        m = len(cols[0]) if cols else 0
        sizes = [n] * (m // n)
        if m % n and not self._drop:
            sizes.append(m % n)  # the input's end inside a batch (never with an error)
        if error is None and m < self._per_piece * n:
            it.close()  # type: ignore[union-attr]
            self._it = None
        if not sizes:
            if error is not None:
                raise error
            return None
        keep = sum(sizes)
        leaves = [c if len(c) == keep else c[:keep] for c in cols]
        return leaves, None, sizes, error

    def _pull_batch(self) -> tuple[list[Any], list[base.Element] | None] | None:
        """The next n input elements as stacked leaves (and the elements, when read one by
        one); None at the end."""
        it = self._it
        if it is None:
            return None
        n = self._n
        if self._columns:
            parts: list[list[Any]] = []
            have = 0
            while have < n:
                cols = it.next_columns(n - have)  # type: ignore[attr-defined]
                if cols is None:
                    self._columns = False
                    break
                if not cols:
                    break
                parts.append(cols)
                have += len(cols[0])
            if self._columns:
                if have < n:
                    it.close()
                    self._it = None
                    if not have or self._drop:
                        return None
                if len(parts) == 1:
                    leaves = list(parts[0])
                else:
                    leaves = [np.concatenate([p[j] for p in parts]) for j in range(len(parts[0]))]
                return leaves, None
            # The input stopped handing out columns: what it gave is read as elements.
            rows = [tuple(r) for p in parts for r in zip(*[list(c) for c in p])]
        else:
            rows = []
        rows += it.next_many(n - len(rows))
        if len(rows) < n:
            it.close()
            self._it = None
            if not rows or self._drop:
                return None
        return list(base.batch_elements_dense(rows, self._in_specs)), rows

    def _compute(self, piece: Any) -> list[Any]:
        if isinstance(piece, list):  # an input error, in its place
            return piece
        leaves, rows, sizes, error = piece
        out: list[Any] = []
        joined = self._call(leaves) if len(sizes) > 1 else None
        at = 0
        for size in sizes:
            if joined is not None:
                out.append(tuple(b[at : at + size] for b in joined))
            elif len(sizes) == 1:
                out.append(self._one_batch(leaves, rows))
            else:  # each batch on its own: the failing one gets its element's error
                part = [leaf[at : at + size] for leaf in leaves]
                out.append(self._one_batch(part, rows[at : at + size] if rows else None))
            at += size
        if not isinstance(out[0], _Failure):
            self._pieces(out[0])
        if error is not None:
            out.append(_Failure(error))
        return out

    def _call(self, leaves: list[Any]) -> base.Element | None:
        """The function's batched form on these stacked elements; None when it fails (or
        gives results that are not a batch of them)."""
        m = self._map
        try:
            results = m.vectorized.call_tensors(  # type: ignore[union-attr]
                self._pipeline, [*leaves, *m.captured]
            )
            batch = base.element_from_tensors(results, self._specs)
            if all(
                s.kind != base.DENSE or (getattr(b, "shape", (None,))[:1] == (len(leaves[0]),))
                for s, b in zip(self._specs, batch)
            ):
                return batch
        except errors.CancelledError:
            if self._pipeline.closed:
                raise
        except errors.OpError:
            pass
        return None

    def _one_batch(self, leaves: list[Any], rows: list[base.Element] | None) -> Any:
        batch = self._call(leaves)
        if batch is not None:
            return batch
        # Element by element: the per-element error (or batching error) TF gives.
        m = self._map
        if rows is None:
            rows = list(zip(*[list(c) for c in leaves]))
        try:
            mapped = [m.fn(self._pipeline, row, m.captured) for row in rows]
            from tfcluster.kernels.dataset_batching import batch_elements

            return batch_elements(mapped, m.specs)
        except BaseException as e:
            return _Failure(e)

    def _parallel(self) -> bool:
        """Whether batches are computed ahead by the map's threads from now on.

        A step waiting for its batch gets them at once: they compute while the step's other
        ops run. A pipeline thread (a prefetch ahead of this map) already overlaps the steps;
        it computes batches itself, one hand-over fewer per batch, until its consumer keeps
        asking for the next batch sooner than one takes to compute (_STARVED times in a
        row): then the pipeline is what the steps wait for, and the threads start."""
        if self._workers <= 1:
            return False
        if base.current_step() is not None:
            return True
        return self._starved >= _STARVED

    def _inline(self) -> Any:
        if self._ready:
            return self._ready.popleft()
        start = time.perf_counter()
        piece = self._pull()
        if piece is None:
            return None
        items = self._compute(piece)
        end = time.perf_counter()
        if self._returned is not None:
            asked_after = start - self._returned
            self._starved = self._starved + 1 if asked_after < end - start else 0
        self._returned = end
        self._ready.extend(items[1:])
        return items[0]

    def next_ready(self) -> base.Element | None:
        if self._work is not None or not self._ready or isinstance(self._ready[0], _Failure):
            return None
        return self._ready.popleft()  # type: ignore[no-any-return]

    def next(self) -> base.Element | None:
        if self._work is None and not self._ready and self._parallel():
            self._work = OrderedWork(
                self._pipeline, self._pull, self._compute, self._workers, self._workers, "map"
            )
        if self._work is not None:
            item = self._work.next()
        else:
            item = self._inline()
            if item is None:
                return None
        if item is _END:
            return None
        if isinstance(item, _Failure):
            raise item.error
        return item  # type: ignore[no-any-return]

    def close(self) -> None:
        self._ready.clear()
        if self._work is not None:
            self._work.close()
        if self._it is not None:
            self._it.close()
            self._it = None


# ---- filter / take_while -------------------------------------------------------------------
def _truth(value: Any, what: str) -> bool:
    arr = np.asarray(value)
    if arr.shape != () or arr.dtype != np.bool_:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{what} must return a scalar boolean tensor, got {arr.dtype} {list(arr.shape)}",
        )
    return bool(arr)


class _Filter(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        fn: base.DatasetFunction,
        captured: Sequence[Any],
        take_while: bool = False,
    ) -> None:
        super().__init__(specs)
        self.data, self.fn, self.captured, self.take_while = data, fn, list(captured), take_while

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _FilterIterator(self, self.data.iterate(pipeline), pipeline)


class _FilterIterator(base.ElementIterator):
    def __init__(self, data: _Filter, it: base.ElementIterator, pipeline: base.Pipeline) -> None:
        self._data = data
        self._it: base.ElementIterator | None = it
        self._pipeline = pipeline

    def next(self) -> base.Element | None:
        d = self._data
        while self._it is not None:
            item = self._it.next()
            if item is None:
                return None
            (keep,) = d.fn(self._pipeline, item, d.captured)
            if _truth(keep, "The predicate"):
                return item
            if d.take_while:
                self.close()
        return None

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


def _filter_kernel(node: Any, take_while: bool) -> Any:
    specs = base.leaf_specs(node.attrs)
    fn = _function(node, "predicate", out_prefix="")
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        return (_Filter(specs, data, _bind_inputs(fn, data), ins[1 : 1 + nargs], take_while),)

    return compute


@kernel("FilterDataset", devices=CPU_ONLY)
def filter_dataset(node: Any, xp: Any) -> Any:
    return _filter_kernel(node, take_while=False)


@kernel("TakeWhileDataset", devices=CPU_ONLY)
def take_while_dataset(node: Any, xp: Any) -> Any:
    return _filter_kernel(node, take_while=True)


# ---- flat_map / interleave -----------------------------------------------------------------
class _Interleave(base.Dataset):
    """flat_map is an interleave of cycle 1."""

    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        fn: base.DatasetFunction,
        captured: Sequence[Any],
        cycle_length: int,
        block_length: int,
        prefetch: int = 0,
    ) -> None:
        super().__init__(specs)
        self.data, self.fn, self.captured = data, fn, list(captured)
        self.cycle_length, self.block_length, self.prefetch = cycle_length, block_length, prefetch

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _InterleaveIterator(self, self.data.iterate(pipeline), pipeline)

    def open(self, pipeline: base.Pipeline, element: base.Element) -> base.ElementIterator:
        (dataset,) = self.fn(pipeline, element, self.captured)
        if not isinstance(dataset, base.Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"{self.fn.what} must return a dataset, got {type(dataset).__name__}"
            )
        it = dataset.iterate(pipeline)
        if self.prefetch:
            ahead = PrefetchIterator(it, pipeline, self.prefetch, "interleave")
            ahead.start()
            return ahead
        return it


class _Deferred:
    """A slot's error met while reading ahead: raised in its place in the order."""

    __slots__ = ("error",)

    def __init__(self, error: errors.OpError) -> None:
        self.error = error


class _InterleaveIterator(base.ElementIterator):
    """TF's interleave order: up to cycle_length open datasets, block_length elements from
    each in turn; a finished one is replaced by the next input element's dataset."""

    def __init__(
        self, data: _Interleave, it: base.ElementIterator, pipeline: base.Pipeline
    ) -> None:
        self._data = data
        self._input: base.ElementIterator | None = it
        self._pipeline = pipeline
        self._slots: list[base.ElementIterator | None] = [None] * data.cycle_length
        self._open = 0
        self._index = 0
        self._block = 0
        # Datasets opened ahead of their slot (parallel interleave reads them early too).
        self._ahead: list[base.ElementIterator] = []
        # Elements a slot gave ahead of their turn (see _rounds), handed out first.
        self._pending: list[list[Any]] = [[] for _ in self._slots]
        # Elements of scalars (records, lines) can be handed out as columns.
        self._scalars = all(s.kind == base.DENSE and s.shape.ndims == 0 for s in data.specs)

    def _advance(self) -> None:
        self._index = (self._index + 1) % len(self._slots)
        self._block = 0

    def _open_next(self) -> base.ElementIterator | None:
        if self._ahead:
            return self._ahead.pop(0)
        if self._input is None:
            return None
        element = self._input.next()
        if element is None:
            self._input.close()
            self._input = None
            return None
        return self._data.open(self._pipeline, element)

    def _prefetch_inputs(self) -> None:
        """With parallel reads, every free slot's next dataset is opened (and its thread
        started) before the current slot is read."""
        if not self._data.prefetch:
            return
        free = sum(1 for s in self._slots if s is None) - len(self._ahead)
        while free > 0 and self._input is not None:
            element = self._input.next()
            if element is None:
                self._input.close()
                self._input = None
                break
            self._ahead.append(self._data.open(self._pipeline, element))
            free -= 1

    def next(self) -> base.Element | None:
        while True:
            slot = self._slots[self._index]
            if slot is not None:
                pending = self._pending[self._index]
                item = pending.pop(0) if pending else slot.next()
                if isinstance(item, _Deferred):
                    raise item.error
                if item is not None:
                    self._block += 1
                    if self._block >= self._data.block_length:
                        self._advance()
                    return item
                slot.close()
                self._slots[self._index] = None
                self._open -= 1
                self._advance()
                continue
            if self._input is not None or self._ahead:
                opened = self._open_next()
                if opened is not None:
                    self._slots[self._index] = opened
                    self._open += 1
                    self._prefetch_inputs()
                    continue
            if self._open == 0 and self._input is None and not self._ahead:
                return None
            self._advance()

    def next_many(self, n: int) -> list[base.Element]:
        out: list[base.Element] = []
        while len(out) < n:
            if self._index == 0 and self._block == 0 and self._rounds(out, n):
                continue
            item = self.next()
            if item is None:
                break
            out.append(item)
        return out

    def next_columns(self, n: int) -> list[Any] | None:
        """next_many's elements as one array per leaf (elements of scalars only). Whole
        rounds of file records are placed in the column straight from the readers."""
        if not self._scalars:
            return None
        # A call that starts inside a round (the last one ended there) takes the elements
        # up to the next round's start one by one: the rounds after it are then placed
        # whole, not element by element through next_many.
        head: list[base.Element] = []
        while (self._index or self._block or self._opening()) and len(head) < n:
            item = self.next()
            if item is None:
                break
            head.append(item)
        records = None
        if len(head) < n and not self._index and not self._block:
            records = self._record_rounds(n - len(head))
        have = len(head) + (0 if records is None else len(records))
        tail = self.next_many(n - have) if have < n else []
        if records is None or not len(records):
            return self._stacked(head + tail)
        if not head and not tail:
            return [records]
        parts = [*self._stacked(head)[:1], records, *self._stacked(tail)[:1]]
        return [np.concatenate(parts)]

    def _stacked(self, rows: list[base.Element]) -> list[np.ndarray]:
        """Elements as one array per leaf ([] for none)."""
        if not rows:
            return []
        return [
            base.stack([r[j] for r in rows], spec.dtype, f"component {j}")
            for j, spec in enumerate(self._data.specs)
        ]

    def reads_records_freely(self) -> bool:
        """Whether its elements are records of files (every open slot reads files), whose
        reading ahead of their consumer changes only when they are read."""
        slots = self._slots
        return (
            self._scalars
            and len(self._data.specs) == 1
            and any(s is not None for s in slots)
            and all(s is None or hasattr(s, "read_records_ahead") for s in slots)
        )

    def next_records(self, n: int) -> tuple[np.ndarray, errors.OpError | None]:
        """Up to n records in order as one column, and the error met right after them (the
        records before an error are kept, as reading one at a time keeps them); fewer than
        n without an error where whole rounds stop, none only at the end. Whole rounds
        come from the readers at once; the elements before them (up to a round that starts
        with every slot open and nothing in the pending lists) are taken one by one."""
        head: list[Any] = []
        error: errors.OpError | None = None
        records = None
        try:
            while len(head) < n and (
                self._index or self._block or any(self._pending) or self._opening()
            ):
                item = self.next()
                if item is None:
                    break
                head.append(item[0])
            if len(head) < n and not (self._index or self._block):
                records = self._record_rounds(n - len(head))
            if not head and (records is None or not len(records)):
                # No whole round to take (fewer than a round wanted, or at the end).
                while len(head) < n:
                    item = self.next()
                    if item is None:
                        break
                    head.append(item[0])
        except errors.CancelledError:
            raise
        except errors.OpError as e:
            error = e
        column = _objects(head)
        if records is not None and len(records):
            column = np.concatenate([column, records]) if head else records
        return column, error

    def _opening(self) -> bool:
        """Whether a slot is still to be opened with the input's next element: that takes
        the elements of its round one by one (TF opens a slot when its turn comes)."""
        return (self._input is not None or bool(self._ahead)) and None in self._slots

    def next_columns_ahead(
        self, n: int, chunk: int
    ) -> tuple[list[np.ndarray], errors.OpError | None] | None:
        """next_columns(chunk) again and again, for up to n elements, in one go: whole
        rounds of records at once, the rest chunk by chunk. An error comes back with the
        chunks before it (the failing chunk's elements are lost, as that call loses
        them); fewer than n elements without an error: the end. None for elements that
        are not scalars."""
        if not self._scalars:
            return None
        parts: list[np.ndarray] = []
        records = self._record_rounds(n - n % chunk)
        have = 0 if records is None else len(records)
        if have:
            parts.append(records)  # type: ignore[arg-type]
        error: errors.OpError | None = None
        while have < n:
            try:
                # Up to the next chunk's start: a failing call loses only its chunk's part.
                cols = self.next_columns(min(chunk - have % chunk, n - have))
            except errors.CancelledError:
                raise
            except errors.OpError as e:
                error = e
                break
            if not cols or not len(cols[0]):
                break
            parts.append(cols[0])
            have += len(cols[0])
        if error is not None:
            have -= have % chunk  # the failing chunk's elements read before it
        if not parts:
            return [], error
        column = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return [column[:have]], error

    def _record_rounds(self, n: int) -> np.ndarray | None:
        """_rounds for slots that all read file records (one string leaf, nothing waiting
        in the pending lists): the records of whole rounds as one column, in order; what a
        slot gave beyond them (and an error after it) waits in its pending list as for
        _rounds. None where this does not apply."""
        slots = self._slots
        block = self._data.block_length
        k = len(slots)
        rounds = n // (k * block)
        if (
            rounds == 0
            or self._index
            or self._block
            or len(self._data.specs) != 1
            or self._data.specs[0].dtype != dtypes.string
            or any(self._pending)
            or not all(hasattr(s, "read_records_ahead") for s in slots)
        ):
            return None
        want = rounds * block
        shares: list[list[bytes]] = []
        failed: dict[int, _Deferred] = {}
        for i, slot in enumerate(slots):
            got, error = slot.read_records_ahead(want)  # type: ignore[union-attr]
            shares.append(got)
            if error is not None:
                failed[i] = _Deferred(error)
        whole = min(len(share) for share in shares) // block
        column = np.empty(whole * block * k, dtype=object)
        turns = column.reshape(whole, k, block)
        for i, share in enumerate(shares):
            if whole:
                turns[:, i, :] = _objects(share[: whole * block]).reshape(whole, block)
            rest: list[Any] = [(r,) for r in share[whole * block :]]
            self._pending[i] = rest + ([failed[i]] if i in failed else [])
        return column

    def _rounds(self, out: list[base.Element], n: int) -> bool:
        """Appends to `out` whole rounds (block_length elements of each slot in turn) while
        every slot reads files, whose records do not depend on when they are read: each
        slot's share of the rounds is pulled at once. What a slot gave beyond the rounds
        all slots could fill waits in its pending list. False when no round was taken."""
        slots = self._slots
        block = self._data.block_length
        rounds = (n - len(out)) // (len(slots) * block)
        if rounds == 0 or not all(s is not None and s.reads_ahead_freely for s in slots):
            return False
        want = rounds * block
        shares = []
        failed: dict[int, _Deferred] = {}
        for i, slot in enumerate(slots):
            pending = self._pending[i]
            share = pending[:want]
            stop = next((k for k, e in enumerate(share) if isinstance(e, _Deferred)), None)
            if stop is not None:  # an error read ahead before: nothing past it yet
                failed[i] = share[stop]
                del share[stop:]
                del pending[: stop + 1]
                shares.append(share)
                continue
            del pending[:want]
            if len(share) < want:
                got, error = slot.read_ahead(want - len(share))  # type: ignore[union-attr]
                share += got
                if error is not None:
                    # Raised when its turn comes (after the elements before it in order).
                    failed[i] = _Deferred(error)
            shares.append(share)
        whole = min(len(share) for share in shares) // block
        if block == 1:
            # Slot k's share goes to every len(slots)-th place from k: slice assignments,
            # not a step per element.
            k = len(shares)
            turns: list[Any] = [None] * (whole * k)
            for i, share in enumerate(shares):
                turns[i::k] = share[:whole]
            out += turns
        else:
            for r in range(whole):
                for share in shares:
                    out.extend(share[r * block : (r + 1) * block])
        for i, share in enumerate(shares):
            self._pending[i][:0] = share[whole * block :] + ([failed[i]] if i in failed else [])
        return whole > 0

    def close(self) -> None:
        for s in [*self._slots, *self._ahead]:
            if s is not None:
                s.close()
        self._slots = [None] * len(self._slots)
        self._pending = [[] for _ in self._slots]
        self._ahead = []
        if self._input is not None:
            self._input.close()
            self._input = None


def _interleave_kernel(node: Any, kind: str) -> Any:
    specs = base.leaf_specs(node.attrs)
    fn = _function(node, "f", out_prefix="")
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        captured = ins[1 : 1 + nargs]
        cycle, block, prefetch = 1, 1, 0
        if kind != "flat_map":
            cycle = _parallelism(base.scalar_int(ins[1 + nargs], "cycle_length"), "cycle_length")
            block = base.scalar_int(ins[2 + nargs], "block_length")
            if block <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"block_length must be greater than zero, got {block}"
                )
        if kind == "parallel":
            calls = base.scalar_int(ins[3 + nargs], "num_parallel_calls")
            _parallelism(calls, "num_parallel_calls")
            prefetch = max(2, block)
        elif kind == "experimental":
            # (sloppy, buffer_output_elements, prefetch_input_elements)
            buffered = base.scalar_int(ins[4 + nargs], "buffer_output_elements")
            prefetch = max(2, block, buffered if buffered > 0 else 0)
        interleave = _Interleave(
            specs, data, _bind_inputs(fn, data), captured, cycle, block, prefetch
        )
        return (interleave,)

    return compute


@kernel("FlatMapDataset", devices=CPU_ONLY)
def flat_map_dataset(node: Any, xp: Any) -> Any:
    return _interleave_kernel(node, "flat_map")


@kernel("InterleaveDataset", devices=CPU_ONLY)
def interleave_dataset(node: Any, xp: Any) -> Any:
    return _interleave_kernel(node, "sequential")


@kernel("ParallelInterleaveDatasetV2", devices=CPU_ONLY)
def parallel_interleave_dataset_v2(node: Any, xp: Any) -> Any:
    return _interleave_kernel(node, "parallel")


@kernel("ParallelInterleaveDataset", devices=CPU_ONLY)
def parallel_interleave_dataset(node: Any, xp: Any) -> Any:
    return _interleave_kernel(node, "experimental")


def _objects(values: list[Any]) -> np.ndarray:
    """A list of bytes as a 1-D object array (never an array of their characters)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


# ---- scan ----------------------------------------------------------------------------------
class _Scan(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        fn: base.DatasetFunction,
        state: Sequence[Any],
        captured: Sequence[Any],
        num_state: int,
    ) -> None:
        super().__init__(specs)
        self.data, self.fn, self.state, self.captured = data, fn, list(state), list(captured)
        self.num_state = num_state

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ScanIterator(self, self.data.iterate(pipeline), pipeline)


class _ScanIterator(base.ElementIterator):
    def __init__(self, data: _Scan, it: base.ElementIterator, pipeline: base.Pipeline) -> None:
        self._data = data
        self._it = it
        self._pipeline = pipeline
        self._state = list(data.state)

    def next(self) -> base.Element | None:
        item = self._it.next()
        if item is None:
            return None
        d = self._data
        args = [*self._state, *base.element_tensors(item, d.data.specs), *d.captured]
        results = d.fn.call_tensors(self._pipeline, args)
        self._state = results[: d.num_state]
        return base.element_from_tensors(results[d.num_state :], d.specs)

    def close(self) -> None:
        self._it.close()


@kernel("ScanDataset", devices=CPU_ONLY)
def scan_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    fn = _function(node, "f", out_prefix="")
    num_state = len(node.attrs.get("Tstate") or [])
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        state = ins[1 : 1 + num_state]
        captured = ins[1 + num_state : 1 + num_state + nargs]
        return (_Scan(specs, data, fn, state, captured, num_state),)

    return compute


# ---- sample_from_datasets / choose_from_datasets -------------------------------------------
class _DirectedInterleave(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], selector: base.Dataset, inputs: Sequence[base.Dataset]
    ) -> None:
        super().__init__(specs)
        self.selector, self.inputs = selector, list(inputs)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _DirectedIterator(self, pipeline)


class _DirectedIterator(base.ElementIterator):
    def __init__(self, data: _DirectedInterleave, pipeline: base.Pipeline) -> None:
        self._selector: base.ElementIterator | None = data.selector.iterate(pipeline)
        self._inputs: list[base.ElementIterator | None] = [d.iterate(pipeline) for d in data.inputs]

    def next(self) -> base.Element | None:
        while self._selector is not None:
            pick = self._selector.next()
            if pick is None or not any(self._inputs):
                self.close()
                return None
            i = int(np.asarray(pick[0]))
            if i < 0 or i >= len(self._inputs):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Selector index out of range: {i} (there are {len(self._inputs)} datasets)",
                )
            it = self._inputs[i]
            if it is None:
                continue
            item = it.next()
            if item is not None:
                return item
            it.close()
            self._inputs[i] = None
        return None

    def close(self) -> None:
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        for it in self._inputs:
            if it is not None:
                it.close()
        self._inputs = [None] * len(self._inputs)


@kernel("DirectedInterleaveDataset", devices=CPU_ONLY)
def directed_interleave_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        datasets = [_input(d, node.name, i) for i, d in enumerate(ins)]
        return (_DirectedInterleave(specs, datasets[0], datasets[1:]),)

    return compute


# ---- whole datasets in one step ------------------------------------------------------------
def _step_pipeline(ctx: Any, node: Any) -> base.Pipeline:
    return base.Pipeline(ctx.resources, node.device)


@kernel("ReduceDataset", devices=CPU_ONLY)
def reduce_dataset(node: Any, xp: Any) -> Any:
    fn = _function(node, "f", out_prefix="")
    num_state = len(node.attrs.get("Tstate") or [])
    nargs = len(node.attrs.get("Targuments") or [])

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        data = _input(ins[0], node.name)
        state = list(ins[1 : 1 + num_state])
        captured = list(ins[1 + num_state : 1 + num_state + nargs])
        pipeline = _step_pipeline(ctx, node)
        it = data.iterate(pipeline)
        try:
            with base.StepScope(ctx):
                while True:
                    ctx.time_left()
                    item = it.next()
                    if item is None:
                        break
                    args = [*state, *base.element_tensors(item, data.specs), *captured]
                    state = fn.call_tensors(pipeline, args)
        finally:
            it.close()
            pipeline.close()
        return state

    return compute


@kernel("DatasetToSingleElement", devices=CPU_ONLY)
def dataset_to_single_element(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        data = _input(ins[0], node.name)
        pipeline = _step_pipeline(ctx, node)
        it = data.iterate(pipeline)
        try:
            with base.StepScope(ctx):
                first = it.next()
                if first is None:
                    raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
                if it.next() is not None:
                    raise errors.InvalidArgumentError(
                        None, None, "Dataset had more than one element."
                    )
        finally:
            it.close()
            pipeline.close()
        base.check_element(first, specs, "get_single_element")
        return base.element_tensors(first, specs)

    return compute
