"""A dataset as a GraphDef and back: DatasetToGraph returns the GraphDef of the nodes that
compute its input (made when the node was built: ops/dataset_form_ops.py), DatasetFromGraph
runs such a GraphDef (TF's or tfcluster's: its `_Retval` names the dataset) and returns the
dataset it computes."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import errors, function_library
from tfcluster.framework.func_graph import GRAPH_DEF_ATTR, RETVAL_OP
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.ops.dataset_form_ops import DATASET_GRAPH_ATTR
from tfcluster.protos import attr_value_pb2, graph_pb2


@kernel("DatasetToGraph", devices=CPU_ONLY)
def dataset_to_graph(node: Any, xp: Any) -> Any:
    made = node.attrs.get(DATASET_GRAPH_ATTR)
    if isinstance(made, str):
        made = made.encode("latin-1")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _input(ins[0], node.name)
        if not made:
            raise errors.FailedPreconditionError(
                None,
                None,
                f"{node.name}: the node carries no graph of its input dataset (it was not "
                "built by tfcluster's graph)",
            )
        return (np.array(made, dtype=object),)

    return compute


def _body(data: bytes) -> attr_value_pb2.NameAttrList:
    """The GraphDef as a function body with no arguments and one result, the dataset."""
    try:
        gd = graph_pb2.GraphDef.FromString(data)
    except DecodeError:
        raise errors.InvalidArgumentError(None, None, "Could not parse GraphDef") from None
    if function_library.needs_import(gd):
        gd = function_library.from_library_form(gd)
    returns = [nd for nd in gd.node if nd.op == RETVAL_OP]
    if len(returns) != 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"The dataset graph must return one dataset (one _Retval node), found {len(returns)}",
        )
    returns[0].attr["index"].i = 0
    func = attr_value_pb2.NameAttrList(name="DatasetFromGraph")
    func.attr[GRAPH_DEF_ATTR].s = gd.SerializeToString()
    return func


@kernel("DatasetFromGraph", devices=CPU_ONLY)
def dataset_from_graph(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = np.asarray(ins[0], dtype=object)
        if data.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"graph_def must be a scalar, got shape {list(data.shape)}"
            )
        raw = data.item()
        body = _body(raw if isinstance(raw, bytes) else str(raw).encode())
        fn = base.DatasetFunction(body, f"{node.name} graph_def", node.device)
        pipeline = base.Pipeline(ctx.resources, node.device)
        try:
            (dataset,) = fn.call_tensors(pipeline, [])
        finally:
            pipeline.close()
        if not isinstance(dataset, base.Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"The dataset graph returns {type(dataset).__name__}, not a dataset"
            )
        return (dataset,)

    return compute
