"""Gradients of TF1's dataflow control-flow ops (Switch, Merge, Enter, Exit, NextIteration,
LoopCond and their Ref forms), which come into tfcluster only with graphs TensorFlow wrote.

TF 1.15 differentiates them through the CondContext / WhileContext its own tf.cond and
tf.while_loop attach to the ops; import_graph_def attaches none, and these are TF's
gradients then (control_flow_grad.py, the branch for ops without a context): a Merge's
gradient switches it by which input the Merge forwarded, a Switch's merges the gradients of
its two outputs, a NextIteration passes it on. A while loop cannot be differentiated without
its context: TF 1.15 raises AttributeError, and so does tfcluster. (import_meta_graph raises
the loops its while_context collection names to functional Whiles, framework/v1_loop_lift.py,
which are differentiated as tfcluster's own.)
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor, name_scope
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import math_ops, raw_op_library

_DATAFLOW_TYPES = frozenset(
    kind + t for kind in ("", "Ref") for t in ("Switch", "Merge", "Enter", "Exit", "NextIteration")
) | {"LoopCond"}


def is_dataflow_op(op: Operation) -> bool:
    return op.type in _DATAFLOW_TYPES


def _switch(data: Tensor, pred: Tensor) -> Any:
    with name_scope(None, "Switch", [data, pred]) as scope:
        return raw_op_library.raw_op_function("Switch")(data=data, pred=pred, name=scope)


def _switch_grad(op: Operation, *grads: Any) -> list[Any]:
    """Merges the false output's gradient, switched to the false side, with the true
    output's, switched to the true side."""
    if any(g is None for g in grads):
        return [None, None]
    pred = op.inputs[1]
    false_grad = _switch(grads[0], pred)[0]
    true_grad = _switch(grads[1], pred)[1]
    with name_scope(None, "Merge", [false_grad, true_grad]) as scope:
        merged = raw_op_library.raw_op_function("Merge")(inputs=[false_grad, true_grad], name=scope)
    return [merged[0], None]


def _merge_grad(op: Operation, grad: Any, _: Any = None) -> list[Any]:
    """Input i gets the gradient where the Merge forwarded input i (dead elsewhere)."""
    if grad is None:
        return [None] * len(op.inputs)
    taken = [math_ops.equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [_switch(grad, t)[1] for t in taken]


def _next_iteration_grad(op: Operation, grad: Any) -> list[Any]:
    return [grad]


def _loop_cond_grad(op: Operation, grad: Any) -> list[Any]:
    return [None]  # the loop's predicate stops backprop


def _while_context_missing(op: Operation, *grads: Any) -> list[Any]:
    raise AttributeError(no_while_context_message(op))


def no_while_context_message(op: Operation) -> str:
    return (
        f"Cannot differentiate the v1 while loop of {op.name} ({op.type}): TF 1.15 builds its "
        "gradient from the loop's WhileContext, which a graph imported from a GraphDef does not "
        "carry (TF raises AttributeError there too). Import the MetaGraph with its "
        "while_context collection instead (tf.train.import_meta_graph): tfcluster "
        "differentiates the loops it names."
    )


for _kind in ("", "Ref"):
    RegisterGradient(f"{_kind}Switch")(_switch_grad)
    RegisterGradient(f"{_kind}Merge")(_merge_grad)
    RegisterGradient(f"{_kind}NextIteration")(_next_iteration_grad)
    RegisterGradient(f"{_kind}Enter")(_while_context_missing)
    RegisterGradient(f"{_kind}Exit")(_while_context_missing)
RegisterGradient("LoopCond")(_loop_cond_grad)
