"""TF 1.15's remaining dataset op types: the Experimental* spellings of the dataset
transformations that take functions (same inputs and attrs as the plain ops), parsing
Examples as a dataset, assert_next, GeneratorDataset, ChooseFastestBranchDataset,
FilterByLastComponentDataset, SnapshotDataset and a dataset's GraphDef (DatasetToGraph /
DatasetFromGraph). They only add nodes: the raw ops and TF-written graphs use them. Kernels:
kernels/dataset_forms.py, dataset_generator.py, dataset_parse_example.py,
dataset_branches.py, dataset_snapshot.py, dataset_graphs.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, errors, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _dataset_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.variant, TensorShape([]))]


# Experimental<X>Dataset -> <X>Dataset: the kernel that runs it.
EXPERIMENTAL_FORMS = {
    "ExperimentalMapDataset": "MapDataset",
    "ExperimentalMapAndBatchDataset": "MapAndBatchDataset",
    "ExperimentalParallelInterleaveDataset": "ParallelInterleaveDataset",
    "ExperimentalGroupByReducerDataset": "GroupByReducerDataset",
    "ExperimentalGroupByWindowDataset": "GroupByWindowDataset",
    "ExperimentalScanDataset": "ScanDataset",
    "ExperimentalTakeWhileDataset": "TakeWhileDataset",
}
# Dataset op type -> positions of its dataset inputs.
DATASET_OPS: dict[str, Sequence[int]] = {
    **{op: (0,) for op in EXPERIMENTAL_FORMS},
    "ParseExampleDataset": (0,),
    "ExperimentalParseExampleDataset": (0,),
    "AssertNextDataset": (0,),
    "ExperimentalAssertNextDataset": (0,),
    "ChooseFastestBranchDataset": (0,),
    "FilterByLastComponentDataset": (0,),
    "DatasetFromGraph": (),
}
# TF 1.15 marks these stateful (their functions may be).
_STATEFUL = frozenset({"ExperimentalGroupByReducerDataset", "DatasetFromGraph"})
for _op, _datasets in DATASET_OPS.items():
    op_def_registry.register(_op, _dataset_infer, ref_inputs=_datasets, stateful=_op in _STATEFUL)
# GeneratorDataset's iterator calls init_func anew: stateful in TF 1.15.
op_def_registry.register("GeneratorDataset", _dataset_infer, stateful=True)
# A DatasetToGraph node carries the GraphDef its kernel returns: tfcluster's runtime holds a
# dataset as an object made by its kernel, not as the graph that made it.
DATASET_GRAPH_ATTR = "_dataset_graph"


def dataset_graph_def(dataset: Tensor) -> bytes:
    """The GraphDef (TF's form: function bodies in its library) of the nodes computing
    `dataset`, with a `_Retval` named "dataset" returning it, as TF's DatasetToGraph makes."""
    from tfcluster.framework import function_library, graph_io
    from tfcluster.protos import graph_pb2

    seen: set[str] = set()
    order = []
    stack = [(dataset.op, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.append((op, True))
        for dep in [*(t.op for t in op.inputs), *op.control_inputs]:
            if dep.name not in seen:
                stack.append((dep, False))
    gd = graph_pb2.GraphDef()
    gd.versions.producer = graph_io.GRAPH_DEF_VERSION
    for op in order:
        gd.node.add().CopyFrom(graph_io.node_def_from_operation(op))
    ret = gd.node.add(name="dataset", op="_Retval", input=[dataset.name])
    ret.attr["T"].type = dtypes.variant.as_datatype_enum
    ret.attr["index"].i = 0
    out: bytes = function_library.to_library_form(gd, in_place=True).SerializeToString()
    return out


# A SnapshotDataset node carries a fingerprint of the graph computing its input (its
# snapshots' folder name), and whether that graph reads values a step feeds or a variable
# holds (a snapshot of it is then never read back).
SNAPSHOT_FINGERPRINT_ATTR = "_input_fingerprint"
SNAPSHOT_VOLATILE_ATTR = "_input_volatile"
_VOLATILE_SOURCES = frozenset(
    {
        "Placeholder",
        "PlaceholderV2",
        "PlaceholderWithDefault",
        "VarHandleOp",
        "VariableV2",
        "Variable",
        "ReadVariableOp",
    }
)


def _fingerprint(data: bytes) -> tuple[str, bool]:
    """A hash of a dataset GraphDef that ignores node names and devices, and whether the
    graph has sources whose values vary from step to step."""
    import hashlib

    from tfcluster.framework.graph_io import parse_input
    from tfcluster.protos import graph_pb2

    gd = graph_pb2.GraphDef.FromString(data)
    index = {nd.name: i for i, nd in enumerate(gd.node)}
    digest = hashlib.sha256()
    for nd in gd.node:
        refs = []
        for raw in nd.input:
            src, out, control = parse_input(raw)
            refs.append(f"{'^' if control else ''}{index.get(src, -1)}:{out}")
        digest.update(f"{nd.op}({','.join(refs)})".encode())
        for key in sorted(nd.attr):
            if not key.startswith("_"):
                digest.update(key.encode() + nd.attr[key].SerializeToString(deterministic=True))
    digest.update(gd.library.SerializeToString(deterministic=True))
    volatile = any(nd.op in _VOLATILE_SOURCES for nd in gd.node)
    return digest.hexdigest()[:16], volatile


def _snapshot_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs and SNAPSHOT_FINGERPRINT_ATTR not in attrs:
        try:
            digest, volatile = _fingerprint(dataset_graph_def(inputs[0]))
        except (ValueError, KeyError, errors.OpError):
            # A graph TF's form cannot hold: no fingerprint, so nothing is read back.
            digest, volatile = "", True
        attrs[SNAPSHOT_FINGERPRINT_ATTR] = digest
        attrs[SNAPSHOT_VOLATILE_ATTR] = volatile
    return _dataset_infer(inputs, attrs)


op_def_registry.register("SnapshotDataset", _snapshot_infer, ref_inputs=[0])


def _dataset_to_graph_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs and DATASET_GRAPH_ATTR not in attrs:
        attrs[DATASET_GRAPH_ATTR] = dataset_graph_def(inputs[0])
    return [(dtypes.string, TensorShape([]))]


op_def_registry.register("DatasetToGraph", _dataset_to_graph_infer, ref_inputs=[0])

# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = (*DATASET_OPS, "GeneratorDataset", "SnapshotDataset", "DatasetToGraph")

__all__: list[str] = []
