"""Variable ops: VariableV2, Assign*, IsVariableInitialized (TF1 reference semantics)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _variable_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"]._as_ref, TensorShape(attrs["shape"]))]


def _assign_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ref, value = inputs
    shape = ref.shape if attrs.get("validate_shape", True) else value.shape
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise ValueError(
            f"Shapes must be equal rank, but are {ref.shape} and {value.shape} for Assign to "
            f"'{ref.op.name}'"
        )
    return [(ref.dtype.base_dtype._as_ref, shape)]


def _assign_update_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ref, value = inputs
    if not ref.shape.is_compatible_with(value.shape) and value.shape.ndims != 0:
        raise ValueError(f"Shapes {ref.shape} and {value.shape} are incompatible")
    return [(ref.dtype.base_dtype._as_ref, ref.shape)]


op_def_registry.register("VariableV2", _variable_infer, ref_outputs=True, stateful=True)
op_def_registry.register("Assign", _assign_infer, ref_inputs=[0], ref_outputs=True, stateful=True)
op_def_registry.register(
    "AssignAdd", _assign_update_infer, ref_inputs=[0], ref_outputs=True, stateful=True
)
op_def_registry.register(
    "AssignSub", _assign_update_infer, ref_inputs=[0], ref_outputs=True, stateful=True
)
op_def_registry.register(
    "IsVariableInitialized",
    lambda inputs, attrs: [(dtypes.bool_, TensorShape([]))],
    ref_inputs=[0],
    stateful=True,
)
op_def_registry.register(
    "CountUpTo",
    lambda inputs, attrs: [(inputs[0].dtype.base_dtype, TensorShape([]))],
    ref_inputs=[0],
    stateful=True,
)
op_def_registry.register(
    "_InitializedValue",
    lambda inputs, attrs: [(inputs[1].dtype.base_dtype, inputs[0].shape)],
    ref_inputs=[0],
    stateful=True,
)


def variable_op_v2(
    shape: Any, dtype: Any, name: str = "Variable", container: str = "", shared_name: str = ""
) -> Tensor:
    attrs = {
        "shape": TensorShape(shape),
        "dtype": dtypes.as_dtype(dtype).base_dtype,
        "container": container,
        "shared_name": shared_name,
    }
    return make_op("VariableV2", [], attrs, name=name).outputs[0]


def _ref_of(ref: Any) -> Tensor:
    if hasattr(ref, "_ref") and callable(ref._ref):
        return ref._ref()  # type: ignore[no-any-return]
    if isinstance(ref, Tensor) and ref.dtype.is_ref_dtype:
        return ref
    raise TypeError(
        f"'{getattr(ref, 'name', ref)}' needs to be a reference (a tf.Variable), which it is not"
    )


def _is_reference(ref: Any) -> bool:
    return (hasattr(ref, "_ref") and callable(ref._ref)) or (
        isinstance(ref, Tensor) and ref.dtype.is_ref_dtype
    )


def _value_for(ref: Tensor, value: Any) -> Tensor:
    try:
        # Named after Assign's input, inside its scope ('Assign/value'), as TF's op_def_library.
        return convert_to_tensor(value, dtype=ref.dtype.base_dtype, name="value")
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Cannot assign {value!r} to variable '{ref.op.name}' of dtype "
            f"{ref.dtype.base_dtype.name}: {e}"
        ) from None


def assign(
    ref: Any,
    value: Any,
    validate_shape: bool | None = None,
    use_locking: bool | None = None,
    name: str | None = None,
) -> Tensor:
    # None (TF's default) leaves the op's attrs at their defaults: both True.
    validate_shape = True if validate_shape is None else validate_shape
    use_locking = True if use_locking is None else use_locking
    if _is_resource(ref) or not _is_reference(ref):
        # TF 1.15 hands anything else to its own assign: a variable slice's makes a
        # StridedSliceAssign; a plain tensor has none (AttributeError).
        return ref.assign(value, name=name)  # type: ignore[no-any-return]
    r = _ref_of(ref)

    with name_scope(name, "Assign", [r]) as scope:
        v = _value_for(r, value)
        attrs = {
            "T": r.dtype.base_dtype,
            "validate_shape": validate_shape,
            "use_locking": use_locking,
        }
        return make_op("Assign", [r, v], attrs, name=scope).outputs[0]


def _is_resource(ref: Any) -> bool:
    """A resource variable, or a variable object whose dtype is not a ref (a distributed
    variable of resource variables): TF's state_ops functions call its own methods."""
    if getattr(ref, "_is_resource_variable", False):
        return True
    dtype = getattr(ref, "dtype", None)
    return hasattr(ref, "assign_add") and dtype is not None and not dtype.is_ref_dtype


def _update(op_type: str, ref: Any, value: Any, use_locking: bool, name: str | None) -> Tensor:
    if _is_resource(ref):
        method = ref.assign_add if op_type == "AssignAdd" else ref.assign_sub
        return method(value, name=name)  # type: ignore[no-any-return]
    if not _is_reference(ref):
        # TF 1.15 calls the object's own method, without the name (a Tensor has none).
        method = ref.assign_add if op_type == "AssignAdd" else ref.assign_sub
        return method(value)  # type: ignore[no-any-return]
    r = _ref_of(ref)

    # The value is made inside the op's scope, so it reads 'AssignAdd_1/value' (as in TF).
    with name_scope(name, op_type, [r]) as scope:
        v = (
            convert_to_tensor(value, dtype=r.dtype.base_dtype, name="value")
            if not isinstance(value, Tensor)
            else _value_for(r, value)
        )
        attrs = {"T": r.dtype.base_dtype, "use_locking": use_locking}
        return make_op(op_type, [r, v], attrs, name=scope).outputs[0]


# use_locking None (TF's default) leaves the op's attr at its default, False.
def assign_add(
    ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    return _update("AssignAdd", ref, value, bool(use_locking), name)


def assign_sub(
    ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    return _update("AssignSub", ref, value, bool(use_locking), name)


def is_variable_initialized(ref: Any, name: str | None = None) -> Tensor:
    # As TF's: a variable whose dtype is not a ref (a resource variable, or a MirroredVariable
    # of resource variables) answers with its own is_initialized().
    if _is_resource(ref) or (hasattr(ref, "is_initialized") and not ref.dtype.is_ref_dtype):
        return ref.is_initialized(name=name)  # type: ignore[no-any-return]
    r = _ref_of(ref)
    return make_op(
        "IsVariableInitialized",
        [r],
        {"dtype": r.dtype.base_dtype},
        name=name or "IsVariableInitialized",
    ).outputs[0]


def count_up_to(ref: Any, limit: int, name: str | None = None) -> Tensor:
    """Adds one to a scalar int variable and returns its value before, until it reaches
    `limit`: from then on the op raises OutOfRangeError (how num_epochs ends input)."""
    internal_deprecations.called_internally(internal_deprecations.COUNT_UP_TO, 2)
    r = _ref_of(ref)
    if r.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"Value passed to parameter 'ref' has DataType {r.dtype.base_dtype.name} not in "
            "list of allowed values: int32, int64"
        )
    attrs = {"T": r.dtype.base_dtype, "limit": int(limit)}
    return make_op("CountUpTo", [r], attrs, name=name or "CountUpTo").outputs[0]
