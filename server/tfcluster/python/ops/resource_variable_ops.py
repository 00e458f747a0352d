"""tensorflow.python.ops.resource_variable_ops, as TF1 programs import it
(`resource_variable_ops.ResourceVariable(...)`, `is_resource_variable(v)`): resource variables
and the generated wrappers of their ops (positional arguments, as TF's gen_ wrappers take
them). A name of TF's module tfcluster lacks raises UnimplementedError naming it."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, errors
from tfcluster.ops.resource_variable import ResourceVariable
from tfcluster.ops.variables import is_resource_variable

BaseResourceVariable = ResourceVariable
_MODULE = "tensorflow.python.ops.resource_variable_ops"


def _raw(op_type: str) -> Any:
    import tfcluster

    return getattr(tfcluster.raw_ops, op_type)


def var_handle_op(
    dtype: Any, shape: Any, container: str = "", shared_name: str = "", name: str | None = None
) -> Any:
    return _raw("VarHandleOp")(
        dtype=dtype, shape=shape, container=container, shared_name=shared_name, name=name
    )


def read_variable_op(resource: Any, dtype: Any, name: str | None = None) -> Any:
    return _raw("ReadVariableOp")(resource=resource, dtype=dtype, name=name)


def assign_variable_op(resource: Any, value: Any, name: str | None = None) -> Any:
    return _raw("AssignVariableOp")(resource=resource, value=value, name=name)


def assign_add_variable_op(resource: Any, value: Any, name: str | None = None) -> Any:
    return _raw("AssignAddVariableOp")(resource=resource, value=value, name=name)


def assign_sub_variable_op(resource: Any, value: Any, name: str | None = None) -> Any:
    return _raw("AssignSubVariableOp")(resource=resource, value=value, name=name)


def var_is_initialized_op(resource: Any, name: str | None = None) -> Any:
    return _raw("VarIsInitializedOp")(resource=resource, name=name)


def resource_gather(
    resource: Any,
    indices: Any,
    dtype: Any,
    batch_dims: int = 0,
    validate_indices: bool = True,
    name: str | None = None,
) -> Any:
    return _raw("ResourceGather")(
        resource=resource,
        indices=indices,
        dtype=dtype,
        batch_dims=batch_dims,
        validate_indices=validate_indices,
        name=name,
    )


def variable_shape(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Any:
    return _raw("VariableShape")(input=input, out_type=out_type, name=name)


def destroy_resource_op(
    resource: Any, ignore_lookup_error: bool = True, name: str | None = None
) -> Any:
    return _raw("DestroyResourceOp")(
        resource=resource, ignore_lookup_error=ignore_lookup_error, name=name
    )


def _scatter(op_type: str) -> Any:
    """TF's generated wrapper of a resource scatter op: (resource, indices, updates, name)."""

    def wrapper(resource: Any, indices: Any, updates: Any, name: str | None = None) -> Any:
        return _raw(op_type)(resource=resource, indices=indices, updates=updates, name=name)

    wrapper.__name__ = wrapper.__qualname__ = (
        "resource_scatter_" + op_type[len("ResourceScatter") :].lower()
    )
    return wrapper


resource_scatter_add = _scatter("ResourceScatterAdd")
resource_scatter_sub = _scatter("ResourceScatterSub")
resource_scatter_mul = _scatter("ResourceScatterMul")
resource_scatter_div = _scatter("ResourceScatterDiv")
resource_scatter_min = _scatter("ResourceScatterMin")
resource_scatter_max = _scatter("ResourceScatterMax")
resource_scatter_update = _scatter("ResourceScatterUpdate")


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise errors.UnimplementedError(None, None, f"{_MODULE}.{name} is not implemented in tfcluster")


__all__ = [
    "BaseResourceVariable",
    "ResourceVariable",
    "assign_add_variable_op",
    "assign_sub_variable_op",
    "assign_variable_op",
    "destroy_resource_op",
    "is_resource_variable",
    "read_variable_op",
    "resource_gather",
    "resource_scatter_add",
    "resource_scatter_div",
    "resource_scatter_max",
    "resource_scatter_min",
    "resource_scatter_mul",
    "resource_scatter_sub",
    "resource_scatter_update",
    "var_handle_op",
    "var_is_initialized_op",
    "variable_shape",
]
