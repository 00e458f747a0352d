"""tf.data.experimental's statistics: StatsAggregator, latency_stats, bytes_produced_stats,
and the `experimental_stats` options that make an iterator's pipeline report to an aggregator
(applied when the iterator is made, as TF 1.15's _apply_options does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.ops import dataset_more_ops, dataset_ops


class StatsAggregator:
    """A stateful resource that aggregates statistics from one or more iterators.

    Set it on a dataset with `options.experimental_stats.aggregator`; `get_summary()` is a
    string tensor: a serialized Summary with a histogram per recorded statistic (tagged
    `prefix::tag`), to add to tf.GraphKeys.SUMMARIES or write with a FileWriter."""

    def __init__(self) -> None:
        self._resource = dataset_more_ops.stats_aggregator_handle()

    def get_summary(self) -> Tensor:
        """The statistics recorded so far, as a serialized tf.Summary (a string scalar)."""
        return dataset_more_ops.stats_aggregator_summary(self._resource)


def _recording(op_type: str, tag: Any) -> Callable[[Dataset], Dataset]:
    def apply(dataset: Dataset) -> Dataset:
        tag_t = convert_to_tensor(tag, dtype=dtypes.string)
        structure = dataset._structure
        variant = dataset_ops.dataset_op(
            op_type, [dataset._variant_tensor, tag_t], st.op_attrs(structure)
        )
        return Dataset(variant, structure, [dataset])

    return apply


def latency_stats(tag: Any) -> Callable[[Dataset], Dataset]:
    """Records the latency of producing each element (microseconds) under `tag`."""
    return _recording("LatencyStatsDataset", tag)


def bytes_produced_stats(tag: Any) -> Callable[[Dataset], Dataset]:
    """Records the size of each element (bytes) under `tag`."""
    return _recording("BytesProducedStatsDataset", tag)


def apply_stats_options(dataset: Dataset) -> Dataset:
    """`dataset` set to report to its options' aggregator, if it has one."""
    stats = dataset.options().experimental_stats
    aggregator = stats.aggregator if stats is not None else None
    if aggregator is None:
        return dataset
    if not isinstance(aggregator, StatsAggregator):
        raise TypeError(
            "experimental_stats.aggregator must be a tf.data.experimental.StatsAggregator, "
            f"got {type(aggregator).__name__}"
        )
    with name_scope("SetStatsAggregatorDataset") as scope:
        tag = convert_to_tensor(stats.prefix or "", dtype=dtypes.string, name="tag")
        counter = convert_to_tensor(
            stats.counter_prefix or "", dtype=dtypes.string, name="counter_prefix"
        )
        variant = dataset_ops.dataset_op(
            "SetStatsAggregatorDataset",
            [dataset._variant_tensor, aggregator._resource, tag, counter],
            st.op_attrs(dataset._structure),
            name=scope,
        )
    return Dataset(variant, dataset._structure, [dataset])
