"""More of tf.data's graph ops: sources and transformations that take no function (SQL,
LMDB, sleep, sliding windows, the pass-through options datasets, statistics), the V1 and
Experimental* spellings of ops dataset_ops.py defines, anonymous iterators and iterator
state. Kernels: kernels/dataset_more.py, dataset_sql.py, dataset_stats.py, iterator_state.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import dataset_ops
from tfcluster.ops.op_util import Outputs, make_op

_SCALAR_VARIANT = [(dtypes.variant, TensorShape([]))]
_SCALAR_RESOURCE = [(dtypes.resource, TensorShape([]))]


def _dataset_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_SCALAR_VARIANT)


# Dataset op type -> positions of its dataset inputs.
DATASET_OPS: dict[str, Sequence[int]] = {
    "SqlDataset": (),
    "ExperimentalSqlDataset": (),
    "LMDBDataset": (),
    "ExperimentalLMDBDataset": (),
    "MatchingFilesDataset": (),
    "ExperimentalMatchingFilesDataset": (),
    "FixedLengthRecordDataset": (),
    "ExperimentalRandomDataset": (),
    "ExperimentalCSVDataset": (),
    "BatchDataset": (0,),
    "PaddedBatchDataset": (0,),
    "ExperimentalUnbatchDataset": (0,),
    "ExperimentalUniqueDataset": (0,),
    "ExperimentalIgnoreErrorsDataset": (0,),
    "ExperimentalDenseToSparseBatchDataset": (0,),
    "SleepDataset": (0,),
    "ExperimentalSleepDataset": (0,),
    "SlidingWindowDataset": (0,),
    "ExperimentalSlidingWindowDataset": (0,),
    "AutoShardDataset": (0,),
    "ExperimentalAutoShardDataset": (0,),
    "RebatchDataset": (0,),
    "ExperimentalRebatchDataset": (0,),
    "ModelDataset": (0,),
    "OptimizeDataset": (0,),
    "NonSerializableDataset": (0,),
    "ExperimentalNonSerializableDataset": (0,),
    "MaxIntraOpParallelismDataset": (0,),
    "ExperimentalMaxIntraOpParallelismDataset": (0,),
    "PrivateThreadPoolDataset": (0,),
    "ExperimentalPrivateThreadPoolDataset": (0,),
    "LatencyStatsDataset": (0,),
    "ExperimentalLatencyStatsDataset": (0,),
    "BytesProducedStatsDataset": (0,),
    "ExperimentalBytesProducedStatsDataset": (0,),
    # The aggregator handle (input 1) lives on the dataset's task too.
    "SetStatsAggregatorDataset": (0, 1),
    "ExperimentalSetStatsAggregatorDataset": (0, 1),
    "ThreadPoolDataset": (0, 1),
    "ExperimentalThreadPoolDataset": (0, 1),
    "SamplingDataset": (0,),
    "WrapDatasetVariant": (0,),
    "UnwrapDatasetVariant": (0,),
}
for _op, _datasets in DATASET_OPS.items():
    op_def_registry.register(_op, _dataset_infer, ref_inputs=_datasets)

# Variadic: every input is a dataset.
op_def_registry.register(
    "ExperimentalDirectedInterleaveDataset", _dataset_infer, ref_inputs=range(256)
)

_STRING_SCALAR = op_def_registry.fixed((dtypes.string, []))
_INT64_SCALAR = op_def_registry.fixed((dtypes.int64, []))


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_SCALAR_RESOURCE)


def _anonymous_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([])), (dtypes.variant, TensorShape([]))]


def _element_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return dataset_ops.element_outputs(attrs)


op_def_registry.register("StatsAggregatorHandle", _handle_infer, stateful=True)
op_def_registry.register("StatsAggregatorHandleV2", _handle_infer, stateful=True)
op_def_registry.register("ExperimentalStatsAggregatorHandle", _handle_infer, stateful=True)
op_def_registry.register("StatsAggregatorSummary", _STRING_SCALAR, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "ExperimentalStatsAggregatorSummary", _STRING_SCALAR, ref_inputs=[0], stateful=True
)

op_def_registry.register("ThreadPoolHandle", _handle_infer, stateful=True)
op_def_registry.register("ExperimentalThreadPoolHandle", _handle_infer, stateful=True)
op_def_registry.register("IteratorGetDevice", _STRING_SCALAR, ref_inputs=[0])
op_def_registry.register("ExperimentalIteratorGetDevice", _STRING_SCALAR, ref_inputs=[0])
op_def_registry.register("Iterator", _handle_infer, stateful=True)
op_def_registry.register("AnonymousIterator", _handle_infer, stateful=True)
op_def_registry.register("AnonymousIteratorV2", _anonymous_v2_infer, stateful=True)
op_def_registry.register("IteratorFromStringHandle", _handle_infer, stateful=True)
op_def_registry.register(
    "DeleteIterator", op_def_registry.no_outputs, ref_inputs=[0, 1], stateful=True
)
op_def_registry.register("IteratorGetNextSync", _element_infer, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "SerializeIterator", op_def_registry.fixed((dtypes.variant, [])), ref_inputs=[0], stateful=True
)
op_def_registry.register(
    "DeserializeIterator", op_def_registry.no_outputs, ref_inputs=[0, 1], stateful=True
)
# What a Saver writes for an iterator (make_saveable_from_iterator): its state as a string.
op_def_registry.register("_IteratorStateToString", _STRING_SCALAR, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "_IteratorStateFromString", op_def_registry.no_outputs, ref_inputs=[0], stateful=True
)
op_def_registry.register("ExperimentalDatasetCardinality", _INT64_SCALAR, ref_inputs=[0])
op_def_registry.register(
    "ExperimentalDatasetToTFRecord", op_def_registry.no_outputs, ref_inputs=[0], stateful=True
)

ITERATOR_OPS = (
    "ThreadPoolHandle",
    "ExperimentalThreadPoolHandle",
    "IteratorGetDevice",
    "ExperimentalIteratorGetDevice",
    "StatsAggregatorHandle",
    "StatsAggregatorHandleV2",
    "ExperimentalStatsAggregatorHandle",
    "StatsAggregatorSummary",
    "ExperimentalStatsAggregatorSummary",
    "Iterator",
    "AnonymousIterator",
    "AnonymousIteratorV2",
    "IteratorFromStringHandle",
    "DeleteIterator",
    "IteratorGetNextSync",
    "SerializeIterator",
    "DeserializeIterator",
    "_IteratorStateToString",
    "_IteratorStateFromString",
    "ExperimentalDatasetCardinality",
    "ExperimentalDatasetToTFRecord",
)
# The op types this module adds (gradients/dataset_more_grad.py lists those with no gradient).
OP_TYPES = (*DATASET_OPS, "ExperimentalDirectedInterleaveDataset", *ITERATOR_OPS)


def stats_aggregator_handle(name: str | None = None) -> Tensor:
    attrs = {"container": "", "shared_name": ""}
    return make_op(
        "StatsAggregatorHandle", [], attrs, name=name or "StatsAggregatorHandle"
    ).outputs[0]


def stats_aggregator_summary(handle: Tensor, name: str | None = None) -> Tensor:
    return dataset_ops.create(
        "StatsAggregatorSummary", [handle], {}, name=name or "StatsAggregatorSummary"
    ).outputs[0]


def iterator_state_to_string(iterator: Tensor, name: str | None = None) -> Tensor:
    return dataset_ops.create(
        "_IteratorStateToString", [iterator], {}, name=name or "SerializeIterator"
    ).outputs[0]


def iterator_state_from_string(
    iterator: Tensor, state: Tensor, name: str | None = None
) -> Operation:
    return dataset_ops.create(
        "_IteratorStateFromString", [iterator, state], {}, name=name or "DeserializeIterator"
    )


__all__: list[str] = []
