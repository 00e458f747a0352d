"""tf.data statistics: the StatsAggregator resource, SetStatsAggregatorDataset (which makes
a pipeline report to one), LatencyStatsDataset / BytesProducedStatsDataset (which record a
histogram of each element's latency in microseconds / size in bytes) and
StatsAggregatorSummary (the histograms as TF's Summary proto, ready for a summary writer)."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import summary_writers
from tfcluster.kernels.dataset import _resource_names
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.summary import histogram_proto
from tfcluster.protos import event_pb2, summary_pb2

# TF's separator between a prefix (or the statistics' tag) and a statistic's name.
DELIMITER = "::"
# What a std::string costs in a tensor besides its bytes (TF's Tensor::TotalBytes).
_STRING_OVERHEAD = 8


class StatsAggregator:
    """Histograms and scalars by name, as TF's StatsAggregatorImpl keeps them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._histograms: dict[str, list[float]] = {}
        self._scalars: dict[str, float] = {}

    def add_to_histogram(self, name: str, value: float, step: int = 0) -> None:
        with self._lock:
            self._histograms.setdefault(name, []).append(value)

    def add_scalar(self, name: str, value: float, step: int = 0) -> None:
        with self._lock:
            self._scalars[name] = value

    def summary(self) -> bytes:
        out = summary_pb2.Summary()
        with self._lock:
            histograms = {k: list(v) for k, v in self._histograms.items()}
            scalars = dict(self._scalars)
        for name in sorted(histograms):
            value = out.value.add(tag=name)
            value.histo.CopyFrom(histogram_proto(np.array(histograms[name])))
        for name in sorted(scalars):
            out.value.add(tag=name, simple_value=scalars[name])
        return out.SerializeToString()

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        """Nothing to stop (the resource manager closes what it drops)."""


class StatsAggregatorV2(StatsAggregator):
    """StatsAggregatorHandleV2's aggregator: as TF 1.15's, its StatsAggregatorSummary is empty;
    once StatsAggregatorSetSummaryWriter gave it a summary writer, every statistic recorded
    writes an event there (step: the recording iterator's element count; a histogram of all
    the values recorded under the name so far)."""

    def __init__(self) -> None:
        super().__init__()
        self._values: dict[str, list[float]] = {}
        self._writer: Any = None

    def set_summary_writer(self, writer: Any) -> None:
        with self._lock:
            self._writer = writer

    def add_to_histogram(self, name: str, value: float, step: int = 0) -> None:
        with self._lock:
            values = self._values.setdefault(name, [])
            values.append(value)
            writer = self._writer
            if writer is None:
                return
            summary = summary_pb2.Summary()
            summary.value.add(tag=name).histo.CopyFrom(histogram_proto(np.array(values)))
        writer.write(event_pb2.Event(step=step, wall_time=time.time(), summary=summary))

    def add_scalar(self, name: str, value: float, step: int = 0) -> None:
        with self._lock:
            writer = self._writer
        if writer is not None:
            summary = summary_pb2.Summary()
            summary.value.add(tag=name, simple_value=value)
            writer.write(event_pb2.Event(step=step, wall_time=time.time(), summary=summary))

    def summary(self) -> bytes:
        return summary_pb2.Summary().SerializeToString()


def _aggregator(value: Any, node_name: str) -> StatsAggregator:
    if not isinstance(value, StatsAggregator):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input is not a stats aggregator ({type(value).__name__})"
        )
    return value


def stats_aggregator_handle(node: Any, xp: Any) -> Any:
    container, name, private = _resource_names(node)
    make = StatsAggregatorV2 if node.op == "StatsAggregatorHandleV2" else StatsAggregator

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        agg = ctx.resources.lookup_or_create(container, name, make)
        agg = _aggregator(agg, node.name)
        if private is not None:
            private.remember(ctx.resources, container, agg)
        return (agg,)

    return compute


for _op in (
    "StatsAggregatorHandle",
    "StatsAggregatorHandleV2",
    "ExperimentalStatsAggregatorHandle",
):
    kernel(_op, devices=CPU_ONLY)(stats_aggregator_handle)


def stats_aggregator_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out = np.empty((), dtype=object)
        out[()] = _aggregator(ins[0], node.name).summary()
        return (out,)

    return compute


kernel("StatsAggregatorSummary", devices=CPU_ONLY)(stats_aggregator_summary)


@kernel("StatsAggregatorSetSummaryWriter", devices=CPU_ONLY)
def stats_aggregator_set_summary_writer(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        agg = _aggregator(ins[0], node.name)
        writer = summary_writers.writer_of(ins[1], node.name)
        if isinstance(agg, StatsAggregatorV2):
            agg.set_summary_writer(writer)
        # A V1 aggregator keeps its statistics for StatsAggregatorSummary: TF 1.15 accepts
        # the writer and writes nothing to it.
        return ()

    return compute


kernel("ExperimentalStatsAggregatorSummary", devices=CPU_ONLY)(stats_aggregator_summary)


# ---- which aggregator a pipeline reports to ------------------------------------------------
class _Reporting:
    """An aggregator and the prefix of the names a pipeline records under."""

    __slots__ = ("aggregator", "prefix")

    def __init__(self, aggregator: StatsAggregator, prefix: str) -> None:
        self.aggregator, self.prefix = aggregator, prefix

    def name(self, tag: str) -> str:
        return f"{self.prefix}{DELIMITER}{tag}" if self.prefix else tag


_reporting: weakref.WeakKeyDictionary[base.Pipeline, _Reporting] = weakref.WeakKeyDictionary()


class _WithAggregator(base.Dataset):
    def __init__(self, data: base.Dataset, reporting: _Reporting) -> None:
        super().__init__(data.specs)
        self.data, self.reporting = data, reporting

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        # Set before the input's iterators are made: they look it up as they are made.
        _reporting[pipeline] = self.reporting
        return self.data.iterate(pipeline)

    def cardinality(self) -> int:
        return self.data.cardinality()


def _input(value: Any, node_name: str) -> base.Dataset:
    if not isinstance(value, base.Dataset):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not a dataset ({type(value).__name__})"
        )
    return value


def _text(value: Any) -> str:
    item = np.asarray(value, dtype=object).reshape(-1)
    if item.size != 1:
        raise errors.InvalidArgumentError(None, None, "tag must be a scalar string")
    v = item[0]
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def set_stats_aggregator_dataset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        reporting = _Reporting(_aggregator(ins[1], node.name), _text(ins[2]))
        return (_WithAggregator(_input(ins[0], node.name), reporting),)

    return compute


kernel("SetStatsAggregatorDataset", devices=CPU_ONLY)(set_stats_aggregator_dataset)
kernel("ExperimentalSetStatsAggregatorDataset", devices=CPU_ONLY)(set_stats_aggregator_dataset)


# ---- recording datasets --------------------------------------------------------------------
Measure = Callable[[base.ElementIterator], tuple[base.Element | None, float]]


class _Recorded(base.Dataset):
    def __init__(self, data: base.Dataset, tag: str, measure: Measure) -> None:
        super().__init__(data.specs)
        self.data, self.tag, self.measure = data, tag, measure

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        it = self.data.iterate(pipeline)
        reporting = _reporting.get(pipeline)
        if reporting is None:
            return it  # nobody listens: the input's own iterator, at no cost
        return _RecordingIterator(it, reporting.aggregator, reporting.name(self.tag), self.measure)

    def cardinality(self) -> int:
        return self.data.cardinality()


class _RecordingIterator(base.ElementIterator):
    def __init__(
        self, it: base.ElementIterator, aggregator: StatsAggregator, name: str, measure: Measure
    ) -> None:
        self._it, self._aggregator, self._name, self._measure = it, aggregator, name, measure
        self._count = 0  # elements recorded: the step of a summary event, as TF's

    def next(self) -> base.Element | None:
        element, value = self._measure(self._it)
        if element is not None:
            self._aggregator.add_to_histogram(self._name, value, self._count)
            self._count += 1
        return element

    def close(self) -> None:
        self._it.close()


def _latency(it: base.ElementIterator) -> tuple[base.Element | None, float]:
    start = time.perf_counter_ns() // 1000
    element = it.next()
    return element, float(time.perf_counter_ns() // 1000 - start)


def _leaf_bytes(leaf: Any) -> int:
    if isinstance(leaf, base.SparseValue):
        return sum(_leaf_bytes(x) for x in (leaf.indices, leaf.values, leaf.dense_shape))
    if isinstance(leaf, (bytes, str)):
        return _STRING_OVERHEAD + len(leaf)
    arr = np.asarray(leaf)
    if arr.dtype == object:
        return sum(
            _leaf_bytes(x) if isinstance(x, np.ndarray) else _STRING_OVERHEAD + len(x)
            for x in arr.reshape(-1)
        )
    return int(arr.nbytes)


def _bytes(it: base.ElementIterator) -> tuple[base.Element | None, float]:
    element = it.next()
    if element is None:
        return None, 0.0
    return element, float(sum(_leaf_bytes(leaf) for leaf in element))


def _recording(measure: Measure) -> Callable[[Any, Any], Any]:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (_Recorded(_input(ins[0], node.name), _text(ins[1]), measure),)

        return compute

    return factory


for _op in ("LatencyStatsDataset", "ExperimentalLatencyStatsDataset"):
    kernel(_op, devices=CPU_ONLY)(_recording(_latency))
for _op in ("BytesProducedStatsDataset", "ExperimentalBytesProducedStatsDataset"):
    kernel(_op, devices=CPU_ONLY)(_recording(_bytes))
