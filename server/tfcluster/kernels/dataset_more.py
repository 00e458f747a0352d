"""Dataset kernels of ops that take no function: the V1 and Experimental* spellings of ops
the other dataset modules run, the datasets that only carry options for TF's runtime
(optimisations, thread pools, the autotuning model: tfcluster's pipeline has no such knobs,
so they pass their input on after checking their arguments as TF does), sleep, sliding
windows, rebatching, auto-sharding and MatchingFilesDataset."""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import (
    dataset_batching,
    dataset_functions,
    dataset_grouping,
    dataset_ordering,
    dataset_readers,
    dataset_sources,
    dataset_writers,
)
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io.file_match import match

Factory = Callable[[Any, Any], Any]


def _input(value: Any, node_name: str) -> base.Dataset:
    if not isinstance(value, base.Dataset):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not a dataset ({type(value).__name__})"
        )
    return value


def _alias(op_type: str, factory: Factory) -> None:
    kernel(op_type, devices=CPU_ONLY)(factory)


# Experimental* names of ops whose kernels exist under the plain name (TF 1.15 has both).
for _name, _factory in {
    "ExperimentalUnbatchDataset": dataset_batching.unbatch_dataset,
    "ExperimentalUniqueDataset": dataset_ordering.unique_dataset,
    "ExperimentalIgnoreErrorsDataset": dataset_ordering.ignore_errors_dataset,
    "ExperimentalDenseToSparseBatchDataset": dataset_grouping.dense_to_sparse_batch_dataset,
    "ExperimentalDirectedInterleaveDataset": dataset_functions.directed_interleave_dataset,
    "ExperimentalRandomDataset": dataset_sources.random_dataset,
    "ExperimentalCSVDataset": dataset_readers.csv_dataset,
    "ExperimentalDatasetCardinality": dataset_ordering.dataset_cardinality,
    "ExperimentalDatasetToTFRecord": dataset_writers.dataset_to_tf_record,
}.items():
    _alias(_name, _factory)


def _appending(factory: Factory, *extra: Any, attrs: dict[str, Any] | None = None) -> Factory:
    """A V1 op run by its V2 kernel: the inputs V1 lacks appended with their V1 values
    (and attrs V1 leaves to the op's own inference)."""

    def bound(node: Any, xp: Any) -> Any:
        if attrs:
            node = dataclasses.replace(node, attrs={**attrs, **node.attrs})
        compute = factory(node, xp)

        def run(ctx: Any, ins: list[Any]) -> Any:
            return compute(ctx, [*ins, *extra])

        return run

    return bound


def _false() -> np.ndarray:
    return np.array(False)


_alias("BatchDataset", _appending(dataset_batching.batch_dataset, _false()))
_alias("PaddedBatchDataset", _appending(dataset_batching.padded_batch_dataset, _false()))
_alias(
    "FixedLengthRecordDataset",
    _appending(
        dataset_readers.fixed_length_record_dataset,
        np.array(b"", dtype=object),
        attrs={"output_types": [dtypes.string], "output_shapes": [TensorShape([])]},
    ),
)


# ---- options-only datasets: their input, once their arguments check out --------------------
def _at_least(value: Any, least: int, what: str) -> None:
    if base.scalar_int(value, what) < least:
        raise errors.InvalidArgumentError(None, None, f"`{what}` must be >= {least}")


def _passing_on(check: Callable[[list[Any]], None] | None = None) -> Factory:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            data = _input(ins[0], node.name)
            if check is not None:
                check(ins)
            return (data,)

        return compute

    return factory


for _name in ("ModelDataset", "NonSerializableDataset"):
    _alias(_name, _passing_on())


class _Optimized(base.Dataset):
    """OptimizeDataset's value: its input, iterated in a pipeline that knows the names of
    the static optimizations (the datasets they concern look them up)."""

    def __init__(self, data: base.Dataset, names: frozenset[str]) -> None:
        super().__init__(data.specs)
        self.data, self.names = data, names

    def with_input(self, data: base.Dataset) -> base.Dataset:
        return _Optimized(data, self.names)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        pipeline.static_optimizations = pipeline.static_optimizations | self.names
        return self.data.iterate(pipeline)

    def cardinality(self) -> int:
        return self.data.cardinality()


def _optimize_dataset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        names = np.asarray(ins[1]).reshape(-1)
        decoded = frozenset(n.decode() if isinstance(n, bytes) else str(n) for n in names)
        return (_Optimized(_input(ins[0], node.name), decoded),)

    return compute


_alias("OptimizeDataset", _optimize_dataset)
_alias("ExperimentalNonSerializableDataset", _passing_on())
for _name in ("PrivateThreadPoolDataset", "ExperimentalPrivateThreadPoolDataset"):
    _alias(_name, _passing_on(lambda ins: _at_least(ins[1], 1, "num_threads")))
for _name in ("MaxIntraOpParallelismDataset", "ExperimentalMaxIntraOpParallelismDataset"):
    _alias(_name, _passing_on(lambda ins: _at_least(ins[1], 0, "max_intra_op_parallelism")))


# ---- thread pools: a pool resource, and a dataset that names it ---------------------------
class ThreadPool:
    """A ThreadPoolHandle's pool: tfcluster runs pipelines in its own threads, so the pool
    only carries its settings."""

    def __init__(self, num_threads: int, max_intra_op_parallelism: int, name: str) -> None:
        self.num_threads = num_threads
        self.max_intra_op_parallelism = max_intra_op_parallelism
        self.name = name

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        """Nothing to stop."""


def thread_pool_handle(node: Any, xp: Any) -> Any:
    from tfcluster.kernels.dataset import _resource_names

    container, name, private = _resource_names(node)
    num_threads = int(node.attrs.get("num_threads", 0))
    intra = int(node.attrs.get("max_intra_op_parallelism", 1))
    display = str(node.attrs.get("display_name", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if num_threads <= 0:
            raise errors.InvalidArgumentError(
                None, None, "`num_threads` must be greater than zero."
            )
        if intra < 0:
            raise errors.InvalidArgumentError(None, None, "`max_intra_op_parallelism` must be >= 0")
        pool = ctx.resources.lookup_or_create(
            container, name, lambda: ThreadPool(num_threads, intra, display)
        )
        if not isinstance(pool, ThreadPool):
            raise errors.InvalidArgumentError(
                None, None, f"Resource {container}/{name} exists and is not a thread pool"
            )
        if private is not None:
            private.remember(ctx.resources, container, pool)
        return (pool,)

    return compute


def _check_pool(ins: list[Any]) -> None:
    if not isinstance(ins[1], ThreadPool):
        raise errors.InvalidArgumentError(
            None, None, f"thread_pool is not a thread pool handle ({type(ins[1]).__name__})"
        )


for _name in ("ThreadPoolHandle", "ExperimentalThreadPoolHandle"):
    _alias(_name, thread_pool_handle)
for _name in ("ThreadPoolDataset", "ExperimentalThreadPoolDataset"):
    _alias(_name, _passing_on(_check_pool))
# A dataset wrapped in a variant for a function boundary, and unwrapped: the same dataset.
_alias("WrapDatasetVariant", _passing_on())
_alias("UnwrapDatasetVariant", _passing_on())


# ---- sampling ------------------------------------------------------------------------------
class _Sampling(base.Dataset):
    def __init__(self, data: base.Dataset, rate: float, seed: int, seed2: int) -> None:
        super().__init__(data.specs)
        self.data, self.rate, self.seeds = data, rate, (seed, seed2)

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        seed, seed2 = self.seeds
        if seed == 0 and seed2 == 0:
            rng = np.random.default_rng()
        else:
            rng = np.random.default_rng([seed & (2**64 - 1), seed2 & (2**64 - 1)])
        return _SamplingIterator(self.data.iterate(pipeline), self.rate, rng)


class _SamplingIterator(base.ElementIterator):
    """Each element kept with probability `rate` (this process's own random stream)."""

    def __init__(self, it: base.ElementIterator, rate: float, rng: np.random.Generator) -> None:
        self._it, self._rate, self._rng = it, rate, rng

    def next(self) -> base.Element | None:
        while True:
            item = self._it.next()
            if item is None or self._rng.random() < self._rate:
                return item

    def close(self) -> None:
        self._it.close()


def sampling_dataset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        rate = float(np.asarray(ins[1]))
        seed, seed2 = base.scalar_int(ins[2], "seed"), base.scalar_int(ins[3], "seed2")
        return (_Sampling(_input(ins[0], node.name), rate, seed, seed2),)

    return compute


_alias("SamplingDataset", sampling_dataset)


# ---- sleep ---------------------------------------------------------------------------------
class _Sleep(base.Dataset):
    def __init__(self, data: base.Dataset, seconds: float) -> None:
        super().__init__(data.specs)
        self.data, self.seconds = data, seconds

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _SleepIterator(self.data.iterate(pipeline), self.seconds, pipeline)

    def cardinality(self) -> int:
        return self.data.cardinality()


class _SleepIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator, seconds: float, pipeline: base.Pipeline) -> None:
        self._it, self._seconds, self._pipeline = it, seconds, pipeline

    def next(self) -> base.Element | None:
        # Sleeps in short naps: a closed pipeline or a cancelled step stops it.
        end = time.monotonic() + self._seconds
        step = base.current_step()
        while (left := end - time.monotonic()) > 0:
            self._pipeline.check_open()
            if step is not None:
                step.time_left()
            time.sleep(min(left, 0.05))
        return self._it.next()

    def close(self) -> None:
        self._it.close()


def sleep_dataset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        micros = base.scalar_int(ins[1], "sleep_microseconds")
        if micros < 0:
            raise errors.InvalidArgumentError(
                None, None, f"`sleep_microseconds` must be >= 0, got {micros}"
            )
        return (_Sleep(_input(ins[0], node.name), micros / 1e6),)

    return compute


_alias("SleepDataset", sleep_dataset)
_alias("ExperimentalSleepDataset", sleep_dataset)


# ---- sliding windows -----------------------------------------------------------------------
class _SlidingWindow(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], data: base.Dataset, size: int, shift: int, stride: int
    ) -> None:
        super().__init__(specs)
        self.data, self.size, self.shift, self.stride = data, size, shift, stride

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _SlidingWindowIterator(self, self.data.iterate(pipeline))


class _SlidingWindowIterator(base.ElementIterator):
    """Windows of `size` elements `stride` apart, a window starting every `shift` elements;
    only whole windows, as TF's."""

    def __init__(self, ds: _SlidingWindow, it: base.ElementIterator) -> None:
        self._ds, self._it = ds, it
        self._buffer: list[base.Element] = []
        self._span = (ds.size - 1) * ds.stride + 1
        self._ended = False

    def next(self) -> base.Element | None:
        ds = self._ds
        while not self._ended and len(self._buffer) < self._span:
            item = self._it.next()
            if item is None:
                self._ended = True
                break
            self._buffer.append(item)
        if len(self._buffer) < self._span:
            return None
        window = self._buffer[: self._span : ds.stride]
        out = base.batch_elements_dense(window, ds.data.specs)
        drop = min(ds.shift, len(self._buffer))
        del self._buffer[:drop]
        # A shift past the buffer skips input elements that no window holds.
        for _ in range(ds.shift - drop):
            if self._ended or self._it.next() is None:
                self._ended = True
                break
        return out

    def close(self) -> None:
        self._it.close()


def sliding_window_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size, shift, stride = (
            base.scalar_int(v, w) for v, w in zip(ins[1:4], ("window_size", "shift", "stride"))
        )
        for value, what in ((size, "Window size"), (shift, "Window shift"), (stride, "stride")):
            if value <= 0:
                raise errors.InvalidArgumentError(None, None, f"{what} must be greater than zero.")
        return (_SlidingWindow(specs, _input(ins[0], node.name), size, shift, stride),)

    return compute


_alias("SlidingWindowDataset", sliding_window_dataset)
_alias("ExperimentalSlidingWindowDataset", sliding_window_dataset)


# ---- rebatch -------------------------------------------------------------------------------
class _Rebatch(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset, replicas: int) -> None:
        super().__init__(specs)
        self.data, self.replicas = data, replicas

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _RebatchIterator(self.data.iterate(pipeline), self.replicas)


class _RebatchIterator(base.ElementIterator):
    """Each batch of b rows split into `replicas` batches of ceil(b / replicas) rows (the
    last ones shorter, or empty), as TF 1.15's rewrite of the batch size gives."""

    def __init__(self, it: base.ElementIterator, replicas: int) -> None:
        self._it, self._n = it, replicas
        self._pending: list[base.Element] = []

    def next(self) -> base.Element | None:
        if not self._pending:
            batch = self._it.next()
            if batch is None:
                return None
            rows = base.shape_of(batch[0])
            if not rows:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot rebatch a dataset whose elements are scalars."
                )
            size = -(-rows[0] // self._n)
            self._pending = [
                tuple(leaf[i * size : (i + 1) * size] for leaf in batch) for i in range(self._n)
            ]
        return self._pending.pop(0)

    def close(self) -> None:
        self._it.close()


def rebatch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        replicas = base.scalar_int(ins[1], "num_replicas")
        if replicas <= 0:
            raise errors.InvalidArgumentError(None, None, "num_replicas must be greater than zero.")
        data = _input(ins[0], node.name)
        if any(s.kind != base.DENSE for s in data.specs):
            raise errors.UnimplementedError(
                None, None, f"{node.op}: only datasets of dense tensors can be rebatched"
            )
        return (_Rebatch(specs, data, replicas),)

    return compute


_alias("RebatchDataset", rebatch_dataset)
_alias("ExperimentalRebatchDataset", rebatch_dataset)


# ---- auto-shard ----------------------------------------------------------------------------
def auto_shard_dataset(node: Any, xp: Any) -> Any:
    """Shards the input's files where its source is a file reader right below it (TF's
    rewrite), else its elements (TF's fallback)."""
    shard = dataset_ordering.shard_dataset(
        dataclasses.replace(node, attrs={**node.attrs, "require_non_empty": False}), xp
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        num, index = base.scalar_int(ins[1], "num_workers"), base.scalar_int(ins[2], "index")
        if num <= 0:
            raise errors.InvalidArgumentError(None, None, "num_workers must be greater than zero")
        if index < 0 or index >= num:
            raise errors.InvalidArgumentError(None, None, f"index must be between 0 and {num - 1}")
        if isinstance(data, dataset_readers._Files) and len(data.files) >= num:
            sharded = copy.copy(data)
            sharded.files = data.files[index::num]
            return (sharded,)
        return tuple(shard(ctx, ins))

    return compute


_alias("AutoShardDataset", auto_shard_dataset)
_alias("ExperimentalAutoShardDataset", auto_shard_dataset)


# ---- matching files ------------------------------------------------------------------------
class _Filenames(base.Dataset):
    def __init__(self, names: list[bytes]) -> None:
        super().__init__([base.LeafSpec(base.DENSE, dtypes.string, TensorShape([]))])
        self.names = names

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _FilenameIterator(self.names)

    def cardinality(self) -> int:
        return len(self.names)


class _FilenameIterator(base.ElementIterator):
    def __init__(self, names: list[bytes]) -> None:
        self._names, self._i = names, 0

    def next(self) -> base.Element | None:
        if self._i >= len(self._names):
            return None
        self._i += 1
        return (base.as_array(self._names[self._i - 1]),)


def matching_files_dataset(node: Any, xp: Any) -> Any:
    """The files each pattern matches (sorted), pattern after pattern; NotFound for none."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        patterns = np.asarray(ins[0], dtype=object)
        if patterns.ndim > 1:
            raise errors.InvalidArgumentError(
                None, None, "Expected `patterns` to be a scalar or vector of strings"
            )
        names: list[bytes] = []
        for p in patterns.reshape(-1):
            text = p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else str(p)
            names.extend(sorted(f.encode("utf-8", "surrogateescape") for f in match(text)))
        if not names:
            raise errors.NotFoundError(None, None, "Don't find any matched files")
        return (_Filenames(names),)

    return compute


_alias("MatchingFilesDataset", matching_files_dataset)
_alias("ExperimentalMatchingFilesDataset", matching_files_dataset)
