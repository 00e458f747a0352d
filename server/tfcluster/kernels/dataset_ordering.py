"""Kernels of the datasets that pick, order and combine elements without functions:
RepeatDataset, TakeDataset, SkipDataset, ShardDataset, ShuffleDataset,
ShuffleAndRepeatDataset, ZipDataset, ConcatenateDataset, IgnoreErrorsDataset, UniqueDataset,
DatasetCardinality.

Shuffling gives TF 1.15's order: its buffer of slices and its Philox(seed, seed2) picks; with
reshuffle_each_iteration each new iterator of one pipeline (each epoch of a repeat) takes new
seeds as TF's RandomSeedGenerator draws them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import _philox
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _input(value: Any, node_name: str, index: int = 0) -> base.Dataset:
    if not isinstance(value, base.Dataset):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input {index} is not a dataset ({type(value).__name__})"
        )
    return value


# ---- repeat --------------------------------------------------------------------------------
class _Repeat(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        count: int,
        over_shuffle: bool | None = None,
    ) -> None:
        super().__init__(specs)
        self.data, self.count = data, count
        # Whether the pipeline as written repeats a shuffle, directly or through no-ops (TF's
        # fusion looks at that graph): a map lifted out from between them (a batched map)
        # does not make one.
        if over_shuffle is None:
            over_shuffle = isinstance(_below_noops(data), _Shuffle)
        self.over_shuffle = over_shuffle

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Repeat(data.specs, data, self.count, self.over_shuffle)

    def is_noop(self) -> bool:
        return self.count == 1

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        fused = self._fused(pipeline.static_optimizations)
        if fused is not None:
            return fused.iterate(pipeline)
        return _RepeatIterator(self, pipeline)

    def _fused(self, optimizations: frozenset[str]) -> _Shuffle | None:
        """TF 1.15's static optimizations over shuffle().repeat(): noop_elimination first
        (a repeat(1) goes; so do a take(-1), skip(0) or prefetch(0) between the two), then
        shuffle_and_repeat_fusion."""
        if "shuffle_and_repeat_fusion" not in optimizations or not self.over_shuffle:
            return None
        data = self.data
        if "noop_elimination" in optimizations:
            if self.is_noop():
                return None
            data = _below_noops(data)
        if not isinstance(data, _Shuffle):
            return None
        return data.fused_with_repeat(self.count)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if self.count < 0:
            return 0 if n == 0 else (base.INFINITE if n != base.UNKNOWN else base.UNKNOWN)
        if n < 0:
            return n if self.count else 0
        return n * self.count


def _below_noops(data: base.Dataset) -> base.Dataset:
    """The first input below `data` that noop_elimination keeps."""
    while data.is_noop():
        data = data.data  # type: ignore[attr-defined]
    return data


class _RepeatIterator(base.ElementIterator):
    def __init__(self, data: _Repeat, pipeline: base.Pipeline) -> None:
        self._data = data
        self._pipeline = pipeline
        self._epoch = 0
        self._seen = False  # the current epoch produced an element
        self._it: base.ElementIterator | None = (
            data.data.iterate(pipeline) if data.count != 0 else None
        )

    def _next_epoch(self) -> bool:
        """Starts the next epoch; False when there is none (or the last one was empty)."""
        assert self._it is not None
        self._it.close()
        self._epoch += 1
        count = self._data.count
        if (0 <= count <= self._epoch) or not self._seen:
            # An infinite repeat of an empty dataset ends, rather than spinning, as in TF.
            self._it = None
            return False
        self._seen = False
        self._it = self._data.data.iterate(self._pipeline)
        return True

    def next(self) -> base.Element | None:
        while self._it is not None:
            item = self._it.next()
            if item is not None:
                self._seen = True
                return item
            if not self._next_epoch():
                return None
        return None

    def next_ready(self) -> base.Element | None:
        item = self._it.next_ready() if self._it is not None else None
        if item is not None:
            self._seen = True
        return item

    def next_many(self, n: int) -> list[base.Element]:
        out: list[base.Element] = []
        while self._it is not None and len(out) < n:
            want = n - len(out)
            got = self._it.next_many(want)
            if got:
                self._seen = True
                out += got
            if len(got) < want and not self._next_epoch():
                break
        return out

    def next_columns(self, n: int) -> list[Any] | None:
        it = self._it
        if it is None:
            return []
        take = getattr(it, "next_columns", None)
        if take is None:
            return None
        while True:
            cols = take(n)
            if cols is None or cols:
                if cols:
                    self._seen = True
                return cols
            if not self._next_epoch():
                return []
            take = getattr(self._it, "next_columns", None)
            if take is None:
                return None

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("RepeatDataset", devices=CPU_ONLY)
def repeat_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data, count = _input(ins[0], node.name), base.scalar_int(ins[1], "count")
        return (_Repeat(specs, data, count),)

    return compute


# ---- take / skip / shard -------------------------------------------------------------------
class _Take(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, count: int) -> None:
        super().__init__(specs)
        self.data, self.count = data, count

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Take(data.specs, data, self.count)

    def is_noop(self) -> bool:
        return self.count == -1

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _TakeIterator(self.data.iterate(pipeline), self.count)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if self.count < 0:
            return n
        if n == base.INFINITE:
            return self.count
        return n if n == base.UNKNOWN else min(n, self.count)


class _TakeIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator, count: int) -> None:
        self._it: base.ElementIterator | None = it
        self._left = count  # < 0: all

    def next(self) -> base.Element | None:
        if self._it is None or self._left == 0:
            self.close()
            return None
        item = self._it.next()
        if item is None:
            self.close()
            return None
        self._left -= 1
        return item

    def next_many(self, n: int) -> list[base.Element]:
        if self._it is None:
            return []
        want = n if self._left < 0 else min(n, self._left)
        got = self._it.next_many(want) if want else []
        if self._left >= 0:
            self._left -= len(got)
        if len(got) < n:
            self.close()
        return got

    def next_columns(self, n: int) -> list[Any] | None:
        if self._it is None:
            return []
        take = getattr(self._it, "next_columns", None)
        if take is None:
            return None
        want = n if self._left < 0 else min(n, self._left)
        cols = take(want) if want else []
        if cols and self._left >= 0:
            self._left -= len(cols[0])
        if not cols:
            self.close()
        return cols

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("TakeDataset", devices=CPU_ONLY)
def take_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Take(specs, _input(ins[0], node.name), base.scalar_int(ins[1], "count")),)

    return compute


class _Skip(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, count: int) -> None:
        super().__init__(specs)
        self.data, self.count = data, count

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Skip(data.specs, data, self.count)

    def is_noop(self) -> bool:
        return self.count == 0

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _SkipIterator(self.data.iterate(pipeline), self.count)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if n < 0:
            return n
        return 0 if self.count < 0 else max(0, n - self.count)


class _SkipIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator, count: int) -> None:
        self._it = it
        self._to_skip = count  # < 0: everything

    def _skip(self) -> bool:
        """Skips what is left to skip; False when the input ended doing so."""
        while self._to_skip != 0:
            n = 1024 if self._to_skip < 0 else min(1024, self._to_skip)
            got = self._it.next_many(n)
            if self._to_skip > 0:
                self._to_skip -= len(got)
            if len(got) < n:
                self._to_skip = 0
                return False
        return True

    def next(self) -> base.Element | None:
        if self._to_skip and not self._skip():
            return None
        return self._it.next()

    def next_many(self, n: int) -> list[base.Element]:
        if self._to_skip and not self._skip():
            return []
        return self._it.next_many(n)

    def close(self) -> None:
        self._it.close()


@kernel("SkipDataset", devices=CPU_ONLY)
def skip_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Skip(specs, _input(ins[0], node.name), base.scalar_int(ins[1], "count")),)

    return compute


class _Shard(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], data: base.Dataset, num_shards: int, index: int
    ) -> None:
        super().__init__(specs)
        self.data, self.num_shards, self.index = data, num_shards, index

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Shard(data.specs, data, self.num_shards, self.index)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ShardIterator(self.data.iterate(pipeline), self.num_shards, self.index)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if n < 0:
            return n
        return n // self.num_shards + (1 if self.index < n % self.num_shards else 0)


class _ShardIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator, num_shards: int, index: int) -> None:
        self._it = it
        self._n = num_shards
        self._index = index
        self._started = False

    def next(self) -> base.Element | None:
        # Element i of the shard is element index + i * num_shards of the input.
        if not self._started:
            self._started = True
            skip = self._index
        else:
            skip = self._n - 1
        while skip:
            got = self._it.next_many(skip)
            if len(got) < skip:
                return None
            skip = 0
        return self._it.next()

    def next_many(self, n: int) -> list[base.Element]:
        out: list[base.Element] = []
        while len(out) < n:
            item = self.next()
            if item is None:
                break
            out.append(item)
        return out

    def close(self) -> None:
        self._it.close()


@kernel("ShardDataset", devices=CPU_ONLY)
def shard_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        num_shards = base.scalar_int(ins[1], "num_shards")
        index = base.scalar_int(ins[2], "index")
        if num_shards <= 0:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of shards must be greater than zero (currently num_shards = "
                f"{num_shards}).",
            )
        if index < 0 or index >= num_shards:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Index must be between 0 and {num_shards - 1} (currently index = {index}).",
            )
        return (_Shard(specs, _input(ins[0], node.name), num_shards, index),)

    return compute


# ---- shuffle -------------------------------------------------------------------------------
# TF stops filling the buffer once it holds elements of more than this many epochs.
_MAX_EPOCHS_IN_BUFFER = 3
# Philox calls drawn at once (four uint32 picks each): one draw is a list index, not a call.
# The first block is small (an iterator may take few elements); each next one is twice the
# last, up to _MAX_DRAW_CALLS: numpy's per-call costs of a block are paid once for many picks.
# An iterator after the first of a dataset (the next epoch under a repeat) starts with a
# block as big as the calls the last one used, so an epoch's draws come in about one block
# (not three growing ones, half of the last unused).
_DRAW_CALLS = 256
_MAX_DRAW_CALLS = 4096
# Records read from files at once to refill a buffer kept as columns (one call of the input
# instead of one per run of picks: each call of an interleave of files costs tens of us).
_READ_AHEAD = 1024


def _random_seeds() -> tuple[int, int]:
    a, b = np.random.SeedSequence().generate_state(2, np.uint64)
    return int(a), int(b)


class _SeedSequence:
    """The seeds of the iterators over one shuffle dataset. With reshuffle_each_iteration,
    as TF's RandomSeedGenerator: the k-th iterator of one pipeline (the k-th epoch of a
    repeat) gets uint32 draws 2k and 2k+1 of Philox(seed, seed2); a new iterator resource
    (or a re-initialised one) starts again from the first pair, unless the generator is a
    shared resource (ShuffleDatasetV2's)."""

    def __init__(self, seed: int, seed2: int, reshuffle: bool, shared: bool = False) -> None:
        if seed == 0 and seed2 == 0:
            seed, seed2 = _random_seeds()
        self.seed, self.seed2 = seed, seed2
        self._reshuffle = reshuffle
        self._shared = shared
        self._count = 0
        self._counts: weakref.WeakKeyDictionary[base.Pipeline, int] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    @property
    def reshuffles_per_pipeline(self) -> bool:
        return self._reshuffle and not self._shared

    def iterator_seeds(self, pipeline: base.Pipeline) -> tuple[int, int]:
        if not self._reshuffle:
            return self.seed, self.seed2
        with self._lock:
            if self._shared:
                k, self._count = self._count, self._count + 1
            else:
                k = self._counts.get(pipeline, 0)
                self._counts[pipeline] = k + 1
        start = _philox.stateful_start(self.seed, self.seed2, (2 * k) // 4)
        w = _philox.words(start, 1)[0]
        at = (2 * k) % 4
        return int(w[at]), int(w[at + 1])


class _DrawHint:
    """The Philox calls the last iterator of a shuffle used up to its close: the first block
    its successor draws."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = 0


class _Shuffle(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        buffer_size: int,
        seeds: _SeedSequence,
        count: int = 1,
        draws: _DrawHint | None = None,
    ) -> None:
        super().__init__(specs)
        self.data, self.buffer_size, self.seeds, self.count = data, buffer_size, seeds, count
        # Shared with the copies over other inputs (a batched map's source, each epoch).
        self.draws = draws if draws is not None else _DrawHint()

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Shuffle(data.specs, data, self.buffer_size, self.seeds, self.count, self.draws)

    def fused_with_repeat(self, count: int) -> _Shuffle | None:
        """TF 1.15's default shuffle_and_repeat_fusion: shuffle(reshuffle_each_iteration=True)
        then repeat runs as ShuffleAndRepeatDataset, with the shuffle's own seeds (one
        Philox stream over all epochs, not new seeds per epoch)."""
        if (
            self.count != 1
            or not self.seeds.reshuffles_per_pipeline
            or not (count > 0 or count == -1)
        ):
            return None
        seeds = _SeedSequence(self.seeds.seed, self.seeds.seed2, False)
        return _Shuffle(self.specs, self.data, self.buffer_size, seeds, count)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        seed, seed2 = self.seeds.iterator_seeds(pipeline)
        return _ShuffleIterator(self, pipeline, seed, seed2)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if self.count == 1:
            return n
        return _Repeat(self.specs, self.data, self.count).cardinality()


class _ShuffleIterator(base.ElementIterator):
    """TF 1.15's shuffle: a circular buffer of buffer_size places, split in slices (one per
    epoch of shuffle_and_repeat); each element handed out is the one at place
    start + Random() % (end - start) of the first slice, Random() being the uint32 stream of
    Philox(seed, seed2); the slice's first element moves into its place and the slice
    shrinks by one; before each pick the buffer is refilled from the input.

    The picks work on what the places hold: elements, or, when the consumer takes columns
    (records, slices) from an input that hands them out, row numbers of a column store, so
    a run of picks moves integers and the rows are gathered with one numpy call per leaf."""

    def __init__(self, data: _Shuffle, pipeline: base.Pipeline, seed: int, seed2: int) -> None:
        self._data = data
        self._pipeline = pipeline
        self._size = data.buffer_size
        self._epochs = data.count  # -1: forever
        self._epoch = 0
        self._epoch_seen = False
        self._it: base.ElementIterator | None = data.data.iterate(pipeline)
        self._places: list[Any] = [None] * self._size
        self._slices: list[list[int]] = [[0, 0]]
        self._held = 0
        # Input elements read ahead of their turn (in batches), and the next one of them.
        self._pending: list[Any] = []
        self._p = 0
        self._philox = (seed, seed2)
        self._calls = 0
        self._block = min(max(_DRAW_CALLS, data.draws.calls), _MAX_DRAW_CALLS)
        self._draws: list[int] = []
        self._d = 0
        # Column mode (decided by the first call): one array per leaf, rows handed out by
        # number; None: the places hold elements.
        self._columns: list[np.ndarray] | None = None
        self._free: list[int] = []
        self._mode: str | None = None
        # An input error met while reading ahead (see _read_ahead), raised in its turn.
        self._error_ahead: errors.OpError | None = None

    # ---- input -------------------------------------------------------------------------
    def _read(self, k: int) -> list[Any]:
        """Up to k input elements (or column rows) of the current epoch; [] at its end."""
        assert self._it is not None
        if self._columns is None:
            return self._it.next_many(k)
        if self._error_ahead is not None:
            # Met while reading ahead: raised when the reads before it have been used up,
            # where reading one element at a time (TF's fill loop) meets it.
            error, self._error_ahead = self._error_ahead, None
            raise error
        ahead = self._read_ahead(k)
        if ahead is not None:
            return ahead
        take = getattr(self._it, "next_columns", None)
        cols = take(k) if take is not None else None
        if cols is None:
            raise errors.InternalError(None, None, "shuffle input stopped handing out columns")
        m = len(cols[0]) if cols else 0
        return self._store(cols, m) if m else []

    def _read_ahead(self, k: int) -> list[int] | None:
        """_read's rows from an input of file records, read _READ_AHEAD at a time (the
        records do not depend on when they are read: one call of the input, not one per
        pick's shortfall); an error among them waits for its turn in _error_ahead. None
        for other inputs."""
        it = self._it
        if not getattr(it, "reads_records_freely", lambda: False)():
            return None
        column, error = it.next_records(max(k, _READ_AHEAD))  # type: ignore[union-attr]
        m = len(column)
        if error is not None:
            if not m:
                raise error
            self._error_ahead = error
        return self._store([column], m) if m else []

    def _store(self, cols: list[np.ndarray], m: int) -> list[int]:
        assert self._columns is not None
        if len(self._free) < m:
            have = len(self._columns[0])
            grow = max(m - len(self._free), have)
            self._columns = [
                np.concatenate([c, np.empty((grow, *c.shape[1:]), dtype=c.dtype)])
                for c in self._columns
            ]
            self._free.extend(range(have + grow - 1, have - 1, -1))
        rows = self._free[-m:][::-1]
        del self._free[-m:]
        at = np.asarray(rows, dtype=np.int64)
        for c, f in zip(self._columns, cols):
            c[at] = f
        return rows

    def _next_input(self, want: int) -> Any:
        """The next input element (None once every epoch has ended); an epoch's end starts
        the next one in a new slice, as TF's fill loop does."""
        while self._it is not None:
            if self._p < len(self._pending):
                item = self._pending[self._p]
                self._p += 1
                return item
            got = self._read(max(1, want))
            if got:
                self._pending, self._p = got, 0
                self._epoch_seen = True
                continue
            self._it.close()
            self._it = None
            self._epoch += 1
            if not self._epoch_seen or (0 <= self._epochs <= self._epoch):
                # An empty epoch ends a forever-repeat rather than spinning.
                return None
            self._epoch_seen = False
            n = self._slices[-1][1]
            self._slices.append([n, n])
            self._it = self._data.data.iterate(self._pipeline)
        return None

    # ---- picks -------------------------------------------------------------------------
    def _more_draws(self, k: int = 1) -> None:
        """At least k draws left to take."""
        calls = max(self._block, (k + 3) // 4)
        self._block = min(2 * self._block, _MAX_DRAW_CALLS)
        start = _philox.stateful_start(self._philox[0], self._philox[1], self._calls)
        self._draws = self._draws[self._d :] + _philox.words(start, calls).reshape(-1).tolist()
        self._calls += calls
        self._d = 0

    def _steady_picks(self, out: list[Any], n: int) -> None:
        """TF's loop where one slice fills all places but the one the last pick freed, and
        elements are read ahead: each turn puts the next element there and picks among all
        buffer_size places (the checks TF would make are known to pass)."""
        k = min(n - len(out), len(self._pending) - self._p)
        if len(self._draws) - self._d < k:
            self._more_draws(k)
        places, size, p, d = self._places, self._size, self._p, self._d
        front = self._slices[0]
        start = front[0]
        first = start % size
        free = front[1] % size
        take = out.append
        for item, r in zip(self._pending[p : p + k], self._draws[d : d + k]):
            places[free] = item
            at = first + r % size
            if at >= size:
                at -= size
            take(places[at])
            places[at] = places[first]
            free = first
            first += 1
            if first == size:
                first = 0
        places[free] = None
        self._d = d + k
        self._p = p + k
        front[0] = start + k
        front[1] += k

    def _fill_from_pending(self) -> None:
        """TF's fill loop for the elements already read ahead: they go, in order, to the
        back slice's next places until the buffer is full (one slice assignment per run of
        places, not one turn per element; no new epoch starts among them)."""
        size, places, back = self._size, self._places, self._slices[-1]
        m = min(size - self._held, len(self._pending) - self._p)
        p, end = self._p, back[1]
        while m > 0:
            at = end % size
            k = min(m, size - at)
            places[at : at + k] = self._pending[p : p + k]
            p, end, m = p + k, end + k, m - k
        self._held += end - back[1]
        back[1] = end
        self._p = p

    def _drain_picks(self, out: list[Any], n: int) -> None:
        """TF's loop once the input has ended: picks alone, no fill (its checks known)."""
        k = min(n - len(out), self._held)
        if len(self._draws) - self._d < k:
            self._more_draws(k)
        places, slices, size = self._places, self._slices, self._size
        draws, d = self._draws, self._d
        for j in range(d, d + k):
            front = slices[0]
            while front[0] == front[1]:
                slices.pop(0)
                front = slices[0]
            start = front[0]
            at = (start + draws[j] % (front[1] - start)) % size
            first = start % size
            out.append(places[at])
            places[at] = places[first]
            places[first] = None
            front[0] = start + 1
        self._d = d + k
        self._held -= k

    def _picks(self, n: int) -> list[Any]:
        """Up to n elements (or rows) in TF's order; fewer only at the end."""
        out: list[Any] = []
        places, slices, size = self._places, self._slices, self._size
        while len(out) < n:
            if self._it is None:
                if not self._held:
                    break
                self._drain_picks(out, n)
                continue
            if self._held == size - 1 and len(slices) == 1 and self._p < len(self._pending):
                self._steady_picks(out, n)
                continue
            if (
                self._held < size
                and self._p < len(self._pending)
                and len(slices) <= _MAX_EPOCHS_IN_BUFFER
            ):
                # (With more slices TF's loop adds one element per pick; the loop below.)
                self._fill_from_pending()
            while self._it is not None and self._held < size:
                item = self._next_input(n - len(out))
                if item is None:
                    break
                back = slices[-1]
                places[back[1] % size] = item
                back[1] += 1
                self._held += 1
                if len(slices) > _MAX_EPOCHS_IN_BUFFER:
                    break
            if not self._held:
                break
            while slices[0][0] == slices[0][1]:
                slices.pop(0)
            front = slices[0]
            if self._d >= len(self._draws):
                self._more_draws()
            r = self._draws[self._d]
            self._d += 1
            start = front[0]
            at = (start + r % (front[1] - start)) % size
            first = start % size
            out.append(places[at])
            places[at] = places[first]
            places[first] = None
            front[0] = start + 1
            self._held -= 1
        return out

    # ---- elements ----------------------------------------------------------------------
    def next(self) -> base.Element | None:
        got = self.next_many(1)
        return got[0] if got else None

    def next_many(self, n: int) -> list[base.Element]:
        if self._mode == "columns":
            cols = self.next_columns(n)
            return list(zip(*[list(c) for c in cols])) if cols else []
        self._mode = "elements"
        return self._picks(n)

    # ---- columns -----------------------------------------------------------------------
    def next_columns(self, n: int) -> list[np.ndarray] | None:
        """Up to n elements as one array per leaf (fewer only at the end); None when the
        input does not hand out columns (or elements were taken one by one before)."""
        if self._mode is None:
            take = getattr(self._it, "next_columns", None)
            first = take(self._size) if take is not None else None
            if first is None:
                return None
            self._mode = "columns"
            self._columns = [np.empty((0, *c.shape[1:]), dtype=c.dtype) for c in first]
            m = len(first[0]) if first else 0
            if m:
                self._pending, self._p = self._store(first, m), 0
                self._epoch_seen = True
        if self._mode != "columns" or self._columns is None:
            return None
        rows = self._picks(n)
        if not rows:
            return []
        at = np.asarray(rows, dtype=np.int64)
        out = [c[at] for c in self._columns]
        self._free.extend(rows)
        return out

    def next_columns_ahead(
        self, n: int, chunk: int
    ) -> tuple[list[np.ndarray], errors.OpError | None] | None:
        """What next_columns(chunk) called again and again gives for up to n elements, in
        one hand-out (a batched map above then runs once for them): the columns, and the
        error one of those calls raised (the columns then hold the chunks before it; the
        failing chunk's elements are lost, as that call loses them). Fewer than n elements
        without an error: the end. None when the buffer is not in columns."""
        if self._mode != "columns" or self._columns is None:
            return None
        parts: list[list[np.ndarray]] = []
        have, error = 0, None
        while have < n:
            want = min(chunk, n - have)
            try:
                cols = self.next_columns(want)
            except errors.OpError as e:
                error = e
                break
            if not cols:
                break
            parts.append(cols)
            have += len(cols[0])
            if len(cols[0]) < want:
                break  # the input's end
        if not parts:
            return [], error
        if len(parts) == 1:
            return parts[0], error
        return [np.concatenate([p[j] for p in parts]) for j in range(len(parts[0]))], error

    def close(self) -> None:
        if self._calls:
            left = len(self._draws) - self._d
            self._data.draws.calls = self._calls - left // 4
        if self._it is not None:
            self._it.close()
            self._it = None
        self._places = [None] * self._size
        self._slices = [[0, 0]]
        self._held = 0
        self._pending, self._p = [], 0
        self._error_ahead = None
        if self._columns is not None:
            self._columns = [c[:0] for c in self._columns]
            self._free = []


def _shuffle_args(ins: list[Any]) -> tuple[int, int, int]:
    size = base.scalar_int(ins[1], "buffer_size")
    if size <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"buffer_size must be greater than zero (currently {size})."
        )
    return size, base.scalar_int(ins[2], "seed"), base.scalar_int(ins[3], "seed2")


@kernel("ShuffleDataset", devices=CPU_ONLY)
def shuffle_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    reshuffle = bool(node.attrs.get("reshuffle_each_iteration", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size, seed, seed2 = _shuffle_args(ins)
        seeds = _SeedSequence(seed, seed2, reshuffle)
        return (_Shuffle(specs, _input(ins[0], node.name), size, seeds),)

    return compute


@kernel("ShuffleAndRepeatDataset", devices=CPU_ONLY)
def shuffle_and_repeat_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size, seed, seed2 = _shuffle_args(ins)
        count = base.scalar_int(ins[4], "count")
        if count <= 0 and count != -1:
            raise errors.InvalidArgumentError(
                None, None, "count must be greater than zero or equal to -1."
            )
        # One iterator over every epoch: its seeds are the dataset's own (no reshuffling).
        seeds = _SeedSequence(seed, seed2, False)
        return (_Shuffle(specs, _input(ins[0], node.name), size, seeds, count),)

    return compute


# ---- zip / concatenate ---------------------------------------------------------------------
class _Zip(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], datasets: Sequence[base.Dataset]) -> None:
        super().__init__(specs)
        self.datasets = list(datasets)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ZipIterator([d.iterate(pipeline) for d in self.datasets])

    def cardinality(self) -> int:
        ns = [d.cardinality() for d in self.datasets]
        finite = [n for n in ns if n >= 0]
        if finite:
            return min(finite)
        return base.UNKNOWN if base.UNKNOWN in ns else base.INFINITE


class _ZipIterator(base.ElementIterator):
    def __init__(self, its: list[base.ElementIterator]) -> None:
        self._its: list[base.ElementIterator] | None = its

    def next(self) -> base.Element | None:
        if self._its is None:
            return None
        out: list[Any] = []
        for it in self._its:
            item = it.next()
            if item is None:
                self.close()
                return None
            out += item
        return tuple(out)

    def close(self) -> None:
        if self._its is not None:
            for it in self._its:
                it.close()
            self._its = None


@kernel("ZipDataset", devices=CPU_ONLY)
def zip_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        datasets = [_input(d, node.name, i) for i, d in enumerate(ins)]
        return (_Zip(specs, datasets),)

    return compute


class _Concatenate(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], first: base.Dataset, second: base.Dataset
    ) -> None:
        super().__init__(specs)
        self.first, self.second = first, second

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ConcatenateIterator(self, pipeline)

    def cardinality(self) -> int:
        a, b = self.first.cardinality(), self.second.cardinality()
        if base.INFINITE in (a, b):
            return base.INFINITE
        if base.UNKNOWN in (a, b):
            return base.UNKNOWN
        return a + b


class _ConcatenateIterator(base.ElementIterator):
    def __init__(self, data: _Concatenate, pipeline: base.Pipeline) -> None:
        self._second: base.Dataset | None = data.second
        self._pipeline = pipeline
        self._it: base.ElementIterator | None = data.first.iterate(pipeline)

    def next(self) -> base.Element | None:
        while self._it is not None:
            item = self._it.next()
            if item is not None:
                return item
            self._it.close()
            self._it = None
            if self._second is not None:
                self._it = self._second.iterate(self._pipeline)
                self._second = None
        return None

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("ConcatenateDataset", devices=CPU_ONLY)
def concatenate_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        first, second = _input(ins[0], node.name), _input(ins[1], node.name, 1)
        return (_Concatenate(specs, first, second),)

    return compute


# ---- ignore_errors / unique / cardinality --------------------------------------------------
class _IgnoreErrors(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset) -> None:
        super().__init__(specs)
        self.data = data

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _IgnoreErrorsIterator(self.data.iterate(pipeline))


class _IgnoreErrorsIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator) -> None:
        self._it: base.ElementIterator | None = it

    def next(self) -> base.Element | None:
        while self._it is not None:
            try:
                return self._it.next()
            except (errors.CancelledError, errors.DeadlineExceededError):
                raise
            except errors.OpError:
                continue
        return None

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None


@kernel("IgnoreErrorsDataset", devices=CPU_ONLY)
def ignore_errors_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_IgnoreErrors(specs, _input(ins[0], node.name)),)

    return compute


class _Unique(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset) -> None:
        super().__init__(specs)
        self.data = data

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _UniqueIterator(self.data.iterate(pipeline))


class _UniqueIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator) -> None:
        self._it = it
        self._seen: set[Any] = set()

    def next(self) -> base.Element | None:
        while True:
            item = self._it.next()
            if item is None:
                return None
            value = np.asarray(item[0])
            key = value.item() if value.ndim == 0 else value.tobytes()
            if key not in self._seen:
                self._seen.add(key)
                return item

    def close(self) -> None:
        self._it.close()


@kernel("UniqueDataset", devices=CPU_ONLY)
def unique_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_Unique(specs, _input(ins[0], node.name)),)

    return compute


@kernel("DatasetCardinality", devices=CPU_ONLY)
def dataset_cardinality(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int64(_input(ins[0], node.name).cardinality()),)

    return compute
