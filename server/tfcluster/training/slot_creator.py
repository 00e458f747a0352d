"""Slot variables: per-variable optimizer state, colocated with (so on the same ps as) the
variable it belongs to. As in TF they are made with tf.get_variable in a variable scope
'<var>/<OptimizerName>' (unique: then '<var>/<OptimizerName>_1', ...), and a slot of a shard
of a partitioned variable is a shard of the partitioned slot '<full name>/<slot>'."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import colocate_with, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, init_ops, variable_scope
from tfcluster.ops.variables import SaveSliceInfo, is_resource_variable
from tfcluster.training import distribution_context


def _colocated(primary: Any) -> Any:
    """Where a slot is made: with its variable; under a tf.distribute strategy, as the
    strategy colocates variables (a mirrored variable's slot is mirrored on its devices)."""
    ctx = distribution_context.current()
    if ctx is not None:
        return ctx.strategy.extended.colocate_vars_with(primary)
    return colocate_with(primary)


def _create_slot_var(
    primary: Any, val: Any, scope: str, validate_shape: bool, shape: Any, dtype: Any
) -> Any:
    # A partitioner in force must not split the slot: it follows the primary's shards.
    current = variable_scope.get_variable_scope()
    partitioner = current.partitioner
    current.set_partitioner(None)
    try:
        slot = variable_scope.get_variable(
            scope,
            initializer=val,
            trainable=False,
            shape=shape if callable(val) else None,
            dtype=dtype,
            validate_shape=validate_shape,
            # A resource variable's slots are resource variables (TF's slot_creator).
            use_resource=is_resource_variable(primary),
        )
    finally:
        current.set_partitioner(partitioner)
    info = primary._get_save_slice_info() if hasattr(primary, "_get_save_slice_info") else None
    if info is not None:
        real_slot_name = slot.name[len(primary.op.name + "/") : -2]
        slot._set_save_slice_info(
            SaveSliceInfo(
                info.full_name + "/" + real_slot_name,
                info.full_shape[:],
                info.var_offset[:],
                info.var_shape[:],
            )
        )
    return slot


def create_slot(primary: Any, val: Any, name: str, colocate_with_primary: bool = True) -> Any:
    """A non-trainable variable initialised to the tensor `val`, named after `primary`."""
    val = convert_to_tensor(val)
    validate_shape = val.get_shape().is_fully_defined()
    with (
        primary.graph.as_default(),
        variable_scope.variable_scope(None, primary.op.name + "/" + name),
    ):
        if colocate_with_primary:
            with _colocated(primary):
                return _create_slot_var(primary, val, "", validate_shape, None, None)
        return _create_slot_var(primary, val, "", validate_shape, None, None)


def create_slot_with_initializer(
    primary: Any,
    initializer: Any,
    shape: Any,
    dtype: Any,
    name: str,
    colocate_with_primary: bool = True,
) -> Any:
    """Like create_slot, with the initial value made by `initializer(shape, dtype)`."""
    shape = TensorShape(shape)
    dtype = dtypes.as_dtype(dtype).base_dtype
    validate_shape = shape.is_fully_defined()
    with (
        primary.graph.as_default(),
        variable_scope.variable_scope(None, primary.op.name + "/" + name),
    ):
        if colocate_with_primary:
            with _colocated(primary):
                return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)
        return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)


def create_zeros_slot(
    primary: Any, name: str, dtype: Any = None, colocate_with_primary: bool = True
) -> Any:
    dt = dtypes.as_dtype(dtype or primary.dtype).base_dtype
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot_with_initializer(
            primary, init_ops.zeros_initializer(dt), shape, dt, name, colocate_with_primary
        )
    if hasattr(primary, "initialized_value"):
        internal_deprecations.called_internally(internal_deprecations.INITIALIZED_VALUE)
        value = primary.initialized_value()
    else:
        value = primary
    zeros = array_ops.zeros(array_ops.shape(value), dtype=dt)
    return create_slot(primary, zeros, name, colocate_with_primary)


def constant_initializer(value: float) -> Any:
    """initializer(shape, dtype) -> a Fill of `value`: small in the GraphDef at any size."""

    def init(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        dt = dtypes.as_dtype(dtype)
        return array_ops.fill(list(shape), convert_to_tensor(value, dtype=dt))

    return init


__all__ = ["create_slot", "create_slot_with_initializer", "create_zeros_slot"]
