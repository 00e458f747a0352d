"""tf.data ops over anonymous resources (TF 1.15's V2 spellings): seed generators and memory
caches with their deleters, ShuffleDatasetV2, CacheDatasetV2, and ChooseFastestDataset.
Kernels: kernels/dataset_anonymous_resources.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import dataset_ops
from tfcluster.ops.op_util import Outputs


def _dataset_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.variant, TensorShape([]))]


def _resource_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([]))]


def dataset_ops_element_outputs(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return dataset_ops.element_outputs(attrs)


def _anonymous_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([])), (dtypes.variant, TensorShape([]))]


for _op in ("AnonymousRandomSeedGenerator", "AnonymousMemoryCache"):
    op_def_registry.register(_op, _anonymous_infer, stateful=True)
for _op in ("DeleteRandomSeedGenerator", "DeleteMemoryCache"):
    op_def_registry.register(_op, op_def_registry.no_outputs, ref_inputs=(0, 1), stateful=True)
# The dataset input and the resource handle are where the dataset is made.
op_def_registry.register("ShuffleDatasetV2", _dataset_infer, ref_inputs=(0, 2))
op_def_registry.register("CacheDatasetV2", _dataset_infer, ref_inputs=(0, 2))
for _op in ("ChooseFastestDataset", "ExperimentalChooseFastestDataset"):
    op_def_registry.register(_op, _dataset_infer, ref_inputs=range(256))
# The aggregator and the summary writer are where the op runs.
op_def_registry.register(
    "StatsAggregatorSetSummaryWriter", op_def_registry.no_outputs, ref_inputs=(0, 1), stateful=True
)

# MultiDeviceIterator ops (kernels/multi_device_iterator.py).
op_def_registry.register("MultiDeviceIterator", _resource_infer, stateful=True)
op_def_registry.register("AnonymousMultiDeviceIterator", _anonymous_infer, stateful=True)
op_def_registry.register("MultiDeviceIteratorFromStringHandle", _resource_infer, stateful=True)
op_def_registry.register(
    "MultiDeviceIteratorInit",
    op_def_registry.fixed((dtypes.int64, [])),
    ref_inputs=(0, 1),
    stateful=True,
)
op_def_registry.register(
    "MultiDeviceIteratorToStringHandle",
    op_def_registry.fixed((dtypes.string, [])),
    ref_inputs=(0,),
    stateful=True,
)
op_def_registry.register(
    "DeleteMultiDeviceIterator", op_def_registry.no_outputs, ref_inputs=(0,), stateful=True
)
# GetNextFromShard runs on its shard's device: the handle is not pinned there (TF reads the
# iterator from any device of the task).
op_def_registry.register(
    "MultiDeviceIteratorGetNextFromShard", dataset_ops_element_outputs, stateful=True
)
