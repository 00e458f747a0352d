"""Gradients of the Python-function ops: py_func and numpy_function have none (TF1 programs
override them with gradient_override_map); py_function's differentiates the TF ops its
function ran eagerly, as TF's tape does."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import py_func_registry
from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients import gradients_impl
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import script_ops

not_differentiable("PyFunc")
not_differentiable("PyFuncStateless")


@RegisterGradient("EagerPyFunc")
def _eager_py_func_grad(op: Operation, *dy: Tensor) -> Any:
    token = str(op._get_attr("token"))
    py_func_registry.record_calls(token)

    def eagerly_executed_grad(*dys: Any) -> list[Any]:
        found = py_func_registry.tape_cache.pop(token, None)
        if found is None:
            raise ValueError(
                f"The gradient of py_function {token} runs only after the function itself ran "
                "in the same step"
            )
        graph, inputs, outputs = found
        with graph.as_default():
            grad_ys = [graph.constant(d.numpy(), o.dtype) for d, o in zip(dys, outputs)]
            return gradients_impl.gradients(outputs, inputs, grad_ys=grad_ys)

    with control_dependencies(op.outputs):
        return script_ops.internal_py_func(
            eagerly_executed_grad,
            list(dy),
            [t.dtype for t in op.inputs],
            eager=True,
            is_grad_func=True,
        )
