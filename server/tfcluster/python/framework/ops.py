"""tensorflow.python.framework.ops: graphs, tensors, operations and the default-graph
functions (`ops.reset_default_graph()` is what most programs import it for)."""

from typing import Any

from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    convert_n_to_tensor,
    convert_to_tensor,
    device,
    get_collection,
    get_collection_ref,
    get_default_graph,
    init_scope,
    name_scope,
    op_scope,
    register_tensor_conversion_function,
    reset_default_graph,
)
from tfcluster.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from tfcluster.gradients.registry import NotDifferentiable, RegisterGradient, no_gradient


def convert_to_tensor_v2(
    value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None
) -> Tensor:
    """TF 1.15's ops.convert_to_tensor_v2 (tf.compat.v2.convert_to_tensor): dtype_hint in
    place of preferred_dtype."""
    return convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


__all__ = [
    "Graph",
    "GraphKeys",
    "IndexedSlices",
    "IndexedSlicesValue",
    "NotDifferentiable",
    "Operation",
    "RegisterGradient",
    "Tensor",
    "add_to_collection",
    "add_to_collections",
    "colocate_with",
    "container",
    "control_dependencies",
    "convert_n_to_tensor",
    "convert_to_tensor",
    "convert_to_tensor_v2",
    "device",
    "get_collection",
    "get_collection_ref",
    "get_default_graph",
    "init_scope",
    "name_scope",
    "no_gradient",
    "op_scope",
    "register_tensor_conversion_function",
    "reset_default_graph",
]
