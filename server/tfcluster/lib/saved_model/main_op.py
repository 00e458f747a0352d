"""The op a SavedModel runs after restoring its variables (TF's saved_model/main_op)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    control_dependencies,
    get_collection,
    get_default_graph,
)


def _tables_initializer() -> Operation:
    from tfcluster.ops.control_flow_ops import group, no_op

    tables = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*tables, name="init_all_tables") if tables else no_op(name="init_all_tables")


def main_op() -> Operation:
    """Initializes the global and local variables and the tables."""
    from tfcluster.ops.control_flow_ops import group
    from tfcluster.ops.variables import global_variables_initializer, local_variables_initializer

    return group(
        global_variables_initializer(), local_variables_initializer(), _tables_initializer()
    )


def main_op_with_restore(restore_op_name: Any) -> Operation:
    """main_op, then the restore op (named or given)."""
    from tfcluster.ops.control_flow_ops import group

    with control_dependencies([main_op()]):
        restore = (
            get_default_graph().as_graph_element(restore_op_name)
            if isinstance(restore_op_name, str)
            else restore_op_name
        )
        return group(restore)
