"""The graph's table initializers (TABLE_INITIALIZERS), run by the default local init ops of
Scaffold and Supervisor."""

from __future__ import annotations

from tfcluster.framework.graph import GraphKeys, Operation, get_default_graph
from tfcluster.ops.control_flow_ops import group, no_op


def tables_initializer(name: str = "init_all_tables") -> Operation:
    """One op that runs every table initializer of the graph (a NoOp when there is none)."""
    initializers = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


__all__ = ["tables_initializer"]
