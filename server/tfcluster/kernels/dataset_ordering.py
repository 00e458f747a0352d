"""Kernels of the datasets that pick, order and combine elements without functions:
RepeatDataset, TakeDataset, SkipDataset, ShardDataset, ShuffleDataset,
ShuffleAndRepeatDataset, ZipDataset, ConcatenateDataset, IgnoreErrorsDataset, UniqueDataset,
DatasetCardinality.

Shuffling draws from numpy's PCG64 seeded from (seed, seed2): the same seeds give the same
order run after run, but not TensorFlow's order (its Philox stream is not reproduced). With
reshuffle_each_iteration every new iterator over the dataset (each epoch of a repeat) draws
a new order from the dataset's own seed sequence.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
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
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, count: int) -> None:
        super().__init__(specs)
        self.data, self.count = data, count

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Repeat(data.specs, data, self.count)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _RepeatIterator(self, pipeline)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if self.count < 0:
            return 0 if n == 0 else (base.INFINITE if n != base.UNKNOWN else base.UNKNOWN)
        if n < 0:
            return n if self.count else 0
        return n * self.count


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
        return (_Repeat(specs, _input(ins[0], node.name), base.scalar_int(ins[1], "count")),)

    return compute


# ---- take / skip / shard -------------------------------------------------------------------
class _Take(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, count: int) -> None:
        super().__init__(specs)
        self.data, self.count = data, count

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Take(data.specs, data, self.count)

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
class _SeedSequence:
    """The seeds of successive iterators over one shuffle dataset."""

    def __init__(self, seed: int, seed2: int, reshuffle: bool) -> None:
        if seed == 0 and seed2 == 0:
            entropy = np.random.SeedSequence().entropy
            self._base: Any = entropy
        else:
            self._base = [seed & 0xFFFFFFFFFFFFFFFF, seed2 & 0xFFFFFFFFFFFFFFFF]
        self._reshuffle = reshuffle
        self._count = 0
        self._lock = threading.Lock()

    def next_rng(self) -> np.random.Generator:
        with self._lock:
            k = self._count
            if self._reshuffle:
                self._count += 1
        key = self._base if isinstance(self._base, list) else [self._base]
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([*key, k])))


class _Shuffle(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        buffer_size: int,
        seeds: _SeedSequence,
        count: int = 1,
    ) -> None:
        super().__init__(specs)
        self.data, self.buffer_size, self.seeds, self.count = data, buffer_size, seeds, count

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Shuffle(data.specs, data, self.buffer_size, self.seeds, self.count)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        if self.count == 1:
            return _ShuffleIterator(self.data.iterate(pipeline), self.buffer_size, self.seeds)
        # shuffle_and_repeat: each epoch is shuffled afresh (reshuffle), epochs do not mix.
        epochs = _Repeat(
            self.specs, _Shuffle(self.specs, self.data, self.buffer_size, self.seeds), self.count
        )
        return epochs.iterate(pipeline)

    def cardinality(self) -> int:
        n = self.data.cardinality()
        if self.count == 1:
            return n
        return _Repeat(self.specs, self.data, self.count).cardinality()


class _ShuffleIterator(base.ElementIterator):
    """TF's algorithm: keep a buffer of buffer_size elements; hand out a random one and put
    the next input element in its place; once the input ends, hand out the rest of the
    buffer in a random order.

    Every random number comes from one stream of draws (_draws), so the order depends only
    on the seed, not on how many elements each call takes. Over an input that hands out
    columns (records, slices), a consumer that takes columns gets them: the buffer is then
    one array per leaf, and a run of picks is made with numpy, with the result of making
    them one after the other."""

    def __init__(self, it: base.ElementIterator, buffer_size: int, seeds: _SeedSequence) -> None:
        self._it: base.ElementIterator | None = it
        self._size = buffer_size
        self._rng = seeds.next_rng()
        self._buffer: list[base.Element] = []
        self._draws = np.empty(0)
        self._d = 0
        # Once the input has ended: the rest of the buffer is handed out from here on, in
        # the order drawn then (None: not drawn yet).
        self._tail: int | None = None
        # The buffer as one array per leaf (its first _count rows), once columns are taken.
        self._columns: list[np.ndarray] | None = None
        self._count = 0

    # ---- draws -------------------------------------------------------------------------
    def _take_draws(self, k: int) -> np.ndarray:
        left = len(self._draws) - self._d
        if left < k:
            self._draws = np.concatenate([self._draws[self._d :], self._rng.random(max(1024, k))])
            self._d = 0
        draws = self._draws[self._d : self._d + k]
        self._d += k
        return draws

    def _random_index(self, n: int) -> int:
        if self._d < len(self._draws):
            r = float(self._draws[self._d])
            self._d += 1
        else:
            r = float(self._take_draws(1)[0])
        return min(int(r * n), n - 1)

    def _random_picks(self, k: int, n: int) -> np.ndarray:
        """k indices into a buffer of n elements, from the same draws as _random_index."""
        return np.minimum((self._take_draws(k) * n).astype(np.int64), n - 1)

    def _tail_order(self, n: int) -> np.ndarray:
        """The order in which the last n elements of the buffer are handed out."""
        return np.argsort(self._take_draws(n), kind="stable")

    # ---- elements ----------------------------------------------------------------------
    def _fill(self) -> None:
        if self._it is None or len(self._buffer) >= self._size:
            return
        got = self._it.next_many(self._size - len(self._buffer))
        if len(got) < self._size - len(self._buffer):
            self._it.close()
            self._it = None
        self._buffer += got

    def _from_tail(self, k: int) -> list[base.Element]:
        buf = self._buffer
        if self._tail is None:
            self._buffer = buf = [buf[p] for p in self._tail_order(len(buf)).tolist()]
            self._tail = 0
        out = buf[self._tail : self._tail + k]
        self._tail += len(out)
        return out

    def next(self) -> base.Element | None:
        if self._columns is not None:
            rows = self._rows(1)
            return rows[0] if rows else None
        if len(self._buffer) < self._size:
            self._fill()
        item = self._it.next() if self._it is not None else None
        if item is None:
            if self._it is not None:
                self._it.close()
                self._it = None
            got = self._from_tail(1)
            return got[0] if got else None
        buf = self._buffer
        i = self._random_index(len(buf))
        out = buf[i]
        buf[i] = item
        return out

    def next_many(self, n: int) -> list[base.Element]:
        if self._columns is not None:
            return self._rows(n)
        out: list[base.Element] = []
        while len(out) < n:
            if len(self._buffer) < self._size:
                self._fill()
            if self._it is None:
                out += self._from_tail(n - len(out))
                break
            # Replace k random elements with k new ones from the input: the buffer keeps its
            # size, so the k picks are drawn at once (the same draws as one at a time).
            k = n - len(out)
            fresh = self._it.next_many(k)
            buf = self._buffer
            for i, item in zip(self._random_picks(len(fresh), len(buf)).tolist(), fresh):
                out.append(buf[i])
                buf[i] = item
            if len(fresh) < k:
                self._it.close()
                self._it = None
        return out

    def _rows(self, n: int) -> list[base.Element]:
        cols = self.next_columns(n)
        return list(zip(*[list(c) for c in cols])) if cols else []

    # ---- columns -----------------------------------------------------------------------
    def _input_columns(self, k: int) -> list[np.ndarray] | None:
        """Up to k input elements as columns (fewer only at the end, where the input is
        closed); None when the input does not hand out columns."""
        it = self._it
        if it is None:
            return []
        take = getattr(it, "next_columns", None)
        parts: list[list[np.ndarray]] = []
        have = 0
        while have < k:
            cols = take(k - have) if take is not None else None
            if cols is None:
                if self._columns is None and not parts:
                    return None
                raise errors.InternalError(None, None, "shuffle input stopped handing out columns")
            if not cols or not len(cols[0]):
                it.close()
                self._it = None
                break
            parts.append(cols)
            have += len(cols[0])
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return []
        return [np.concatenate([p[j] for p in parts]) for j in range(len(parts[0]))]

    def next_columns(self, n: int) -> list[np.ndarray] | None:
        """Up to n elements as one array per leaf (fewer only at the end); None when the
        input does not hand out columns (or elements were taken one by one before)."""
        if self._columns is None:
            if self._buffer:
                return None
            first = self._input_columns(self._size)
            if first is None:
                return None
            self._columns = [np.empty((self._size, *c.shape[1:]), dtype=c.dtype) for c in first]
            self._place(first)
        out: list[list[np.ndarray]] = []
        have = 0
        while have < n:
            if self._count < self._size and self._it is not None:
                fresh = self._input_columns(self._size - self._count)
                if fresh:
                    self._place(fresh)
            if self._it is None:
                # Input done: the rest of the buffer in the order drawn once for it.
                if self._tail is None:
                    order = self._tail_order(self._count)
                    for c in self._columns:
                        c[: self._count] = c[: self._count][order]
                    self._tail = 0
                k = min(n - have, self._count - self._tail)
                if k <= 0:
                    break
                out.append([c[self._tail : self._tail + k].copy() for c in self._columns])
                self._tail += k
                have += k
                continue
            fresh = self._input_columns(n - have)
            m = len(fresh[0]) if fresh else 0
            if m:
                out.append(self._replace(fresh, m))  # type: ignore[arg-type]
                have += m
        if not out:
            return []
        if len(out) == 1:
            return out[0]
        return [np.concatenate([p[j] for p in out]) for j in range(len(out[0]))]

    def next_columns_ahead(
        self, n: int, chunk: int
    ) -> tuple[list[np.ndarray], errors.OpError | None] | None:
        """What next_columns(chunk) called again and again would give for up to n elements,
        in one go: the columns, and the error one of those calls would raise (the columns
        then hold the chunks before it; the failing chunk's elements are lost, as that
        call loses them). Fewer than n elements without an error: the end. None when the
        buffer is not in columns or the input cannot read ahead this way."""
        if self._columns is None:
            return None
        if self._it is None:  # the input is done: the tail cannot fail
            return self.next_columns(n) or [], None
        take = getattr(self._it, "next_columns_ahead", None)
        if take is None or self._count < self._size:
            return None
        got = take(n, chunk)
        if got is None:
            return None
        fresh, error = got
        m = len(fresh[0]) if fresh else 0
        out = self._replace(fresh, m) if m else []
        if m < n and error is None:
            # The input ended: the rest of this chunk and what follows come from the tail.
            self._it.close()
            self._it = None
            rest = self.next_columns(n - m)
            if rest:
                out = [np.concatenate([a, b]) for a, b in zip(out, rest)] if out else rest
        return out, error

    def _place(self, fresh: list[np.ndarray]) -> None:
        """Appends input columns to the buffer (filling it)."""
        assert self._columns is not None
        m = len(fresh[0]) if fresh else 0
        for c, f in zip(self._columns, fresh):
            c[self._count : self._count + m] = f
        self._count += m

    def _replace(self, fresh: list[np.ndarray], m: int) -> list[np.ndarray]:
        """m picks from the full buffer, each replaced by the next fresh element, with the
        result of doing them one after the other: a place picked again hands out the
        element the earlier pick put there."""
        assert self._columns is not None
        at = self._random_picks(m, self._count)
        order = np.argsort(at, kind="stable")  # picks of one place together, in turn
        placed = at[order]
        starts = np.empty(m, dtype=bool)  # the first pick of its place (sorted order)
        starts[0] = True
        np.not_equal(placed[1:], placed[:-1], out=starts[1:])
        first = order[starts]
        again = np.flatnonzero(~starts)
        later, before = order[again], order[again - 1]
        ends = np.empty(m, dtype=bool)  # the last pick of its place: what stays there
        ends[-1] = True
        ends[:-1] = starts[1:]
        last = order[ends]
        out = []
        for c, f in zip(self._columns, fresh):
            o = np.empty((m, *c.shape[1:]), dtype=c.dtype)
            o[first] = c[at[first]]
            if len(later):
                o[later] = f[before]
            c[at[last]] = f[last]
            out.append(o)
        return out

    def close(self) -> None:
        if self._it is not None:
            self._it.close()
            self._it = None
        self._buffer = []
        self._tail = 0
        if self._columns is not None:
            self._columns = [c[:0] for c in self._columns]
            self._count = 0


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
        seeds = _SeedSequence(seed, seed2, True)
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
