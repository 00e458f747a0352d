"""tf.data's graph ops: dataset ops (each outputs a scalar variant, the dataset), iterator ops
and MatchingFiles. They only add nodes; tfcluster.lib.data builds Datasets and Iterators on
them and tfcluster/kernels/dataset*.py runs them.

A dataset's value is a host object of the task that made it, so an op that takes a dataset
(or an iterator handle) takes it as a reference input: the placer keeps the whole pipeline,
its iterator and the ops reading the iterator on one device, as it does for a queue.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    get_default_graph,
    get_graph_from_inputs,
)
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops.op_util import Outputs, make_op

_VARIANT = [(dtypes.variant, TensorShape([]))]
_HANDLE = [(dtypes.resource, TensorShape([]))]


def _dataset_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_VARIANT)


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_HANDLE)


def element_outputs(attrs: dict[str, Any]) -> Outputs:
    """The tensors of one element, from output_types / output_shapes / output_sparse: a
    sparse leaf is three tensors (indices, values, dense_shape)."""
    sparse_at = set(attrs.get("output_sparse") or ())
    out: Outputs = []
    for i, (dt, shape) in enumerate(zip(attrs["output_types"], attrs["output_shapes"])):
        shape = as_shape(shape)
        if i in sparse_at:
            rank = shape.ndims
            out += [
                (dtypes.int64, TensorShape([None, rank])),
                (dt, TensorShape([None])),
                (dtypes.int64, TensorShape([rank])),
            ]
        else:
            out.append((dt, shape))
    return out


def _element_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return element_outputs(attrs)


def _state_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return element_outputs(attrs)


# Dataset op type -> positions of its dataset inputs (None: every input is a dataset).
DATASET_OPS: dict[str, Sequence[int] | None] = {
    # sources
    "TensorDataset": (),
    "TensorSliceDataset": (),
    "SparseTensorSliceDataset": (),
    "RangeDataset": (),
    "TFRecordDataset": (),
    "TextLineDataset": (),
    "FixedLengthRecordDatasetV2": (),
    "CSVDataset": (),
    "_PyGeneratorDataset": (),
    "RandomDataset": (),
    # unary transformations
    "RepeatDataset": (0,),
    "TakeDataset": (0,),
    "SkipDataset": (0,),
    "ShardDataset": (0,),
    "BatchDatasetV2": (0,),
    "PaddedBatchDatasetV2": (0,),
    "UnbatchDataset": (0,),
    "WindowDataset": (0,),
    "ShuffleDataset": (0,),
    "ShuffleAndRepeatDataset": (0,),
    "CacheDataset": (0,),
    "PrefetchDataset": (0,),
    "MapDataset": (0,),
    "ParallelMapDataset": (0,),
    "MapAndBatchDataset": (0,),
    "FilterDataset": (0,),
    "FlatMapDataset": (0,),
    "InterleaveDataset": (0,),
    "ParallelInterleaveDatasetV2": (0,),
    "ParallelInterleaveDataset": (0,),
    "IgnoreErrorsDataset": (0,),
    "ScanDataset": (0,),
    "TakeWhileDataset": (0,),
    "UniqueDataset": (0,),
    "AssertCardinalityDataset": (0,),
    # several inputs
    "ZipDataset": None,
    "ConcatenateDataset": (0, 1),
    "DirectedInterleaveDataset": None,
}

# Variadic ops: every input is a dataset (the registry takes explicit positions).
_EVERY_INPUT = range(256)
for _op, _datasets in DATASET_OPS.items():
    # Not stateful: a dataset is a value; the iterator that reads it holds the state.
    op_def_registry.register(
        _op, _dataset_infer, ref_inputs=_EVERY_INPUT if _datasets is None else _datasets
    )

op_def_registry.register("IteratorV2", _handle_infer, stateful=True)
op_def_registry.register("OneShotIterator", _handle_infer, stateful=True)
op_def_registry.register("IteratorFromStringHandleV2", _handle_infer, stateful=True)
op_def_registry.register(
    "MakeIterator", op_def_registry.no_outputs, ref_inputs=[0, 1], stateful=True
)
op_def_registry.register("IteratorGetNext", _element_infer, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "IteratorToStringHandle", op_def_registry.fixed((dtypes.string, [])), ref_inputs=[0]
)
op_def_registry.register("ReduceDataset", _state_infer, ref_inputs=[0], stateful=True)
op_def_registry.register("DatasetToSingleElement", _element_infer, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "DatasetCardinality", op_def_registry.fixed((dtypes.int64, [])), ref_inputs=[0]
)

ITERATOR_OPS = (
    "IteratorV2",
    "OneShotIterator",
    "IteratorFromStringHandleV2",
    "MakeIterator",
    "IteratorGetNext",
    "IteratorToStringHandle",
    "ReduceDataset",
    "DatasetToSingleElement",
    "DatasetCardinality",
)
# The op types this module adds (gradients/dataset_grad.py lists those with no gradient).
OP_TYPES = (*DATASET_OPS, *ITERATOR_OPS)


def create(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    name: str | None = None,
    control_inputs: Sequence[Operation] = (),
) -> Operation:
    """Adds an op that reads datasets, colocated with the first of them: a pipeline is made
    where its first dataset is (tf.device), whatever the device scope of later
    transformations, since a dataset cannot leave its task."""
    graph = get_graph_from_inputs(inputs) if inputs else get_default_graph()
    datasets = [t for t in inputs if t.dtype.base_dtype == dtypes.variant]
    with contextlib.ExitStack() as stack:
        if datasets:
            stack.enter_context(colocate_with(datasets[0].op))
        return graph.create_op(
            op_type, list(inputs), attrs, name=name or op_type, control_inputs=control_inputs
        )


def dataset_op(
    op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    """Adds a dataset op; its one output is the dataset (a scalar variant)."""
    return create(op_type, inputs, attrs, name).outputs[0]


def iterator_v2(
    element_attrs: dict[str, Any],
    shared_name: str = "",
    container: str = "",
    name: str | None = None,
) -> Tensor:
    attrs = {**element_attrs, "shared_name": shared_name, "container": container}
    return make_op("IteratorV2", [], attrs, name=name or "IteratorV2").outputs[0]


def one_shot_iterator(
    dataset_factory: Any, element_attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    attrs = {
        **element_attrs,
        "dataset_factory": dataset_factory,
        "shared_name": "",
        "container": "",
    }
    return make_op("OneShotIterator", [], attrs, name=name or "OneShotIterator").outputs[0]


def iterator_from_string_handle(
    string_handle: Tensor, element_attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    return make_op(
        "IteratorFromStringHandleV2",
        [string_handle],
        dict(element_attrs),
        name=name or "IteratorFromStringHandleV2",
    ).outputs[0]


def make_iterator(dataset: Tensor, iterator: Tensor, name: str | None = None) -> Operation:
    return make_op("MakeIterator", [dataset, iterator], {}, name=name or "MakeIterator")


def iterator_get_next(
    iterator: Tensor, element_attrs: dict[str, Any], name: str | None = None
) -> list[Tensor]:
    op = make_op("IteratorGetNext", [iterator], dict(element_attrs), name=name or "IteratorGetNext")
    return list(op.outputs)


def iterator_to_string_handle(iterator: Tensor, name: str | None = None) -> Tensor:
    return make_op(
        "IteratorToStringHandle", [iterator], {}, name=name or "IteratorToStringHandle"
    ).outputs[0]


__all__: list[str] = []
