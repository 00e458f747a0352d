"""TF 1.15's guard of a variable's initial value against uninitialized dependencies
(variables.py's _try_guard_against_uninitialized_dependencies).

`tf.Variable(v1 * 2.0)` reads v1 in its initial value; global_variables_initializer runs the
initializers in no set order, so TF rewrites the initial value: each variable it reads (one
of the graph's global or local variables) is replaced by its initialized_value() (v1's value
once initialized, else v1's own initial value), and every op between that read and the
initial value is copied onto the replacement, named `<op>_<variable>` (`v1/read_v2`,
`mul_v2`). A graph with a cycle is left as it is, as are ops that already check
initialization, read resource variables or run functions.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, Operation, Tensor

# Ops TF leaves as they are (and does not look through).
_KEPT = frozenset(("IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If"))
_VARIABLE_OPS = frozenset(("Variable", "VariableV2", "VarHandleOp"))
# tfcluster's initialized_value: one op where TF's cond has three on the path it copies.
_INITIALIZED_VALUE = "_InitializedValue"


def guarded(scope: str, initial_value: Tensor, graph: Any) -> Tensor:
    """The initial value with the variables it reads guarded, its copied ops named after the
    variable's scope (`<scope>` ends in "/": the copies are named as given)."""
    if _has_cycle(initial_value.op):
        return initial_value
    return _from_tensor(scope, initial_value, {}, graph)


def _has_cycle(op: Operation) -> bool:
    """Whether the ops initial_value depends on hold a cycle (a loop's NextIteration)."""
    done: set[int] = set()
    on_path: set[int] = set()
    stack: list[tuple[Operation, int]] = [(op, 0)]
    while stack:
        node, i = stack.pop()
        key = id(node)
        if i == 0:
            if key in done:
                continue
            on_path.add(key)
        inputs = node.inputs
        if i < len(inputs):
            stack.append((node, i + 1))
            child = inputs[i].op
            if id(child) in on_path:
                return True
            if id(child) not in done:
                stack.append((child, 0))
            continue
        on_path.discard(key)
        done.add(key)
    return False


def _from_tensor(scope: str, t: Tensor, cache: dict[str, Operation], graph: Any) -> Tensor:
    op = t.op
    new = cache.get(op.name)
    if new is None:
        new = _from_op(scope, op, cache, graph)
        cache[op.name] = new
    return new.outputs[t.value_index]


def _from_op(scope: str, op: Operation, cache: dict[str, Operation], graph: Any) -> Operation:
    if op.type in _KEPT:
        return op
    if op.type in _VARIABLE_OPS:
        value = _initialized_value_of(op, graph)
        return op if value is None else value.op
    inputs = [_from_tensor(scope, t, cache, graph) for t in op.inputs]
    if all(new is old for new, old in zip(inputs, op.inputs)):
        return op
    if op.type == _INITIALIZED_VALUE:
        # Its variable now reads as the guard's initialized value: TF copies the cond's read
        # Switch, read and Merge onto it, which give that very value (the variable's value
        # once initialized, else its initial value); they count towards later op seeds.
        graph._match_tf1_op_count(3)
        return inputs[0].op
    op_type = "Switch" if op.type == "RefSwitch" else op.type
    name = f"{op.name}_{scope}".replace(":", "_")
    return graph.create_op(op_type, inputs, dict(op.attrs), name=name)


def _initialized_value_of(variable_op: Operation, graph: Any) -> Tensor | None:
    """The initialized_value() of the global or local variable whose op this is, or None."""
    names = (variable_op.name, variable_op.name + ":0")
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for var in graph.get_collection(key):
            if getattr(var, "name", None) in names and hasattr(var, "initialized_value"):
                value: Tensor = var.initialized_value()
                return value
    return None
