"""TensorInfo: how a SignatureDef names a tensor (TF's saved_model/utils)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.graph import Graph, Operation, get_default_graph
from tfcluster.framework.meta_graph import prepend_name_scope
from tfcluster.protos import meta_graph_pb2


def build_tensor_info(tensor: Any) -> meta_graph_pb2.TensorInfo:
    """The TensorInfo of a tensor (name, dtype, shape), or of a SparseTensor's three."""
    info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.as_datatype_enum)
    info.tensor_shape.CopyFrom(tensor.get_shape().as_proto())
    if hasattr(tensor, "indices") and hasattr(tensor, "dense_shape"):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def build_tensor_info_from_op(op: Operation) -> meta_graph_pb2.TensorInfo:
    """A TensorInfo naming an op (the init/train op entries of a SignatureDef)."""
    return meta_graph_pb2.TensorInfo(dtype=0, name=op.name)


def get_tensor_from_tensor_info(
    tensor_info: Any, graph: Graph | None = None, import_scope: str | None = None
) -> Any:
    """The tensor a TensorInfo names, in `graph` (default graph), under import_scope."""
    graph = graph or get_default_graph()

    def get(name: str) -> Any:
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return get(tensor_info.name)
    if encoding == "coo_sparse":
        raise errors.UnimplementedError(
            None, None, "This TensorInfo names a SparseTensor, which tfcluster does not implement"
        )
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")


def get_element_from_tensor_info(
    tensor_info: Any, graph: Graph | None = None, import_scope: str | None = None
) -> Any:
    """The tensor or op a TensorInfo names."""
    graph = graph or get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope))
