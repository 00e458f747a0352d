"""The graph's resources (GraphKeys.RESOURCES / LOCAL_RESOURCES): objects with a `create` op,
an `is_initialized` tensor and a `handle`, as TF1's ops/resources.py keeps them. Scaffold's
default init and ready ops initialise and check them beside the variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from tfcluster.framework import dtypes
from tfcluster.framework.graph import GraphKeys, Operation, Tensor, get_default_graph, name_scope
from tfcluster.ops import array_ops, constant_op, math_ops
from tfcluster.ops.control_flow_ops import group, no_op


class Resource(NamedTuple):
    handle: Any
    create: Any
    is_initialized: Any


def register_resource(
    handle: Any, create_op: Any, is_initialized_op: Any, is_shared: bool = True
) -> None:
    key = GraphKeys.RESOURCES if is_shared else GraphKeys.LOCAL_RESOURCES
    get_default_graph().add_to_collection(key, Resource(handle, create_op, is_initialized_op))


def shared_resources() -> list[Any]:
    return get_default_graph().get_collection(GraphKeys.RESOURCES)


def local_resources() -> list[Any]:
    return get_default_graph().get_collection(GraphKeys.LOCAL_RESOURCES)


def initialize_resources(resource_list: Sequence[Any], name: str = "init") -> Operation:
    """One op creating every resource of the list (a NoOp for none)."""
    if resource_list:
        return group(*[r.create for r in resource_list], name=name)
    return no_op(name=name)


def report_uninitialized_resources(
    resource_list: Sequence[Any] | None = None, name: str = "report_uninitialized_resources"
) -> Tensor:
    """The names of the resources not initialized yet (1-D string)."""
    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with name_scope(name):
        if not resource_list:
            return constant_op.constant([], dtype=dtypes.string)
        not_initialized = math_ops.logical_not(
            array_ops.stack([r.is_initialized for r in resource_list])
        )
        names = constant_op.constant([r.handle.name for r in resource_list])
        return array_ops.boolean_mask(names, not_initialized)


__all__ = [
    "Resource",
    "initialize_resources",
    "local_resources",
    "register_resource",
    "report_uninitialized_resources",
    "shared_resources",
]
