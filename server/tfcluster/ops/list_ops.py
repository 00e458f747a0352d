"""Tensor lists: a while loop's per-iteration values, kept by the loop for its gradient.

A While op whose gradient is built returns, per forward tensor the gradient needs, the list
of that tensor's values (one per iteration, a `variant` value that stays on its task); the
gradient loop reads item k with TensorListGetItem instead of recomputing iteration k.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops.op_util import Outputs


def _get_item_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].dtype.base_dtype != dtypes.variant:
        raise TypeError(f"TensorListGetItem takes a list (variant), got {inputs[0].dtype.name}")
    shape = tensor_util.constant_value_as_shape(inputs[2])
    value = tensor_util.constant_value(inputs[2])
    if value is not None and value.ndim == 0:
        shape = TensorShape(None)  # -1: an unknown rank
    return [(attrs["element_dtype"], shape)]


op_def_registry.register("TensorListGetItem", _get_item_infer)


def _shape_tensor(shape: TensorShape) -> Tensor:
    """TF's element_shape input: -1 for an unknown rank, else the dims with -1 unknown."""
    if shape.ndims is None:
        return convert_to_tensor(-1, dtype=dtypes.int32, name="element_shape")
    dims = [-1 if d is None else d for d in shape.as_list()]
    return convert_to_tensor(dims, dtype=dtypes.int32, name="element_shape")


def tensor_list_get_item(
    input_handle: Tensor,
    index: Tensor,
    element_dtype: Any,
    element_shape: Any = None,
    name: str | None = None,
) -> Tensor:
    graph = get_default_graph()
    with graph.name_scope(name or "TensorListGetItem") as scope:
        shape_t = _shape_tensor(as_shape(element_shape))
        attrs = {"element_dtype": dtypes.as_dtype(element_dtype).base_dtype}
        op = graph.create_op(
            "TensorListGetItem", [input_handle, index, shape_t], attrs, name=scope.rstrip("/") + "/"
        )
    return op.outputs[0]
