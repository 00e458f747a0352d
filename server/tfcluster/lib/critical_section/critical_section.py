"""tf.CriticalSection in graph mode, as TF 1.15 builds it: execute(fn) takes the section's
mutex (MutexLock), builds fn with a control dependency on the lock, and gives the mutex back
(ConsumeMutexLock) once fn's results are computed; the results come out after that.

Executions that touch the same variables from different critical sections are refused when
either asked for exclusive resource access (TF's check, over the graph's executions).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    get_default_graph,
    name_scope,
)
from tfcluster.ops import array_ops, control_flow_ops, mutex_ops, nest
from tfcluster.ops.variables import Variable

CRITICAL_SECTIONS = "critical_sections"
CRITICAL_SECTION_EXECUTIONS = "critical_section_executions"

_ExecutionSignature = collections.namedtuple(
    "_ExecutionSignature", ("op", "handle", "resources", "exclusive_resource_access")
)
_VARIABLE_OPS = ("VariableV2", "VarHandleOp", "MutexV2")


def _identity(x: Any) -> Any:
    if isinstance(x, Operation):
        return control_flow_ops.group(x)
    if isinstance(x, Variable):
        return array_ops.identity(x.value())
    return array_ops.identity(x)


class CriticalSection:
    """A section of the graph that at most one step runs at a time."""

    def __init__(
        self,
        name: str | None = None,
        shared_name: str | None = None,
        critical_section_def: Any = None,
        import_scope: str | None = None,
    ) -> None:
        if critical_section_def is not None:
            raise ValueError("critical_section_def is not supported by tfcluster's CriticalSection")
        with name_scope(name, "CriticalSection", []) as scope:
            op_name = scope[:-1] if scope.endswith("/") else scope
            if shared_name is None:
                shared_name = op_name
            # The op takes the scope's name itself ("cs", not "cs/cs"), as TF names it.
            self._handle = mutex_ops.mutex_v2(shared_name=shared_name, name=scope)
        get_default_graph().add_to_collection(CRITICAL_SECTIONS, self)

    @property
    def name(self) -> str:
        return self._handle.op.name

    def execute(
        self, fn: Callable[[], Any], exclusive_resource_access: bool = True, name: str | None = None
    ) -> Any:
        """fn(), run while holding the section's mutex; its results."""
        graph = get_default_graph()
        with name_scope(name, "critical_section_execute", []):
            with colocate_with(self._handle):
                lock = mutex_ops.mutex_lock(self._handle)
            existing = len(graph.get_operations())
            with control_dependencies([lock]):
                r = fn()
            created = graph.get_operations()[existing:]
            if any(self._handle in op.inputs for op in created):
                raise ValueError(
                    "The function fn attempts to directly access the CriticalSection in which "
                    "it would be running.  This is illegal and would cause deadlocks."
                )
            resources = _accessed_resources(created)
            self._check_multiple_access_to_resources(resources, exclusive_resource_access)
            flat = nest.flatten(r)
            r_flat = [_identity(x) for x in flat]
            with control_dependencies(r_flat):
                with colocate_with(self._handle):
                    ensure_lock_exists = mutex_ops.consume_mutex_lock(lock)
                tensors = [x for x in r_flat if isinstance(x, Tensor)]
                joined = iter(control_flow_ops.tuple_(tensors)) if tensors else iter(())
                r_flat = [next(joined) if isinstance(x, Tensor) else x for x in r_flat]
            with control_dependencies([ensure_lock_exists]):
                outputs = [_identity(x) for x in r_flat]
            graph.add_to_collection(
                CRITICAL_SECTION_EXECUTIONS,
                _ExecutionSignature(lock.op, self._handle, resources, exclusive_resource_access),
            )
        if r is None:
            return None
        return nest.pack_sequence_as(r, outputs)

    def _check_multiple_access_to_resources(
        self, resources: frozenset[Tensor], exclusive_resource_access: bool
    ) -> None:
        for sg in get_default_graph().get_collection(CRITICAL_SECTION_EXECUTIONS):
            if sg.handle is self._handle:
                continue  # other executions in this same section are serialised anyway
            if not (exclusive_resource_access or sg.exclusive_resource_access):
                continue
            both = resources.intersection(sg.resources)
            if both:
                raise ValueError(
                    f"This execution would access resources: {sorted(t.name for t in both)}.  "
                    f"Either this lock (CriticalSection: {self._handle}) or lock '{sg}' "
                    f"(CriticalSection: {sg.handle}) requested exclusive resource access of "
                    "this resource.  Did you mean to call execute with keyword argument "
                    "exclusive_resource_access=False?"
                )


def _accessed_resources(created: list[Operation]) -> frozenset[Tensor]:
    """The variables (and other resources) the ops made by fn read or update."""
    found: set[Tensor] = set()
    for op in created:
        stack = list(op.inputs)
        seen: set[Tensor] = set()
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            if t.op.type in _VARIABLE_OPS:
                found.add(t)
            elif t.op.type == "Identity" and t.op not in created:
                stack.extend(t.op.inputs)  # a variable's value read made outside fn
    return frozenset(found)


__all__ = ["CRITICAL_SECTIONS", "CRITICAL_SECTION_EXECUTIONS", "CriticalSection"]
