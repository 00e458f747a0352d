"""Scatter ops: updates of variables at rows (tf.scatter_update/add/sub/mul/div/max/min) or
at n-d indices (tf.scatter_nd_update/add/sub), and the functional tensor_scatter_* ops that
return a new tensor. Op types, attrs, defaults and node names follow TF 1.15's state_ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import index_tensor, shape_list
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.state_ops import _ref_of


def _check_rows_updates(ref: TensorShape, indices: TensorShape, updates: TensorShape) -> None:
    """updates.shape must be indices.shape + ref.shape[1:] (or a scalar)."""
    r, i, up = shape_list(ref), shape_list(indices), shape_list(updates)
    if r is None or i is None or up is None or not up:
        return
    want = TensorShape(i + r[1:])
    if not want.is_compatible_with(updates):
        raise ValueError(
            f"Shapes must be equal rank, or updates.shape must be indices.shape + "
            f"ref.shape[1:]: ref {ref}, indices {indices}, updates {updates}"
        )


def _check_nd_updates(ref: TensorShape, indices: TensorShape, updates: TensorShape) -> None:
    r, i, up = shape_list(ref), shape_list(indices), shape_list(updates)
    if r is None or i is None or up is None or not i or i[-1] is None:
        return
    depth = i[-1]
    if depth > len(r):
        raise ValueError(
            f"The last dimension of indices ({depth}) must be at most the rank of the "
            f"updated tensor ({len(r)}): indices {indices}, tensor {ref}"
        )
    want = TensorShape(i[:-1] + r[depth:])
    if not want.is_compatible_with(updates):
        raise ValueError(
            f"updates has shape {updates}, but indices {indices} and the updated tensor {ref} "
            f"require {want}"
        )


def _scatter_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ref, indices, updates = inputs
    _check_rows_updates(ref.shape, indices.shape, updates.shape)
    return [(ref.dtype.base_dtype._as_ref, ref.shape)]


def _scatter_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ref, indices, updates = inputs
    _check_nd_updates(ref.shape, indices.shape, updates.shape)
    return [(ref.dtype.base_dtype._as_ref, ref.shape)]


def _tensor_scatter_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    tensor, indices, updates = inputs
    _check_nd_updates(tensor.shape, indices.shape, updates.shape)
    return [(tensor.dtype.base_dtype, tensor.shape)]


_ROW_MODES = ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min")
_ND_MODES = ("Update", "Add", "Sub")
for _mode in _ROW_MODES:
    op_def_registry.register(
        f"Scatter{_mode}", _scatter_infer, ref_inputs=[0], ref_outputs=True, stateful=True
    )
for _mode in _ND_MODES:
    op_def_registry.register(
        f"ScatterNd{_mode}", _scatter_nd_infer, ref_inputs=[0], ref_outputs=True, stateful=True
    )
    op_def_registry.register(f"TensorScatter{_mode}", _tensor_scatter_infer)


def _variable_scatter(
    op_type: str, ref: Any, indices: Any, updates: Any, use_locking: bool, name: str | None
) -> Tensor:
    if getattr(ref, "_is_resource_variable", False):
        # A resource variable: its ResourceScatter* op, then the variable after it (TF's
        # state_ops: the updates converted first, the indices in the op's name scope).
        op = ref.scatter_op(op_type[len("Scatter") :], indices, updates, name)
        return ref._unread_after(op)  # type: ignore[no-any-return]
    r = _ref_of(ref)
    with name_scope(name, op_type, [r, indices, updates]) as scope:
        i = index_tensor(indices, "indices")
        up = convert_to_tensor(updates, dtype=r.dtype.base_dtype, name="updates")
        attrs = {
            "T": r.dtype.base_dtype,
            "Tindices": i.dtype.base_dtype,
            "use_locking": bool(use_locking),
        }
        return make_op(op_type, [r, i, up], attrs, name=scope).outputs[0]


def scatter_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Tensor:
    """ref[indices, ...] = updates; returns ref after the update."""
    return _variable_scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    """ref[indices, ...] += updates (repeated indices add up)."""
    return _variable_scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterSub", ref, indices, updates, use_locking, name)


def scatter_mul(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterMul", ref, indices, updates, use_locking, name)


def scatter_div(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterDiv", ref, indices, updates, use_locking, name)


def scatter_max(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterMax", ref, indices, updates, use_locking, name)


def scatter_min(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterMin", ref, indices, updates, use_locking, name)


def scatter_nd_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Tensor:
    """ref[indices[..., :]] = updates, indices addressing elements or slices of ref."""
    return _variable_scatter("ScatterNdUpdate", ref, indices, updates, use_locking, name)


def scatter_nd_add(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterNdAdd", ref, indices, updates, use_locking, name)


def scatter_nd_sub(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return _variable_scatter("ScatterNdSub", ref, indices, updates, use_locking, name)


def _tensor_scatter(
    op_type: str, tensor: Any, indices: Any, updates: Any, name: str | None
) -> Tensor:
    with name_scope(name, op_type, [tensor, indices, updates]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        i = index_tensor(indices, "indices")
        up = convert_to_tensor(updates, dtype=t.dtype.base_dtype, name="updates")
        attrs = {"T": t.dtype.base_dtype, "Tindices": i.dtype.base_dtype}
        return make_op(op_type, [t, i, up], attrs, name=scope).outputs[0]


def tensor_scatter_update(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """A copy of `tensor` with the elements or slices at n-d `indices` replaced by updates."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_add(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_sub(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub


__all__ = [
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_sub",
    "scatter_update",
    "tensor_scatter_add",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
    "tensor_scatter_sub",
    "tensor_scatter_update",
]
