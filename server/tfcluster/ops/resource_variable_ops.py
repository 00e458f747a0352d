"""The resource variables' ops (TF's resource_variable_ops): a VarHandleOp names a variable in
its task's resource manager; ReadVariableOp, AssignVariableOp, the gathers and scatters take
that handle. Their definitions with TF 1.15's shape and dtype inference; kernels in
kernels/resource_variables.py, the ResourceApply* updates in ops/training_ops.py.

Every input taking a handle is a `ref_inputs` position: the op is placed with the VarHandleOp
(TF's placer colocates resource edges), so a worker's read of a ps variable runs on the ps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.resource_handles import check_handle, handle_dtype, handle_shape

_SCALAR = TensorShape([])


def _var_handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, _SCALAR)]


def _check_dtype(handle: Tensor, dtype: Any, op_type: str) -> None:
    """TF's shape functions compare the dtype with the handle's (its VarHandleOp's)."""
    have = handle_dtype(handle)
    want = dtypes.as_dtype(dtype).base_dtype
    if have is not None and have != want:
        raise ValueError(
            f"Trying to read variable with wrong dtype. Expected {have.name} got {want.name} "
            f"for '{op_type}'"
        )


def _read_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    check_handle(inputs[0], "ReadVariableOp", "resource")
    _check_dtype(inputs[0], attrs["dtype"], "ReadVariableOp")
    return [(dtypes.as_dtype(attrs["dtype"]), handle_shape(inputs[0]))]


def _assign_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        handle, value = inputs
        check_handle(handle, op_type, "resource")
        _check_dtype(handle, value.dtype, op_type)
        shape = handle_shape(handle)
        if not shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Shapes must be equal rank, but are {shape.ndims} and {value.shape.ndims} for "
                f"'{op_type}' with input shapes: [], {value.shape}."
                if shape.ndims != value.shape.ndims
                else f"Dimensions of {shape} and {value.shape} are not compatible for '{op_type}'"
            )
        return []

    return infer


def _gather_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    handle, indices = inputs
    check_handle(handle, "ResourceGather", "resource")
    dtype = dtypes.as_dtype(attrs["dtype"])
    params = handle_shape(handle)
    batch_dims = int(attrs.get("batch_dims", 0))
    if params.ndims is None or indices.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    if params.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for 'ResourceGather'")
    p, i = params.as_list(), indices.shape.as_list()
    return [(dtype, TensorShape(p[:batch_dims] + i[batch_dims:] + p[batch_dims + 1 :]))]


def _gather_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    handle, indices = inputs
    check_handle(handle, "ResourceGatherNd", "resource")
    dtype = dtypes.as_dtype(attrs["dtype"])
    params = handle_shape(handle)
    i = indices.shape
    if params.ndims is None or i.ndims is None or i.as_list()[-1] is None:
        return [(dtype, TensorShape(None))]
    depth = i.as_list()[-1]
    return [(dtype, TensorShape(i.as_list()[:-1] + params.as_list()[depth:]))]


def _no_outputs_on(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        check_handle(inputs[0], op_type, "resource")
        return []

    return infer


def _shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    check_handle(inputs[0], "VariableShape", "input")
    rank = handle_shape(inputs[0]).ndims
    out_type = dtypes.as_dtype(attrs.get("out_type", dtypes.int32))
    return [(out_type, TensorShape([rank]))]


def _count_up_to_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    check_handle(inputs[0], "ResourceCountUpTo", "resource")
    return [(dtypes.as_dtype(attrs["T"]), _SCALAR)]


op_def_registry.register("VarHandleOp", _var_handle_infer, stateful=True)
op_def_registry.register("ReadVariableOp", _read_infer, ref_inputs=[0], stateful=True)
for _op in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
    op_def_registry.register(_op, _assign_infer(_op), ref_inputs=[0], stateful=True)
op_def_registry.register(
    "VarIsInitializedOp",
    lambda inputs, attrs: [(dtypes.bool_, _SCALAR)],
    ref_inputs=[0],
    stateful=True,
)
op_def_registry.register("VariableShape", _shape_infer, ref_inputs=[0], stateful=True)
op_def_registry.register(
    "DestroyResourceOp", lambda inputs, attrs: [], ref_inputs=[0], stateful=True
)
op_def_registry.register("ResourceGather", _gather_infer, ref_inputs=[0], stateful=True)
op_def_registry.register("ResourceGatherNd", _gather_nd_infer, ref_inputs=[0], stateful=True)
for _mode in ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min"):
    _op = f"ResourceScatter{_mode}"
    op_def_registry.register(_op, _no_outputs_on(_op), ref_inputs=[0], stateful=True)
for _mode in ("Update", "Add", "Sub"):
    _op = f"ResourceScatterNd{_mode}"
    op_def_registry.register(_op, _no_outputs_on(_op), ref_inputs=[0], stateful=True)
op_def_registry.register(
    "ResourceStridedSliceAssign",
    _no_outputs_on("ResourceStridedSliceAssign"),
    ref_inputs=[0],
    stateful=True,
)
op_def_registry.register("ResourceCountUpTo", _count_up_to_infer, ref_inputs=[0], stateful=True)


# ---- the functions a ResourceVariable is built from ------------------------------------------
def var_handle_op(
    dtype: Any, shape: Any, container: str = "", shared_name: str = "", name: str | None = None
) -> Tensor:
    attrs = {
        "dtype": dtypes.as_dtype(dtype).base_dtype,
        "shape": TensorShape(shape),
        "container": container,
        "shared_name": shared_name,
    }
    return make_op("VarHandleOp", [], attrs, name=name or "VarHandleOp").outputs[0]


def read_variable_op(handle: Tensor, dtype: Any, name: str | None = None) -> Tensor:
    attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype}
    return make_op("ReadVariableOp", [handle], attrs, name=name or "ReadVariableOp").outputs[0]


def assign_op(op_type: str, handle: Tensor, value: Any, name: str | None = None) -> Operation:
    """AssignVariableOp / AssignAddVariableOp / AssignSubVariableOp of `value`, converted to
    the handle's dtype where graph construction knows it."""
    dtype = handle_dtype(handle) or getattr(value, "dtype", None)
    value = convert_to_tensor(value, dtype=dtype, name="value")
    attrs = {"dtype": value.dtype.base_dtype}
    return make_op(op_type, [handle, value], attrs, name=name or op_type)


def var_is_initialized_op(handle: Tensor, name: str | None = None) -> Tensor:
    return make_op("VarIsInitializedOp", [handle], {}, name=name or "VarIsInitializedOp").outputs[0]


def resource_gather(
    handle: Tensor, indices: Any, dtype: Any, batch_dims: int = 0, name: str | None = None
) -> Tensor:
    indices = convert_to_tensor(indices, name="indices")
    attrs = {
        "dtype": dtypes.as_dtype(dtype).base_dtype,
        "Tindices": indices.dtype.base_dtype,
        "batch_dims": batch_dims,
        "validate_indices": True,
    }
    return make_op(
        "ResourceGather", [handle, indices], attrs, name=name or "ResourceGather"
    ).outputs[0]


__all__ = [
    "assign_op",
    "read_variable_op",
    "resource_gather",
    "var_handle_op",
    "var_is_initialized_op",
]
