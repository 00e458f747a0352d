"""Slot variables: per-variable optimizer state, colocated with (so on the same ps as) the
variable it belongs to, named '<var>/<OptimizerName>' then '<var>/<OptimizerName>_1', ..."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import GraphKeys, colocate_with, convert_to_tensor
from tfcluster.ops import array_ops
from tfcluster.ops.variables import Variable


def create_slot(primary: Any, val: Any, name: str, colocate_with_primary: bool = True) -> Any:
    """A non-trainable variable initialised to `val`, named after `primary` and `name`."""
    graph = primary.graph
    with graph.as_default(), graph.name_scope(None):
        scope_name = f"{primary.op.name}/{name}"
        if colocate_with_primary:
            with colocate_with(primary.op):
                return Variable(
                    val,
                    name=scope_name,
                    trainable=False,
                    collections=[GraphKeys.GLOBAL_VARIABLES],
                )
        return Variable(val, name=scope_name, trainable=False)


def create_slot_with_initializer(
    primary: Any,
    initializer: Any,
    shape: Any,
    dtype: Any,
    name: str,
    colocate_with_primary: bool = True,
) -> Any:
    """Like create_slot, with the initial value made by `initializer(shape, dtype)`."""
    dt = dtypes.as_dtype(dtype).base_dtype

    def initial_value() -> Any:
        return initializer(shape, dtype=dt)

    return create_slot(primary, initial_value, name, colocate_with_primary)


def create_zeros_slot(
    primary: Any, name: str, dtype: Any = None, colocate_with_primary: bool = True
) -> Any:
    dt = dtypes.as_dtype(dtype or primary.dtype).base_dtype
    shape = primary.get_shape()
    if not shape.is_fully_defined():
        raise ValueError(
            f"Cannot create a zeros slot for '{primary.op.name}': its shape {shape} is not fully "
            "defined"
        )

    def zeros() -> Any:
        return array_ops.fill(shape.as_list(), convert_to_tensor(0, dtype=dt), name="zeros")

    return create_slot(primary, zeros, name, colocate_with_primary)


def constant_initializer(value: float) -> Any:
    """initializer(shape, dtype) -> a Fill of `value`: small in the GraphDef at any size."""

    def init(shape: Any, dtype: Any = None) -> Any:
        dt = dtypes.as_dtype(dtype)
        return array_ops.fill(list(shape), convert_to_tensor(value, dtype=dt))

    return init


__all__ = ["create_slot", "create_slot_with_initializer", "create_zeros_slot"]
