"""tf.broadcast_to, tf.broadcast_dynamic_shape and tf.broadcast_static_shape (TF's array_ops):
a tensor stretched to a shape, and the shape two shapes broadcast to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops.infer_util import check_index_dtype
from tfcluster.ops.op_util import Outputs, broadcast_shape, make_op


def _broadcast_to_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, shape = inputs
    target = tensor_util.constant_value_as_shape(shape)
    if target.ndims is None and shape.shape.ndims == 1 and shape.shape.as_list()[0] is not None:
        target = TensorShape([None] * int(shape.shape.as_list()[0]))  # type: ignore[arg-type]
    x_dims, t_dims = x.shape, target
    if x_dims.ndims is not None and t_dims.ndims is not None:
        if x_dims.ndims > t_dims.ndims:
            raise ValueError(
                f"Shape must be at most rank {t_dims.ndims} but is rank {x_dims.ndims}"
            )
        # Every dimension of x is 1 or the target's.
        for have, want in zip(reversed(x_dims.as_list()), reversed(t_dims.as_list())):
            if have is not None and want is not None and have not in (1, want):
                raise ValueError(
                    f"Incompatible shapes: {x_dims.as_list()} cannot be broadcast to "
                    f"{t_dims.as_list()}"
                )
    return [(x.dtype.base_dtype, target)]


def _broadcast_args_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    s0, s1 = (tensor_util.constant_value_as_shape(t) for t in inputs)
    if s0.ndims is None or s1.ndims is None:
        return [(inputs[0].dtype.base_dtype, TensorShape([None]))]
    return [(inputs[0].dtype.base_dtype, TensorShape([max(s0.ndims, s1.ndims)]))]


op_def_registry.register("BroadcastTo", _broadcast_to_infer)
op_def_registry.register("BroadcastArgs", _broadcast_args_infer)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """input repeated along its size-1 (or missing leading) dimensions to `shape`."""
    with name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = convert_to_tensor(input, name="input")
        if isinstance(shape, TensorShape):
            shape = shape.as_list()
        s = convert_to_tensor(shape, name="shape", preferred_dtype=None)
        check_index_dtype(s, "shape")
        attrs = {"T": x.dtype.base_dtype, "Tidx": s.dtype.base_dtype}
        return make_op("BroadcastTo", [x, s], attrs, name=scope).outputs[0]


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The shape (a 1-D int tensor) that tensors of shapes shape_x and shape_y broadcast to."""
    x = convert_to_tensor(shape_x, name="s0")
    y = convert_to_tensor(shape_y, name="s1", dtype=x.dtype.base_dtype)
    check_index_dtype(x, "s0")
    return make_op("BroadcastArgs", [x, y], {"T": x.dtype.base_dtype}, "BroadcastArgs").outputs[0]


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The TensorShape two static shapes broadcast to; ValueError when they cannot."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shape(x, y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}") from None


__all__ = ["broadcast_dynamic_shape", "broadcast_static_shape", "broadcast_to"]
