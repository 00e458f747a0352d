"""Kernels of the datasets that keep elements: PrefetchDataset (a background thread fills a
bounded buffer) and CacheDataset (in memory, or in files under a prefix); and the ordered
hand-over that the parallel datasets (map, interleave) share.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors, tensor_util
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io import tfrecord
from tfcluster.protos import tensor_pb2
from tfcluster.runtime import cpp_log

AUTOTUNE = -1
_AUTOTUNE_PREFETCH = 4
# An input that computes elements in pieces (a batched map's several batches at once) is
# asked for its next piece while this many of the last one are still waiting, so that the
# piece is computed during the steps that take them, not while a step waits for it.
_PIECE_LEAD = 2
_END = object()  # the producer's last item


class _Failure:
    """An element's error, handed over in its place."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


# ---- prefetch ------------------------------------------------------------------------------
class _Prefetch(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, size: int) -> None:
        super().__init__(specs)
        self.data, self.size = data, size

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Prefetch(data.specs, data, self.size)

    def is_noop(self) -> bool:
        return self.size == 0

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        it = self.data.iterate(pipeline)
        if self.size == 0:
            return it
        return PrefetchIterator(it, pipeline, self.size, "prefetch")

    def cardinality(self) -> int:
        return self.data.cardinality()


class PrefetchIterator(base.ElementIterator):
    """Pulls the input's elements in a thread of the pipeline, up to `size` ahead. The thread
    starts with the first next() and ends at the end of the input or when closed."""

    def __init__(
        self, it: base.ElementIterator, pipeline: base.Pipeline, size: int, name: str
    ) -> None:
        self._it = it
        self._pipeline = pipeline
        self._size = size
        self._name = name
        self._cond = threading.Condition()
        self._items: collections.deque[Any] = collections.deque()
        self._started = False
        self._closed = False
        self._ended = False
        # The producer reads on once the buffer holds no more than this many elements.
        self._low = size - 1

    def _produce(self) -> None:
        it = self._it
        try:
            while True:
                with self._cond:
                    self._pipeline.wait(
                        self._cond, lambda: self._closed or len(self._items) <= self._low
                    )
                    if self._closed:
                        return
                try:
                    item: Any = it.next()
                except errors.CancelledError:
                    if self._pipeline.closed:
                        return
                    item = _Failure(errors.CancelledError(None, None, "Cancelled"))
                except BaseException as e:  # an element's error, handed over in its place
                    item = _Failure(e)
                # Elements the input already holds computed (a batched map's other batches)
                # come along: one hand-over for all of them, and this thread sleeps until
                # the steps have taken them (nothing is computed further ahead for that).
                ready = [item]
                while item is not None and not isinstance(item, _Failure):
                    item = it.next_ready()
                    if item is None:
                        break
                    ready.append(item)
                item = ready[-1]
                with self._cond:
                    self._low = self._size - 1
                    if len(ready) > 1:  # a piece: its successor is asked for sooner
                        self._low = max(self._low, _PIECE_LEAD)
                    self._items.extend(ready)
                    if item is None:
                        self._items[-1] = _END
                    self._cond.notify_all()
                if item is None:
                    return
        except errors.CancelledError:
            return  # the pipeline closed while waiting for room
        finally:
            it.close()

    def start(self) -> None:
        """Starts reading ahead now (else with the first next())."""
        with self._cond:
            if not self._started and not self._closed:
                self._started = True
                self._pipeline.start_thread(self._produce, self._name)

    def next(self) -> base.Element | None:
        if not self._started:
            self.start()
        with self._cond:
            if self._ended:
                return None
            self._pipeline.wait(self._cond, lambda: bool(self._items))
            item = self._items.popleft()
            if len(self._items) <= self._low:
                self._cond.notify_all()  # the producer waits for room (only then)
        if item is _END:
            self._ended = True
            return None
        if isinstance(item, _Failure):
            raise item.error
        return item  # type: ignore[no-any-return]

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if not self._started:
            self._it.close()


@kernel("PrefetchDataset", devices=CPU_ONLY)
def prefetch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size = base.scalar_int(ins[1], "buffer_size")
        if size == AUTOTUNE:
            size = _AUTOTUNE_PREFETCH
        if size < 0:
            raise errors.InvalidArgumentError(
                None, None, f"buffer_size must be >= 0 or AUTOTUNE (-1), got {size}"
            )
        return (_Prefetch(specs, _input(ins[0], node.name), size),)

    return compute


# ---- the ordered hand-over of parallel work ------------------------------------------------
class OrderedWork:
    """Workers compute numbered pieces of work out of order; the consumer takes the results
    in order.

    A worker takes the next piece with `pull()` (called under one lock, so pieces are taken
    in order; None at the end of the input), then computes its items with `compute(piece)`
    outside it (elements, or _Failure in an element's place). At most `ahead` pieces wait or
    are in progress beyond the one the consumer takes next.
    """

    def __init__(
        self,
        pipeline: base.Pipeline,
        pull: Callable[[], Any],
        compute: Callable[[Any], list[Any]],
        workers: int,
        ahead: int,
        name: str,
    ) -> None:
        self._pipeline = pipeline
        self._pull = pull
        self._compute = compute
        self._workers = workers
        self._ahead = max(ahead, workers)
        self._name = name
        self._cond = threading.Condition()
        self._pull_lock = threading.Lock()
        self._results: dict[int, list[Any]] = {}
        self._next_seq = 0  # the next piece to pull
        self._take_seq = 0  # the consumer's next piece
        self._end_seq: int | None = None
        self._current: list[Any] = []
        self._pos = 0
        self._started = False
        self._closed = False
        self._running = 0

    def _done(self) -> bool:
        return self._closed or self._end_seq is not None

    def _worker(self) -> None:
        try:
            while True:
                with self._cond:
                    self._pipeline.wait(
                        self._cond,
                        lambda: self._done() or self._next_seq < self._take_seq + self._ahead,
                    )
                    if self._done():
                        return
                with self._pull_lock:
                    if self._done():
                        return
                    seq = self._next_seq
                    self._next_seq += 1
                    try:
                        piece = self._pull()
                    except errors.CancelledError:
                        if self._pipeline.closed:
                            return
                        piece = [_Failure(errors.CancelledError(None, None, "Cancelled"))]
                    except BaseException as e:  # the input's own error, in its place
                        piece = [_Failure(e)]
                    if piece is None:
                        with self._cond:
                            self._end_seq = seq
                            self._cond.notify_all()
                        return
                items = self._compute(piece)
                with self._cond:
                    self._results[seq] = items
                    self._cond.notify_all()
        except errors.CancelledError:
            return
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _start(self) -> None:
        self._started = True
        for i in range(self._workers):
            self._running += 1
            try:
                self._pipeline.start_thread(self._worker, f"{self._name}-{i}")
            except BaseException:
                self._running -= 1
                raise

    def next(self) -> Any:
        """The next item in order; _END at the end."""
        while self._pos >= len(self._current):
            with self._cond:
                if not self._started:
                    self._start()
                seq = self._take_seq

                def ready(seq: int = seq) -> bool:
                    return (
                        seq in self._results
                        or (self._end_seq is not None and seq >= self._end_seq)
                        or self._running == 0
                    )

                self._pipeline.wait(self._cond, ready)
                if seq not in self._results:
                    if self._end_seq is not None and seq >= self._end_seq:
                        return _END
                    raise errors.CancelledError(None, None, "The input pipeline was closed")
                items = self._results.pop(seq)
                self._take_seq += 1
                self._cond.notify_all()
            self._current, self._pos = items, 0
        item = self._current[self._pos]
        self._pos += 1
        return item

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


# ---- cache ---------------------------------------------------------------------------------
def _frozen(element: base.Element) -> base.Element:
    """The element with its arrays made read-only (a cache hands the same arrays out again)."""
    for leaf in element:
        arrays = (
            (leaf.indices, leaf.values, leaf.dense_shape)
            if isinstance(leaf, base.SparseValue)
            else (leaf,)
        )
        for a in arrays:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
    return element


class _MemoryCache:
    """The elements of one complete pass, shared by the dataset's iterators."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.elements: list[base.Element] | None = None


class _Cache(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, filename: str) -> None:
        super().__init__(specs)
        self.data, self.filename = data, filename
        self.memory = _MemoryCache()

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        if self.filename:
            files = _CacheFiles(self.filename)
            if files.complete():
                return _FileCacheReader(files, self.data.specs)
            return _FileCacheWriter(files, self.data.iterate(pipeline), self.data.specs)
        with self.memory.lock:
            done = self.memory.elements
        if done is not None:
            return _ListReader(done)
        return _MemoryCacheWriter(self.memory, self.data.iterate(pipeline))

    def cardinality(self) -> int:
        return self.data.cardinality()


class _ListReader(base.ElementIterator):
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


class _MemoryCacheWriter(base.ElementIterator):
    """Reads the input and keeps what it reads; a pass read to its end becomes the cache."""

    def __init__(self, cache: _MemoryCache, it: base.ElementIterator) -> None:
        self._cache = cache
        self._it: base.ElementIterator | None = it
        self._kept: list[base.Element] = []

    def next(self) -> base.Element | None:
        if self._it is None:
            return None
        item = self._it.next()
        if item is None:
            self._it.close()
            self._it = None
            with self._cache.lock:
                if self._cache.elements is None:
                    self._cache.elements = self._kept
            return None
        self._kept.append(_frozen(item))
        return item

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None
            if self._kept:
                # TF's memory cache drops a partial pass with this warning.
                cpp_log.warning(_CACHE_LOG_SOURCE, _PARTIAL_CACHE_WARNING)
                self._kept = []


_CACHE_LOG_SOURCE = "tensorflow/core/kernels/data/cache_dataset_ops.cc:824"
_PARTIAL_CACHE_WARNING = (
    "The calling iterator did not fully read the dataset being cached. In order to avoid "
    "unexpected truncation of the dataset, the partially cached contents of the dataset will "
    "be discarded. This can happen if you have an input pipeline similar to "
    "`dataset.cache().take(k).repeat()`. You should use `dataset.take(k).cache().repeat()` "
    "instead.\n"
)


class _CacheFiles:
    """The files of a cache under `prefix`: tfcluster's own format (TFRecord files of
    TensorProtos), under names TensorFlow's cache does not use."""

    def __init__(self, prefix: str) -> None:
        self.data = f"{prefix}.tfcluster-cache"
        self.partial = f"{self.data}.partial"
        self.lockfile = f"{self.data}.lockfile"

    def complete(self) -> bool:
        return os.path.exists(self.data)


def _tensor_bytes(value: Any) -> bytes:
    arr = value if isinstance(value, np.ndarray) else base.as_array(value)
    return tensor_util.as_proto_tensor_content(arr).SerializeToString()


class _FileCacheWriter(base.ElementIterator):
    def __init__(
        self, files: _CacheFiles, it: base.ElementIterator, specs: Sequence[base.LeafSpec]
    ) -> None:
        self._files = files
        self._it: base.ElementIterator | None = it
        self._specs = list(specs)
        self._writer: tfrecord.RecordWriter | None = None

    def _open(self) -> tfrecord.RecordWriter:
        try:
            fd = os.open(self._files.lockfile, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise errors.AlreadyExistsError(
                None,
                None,
                "There appears to be a concurrent caching iterator running - cache lockfile "
                f"already exists ('{self._files.lockfile}'). If you are sure no other running "
                "computation is using this cache prefix, delete the lockfile and re-initialize "
                "the iterator.",
            ) from None
        except OSError as e:
            raise errors.NotFoundError(
                None, None, f"{self._files.lockfile}; {e.strerror}"
            ) from None
        os.close(fd)
        return tfrecord.RecordWriter(self._files.partial)

    def next(self) -> base.Element | None:
        if self._it is None:
            return None
        if self._writer is None:
            self._writer = self._open()
        item = self._it.next()
        if item is None:
            self._writer.close()
            self._writer = None
            os.replace(self._files.partial, self._files.data)
            self._release()
            return None
        for t in base.element_tensors(item, self._specs):
            self._writer.write(_tensor_bytes(t))
        return item

    def _release(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None
        with contextlib.suppress(OSError):
            os.remove(self._files.lockfile)

    def close(self) -> None:
        if self._writer is not None:
            # An unfinished pass is not a cache.
            self._writer.close()
            self._writer = None
            with contextlib.suppress(OSError):
                os.remove(self._files.partial)
            self._release()
        elif self._it is not None:
            self._it.close()
            self._it = None


class _FileCacheReader(base.ElementIterator):
    def __init__(self, files: _CacheFiles, specs: Sequence[base.LeafSpec]) -> None:
        self._reader: tfrecord.RecordReader | None = tfrecord.RecordReader(files.data)
        self._specs = list(specs)
        self._per_element = sum(s.num_tensors for s in specs)

    def next(self) -> base.Element | None:
        if self._reader is None:
            return None
        records = self._reader.read_batch(self._per_element)
        if not records:
            self.close()
            return None
        if len(records) != self._per_element:
            raise errors.DataLossError(None, None, "The cache file ends inside an element")
        tensors = [tensor_util.make_ndarray(tensor_pb2.TensorProto.FromString(r)) for r in records]
        return base.element_from_tensors(tensors, self._specs)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


@kernel("CacheDataset", devices=CPU_ONLY)
def cache_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw = np.asarray(ins[1], dtype=object)
        name = raw[()] if raw.shape == () else b""
        filename = name.decode() if isinstance(name, bytes) else str(name)
        return (_Cache(specs, _input(ins[0], node.name), filename),)

    return compute
