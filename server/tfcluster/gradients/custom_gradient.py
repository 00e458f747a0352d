"""tf.custom_gradient, tf.grad_pass_through and tf.recompute_grad, as TF 1.15 builds them in
graph mode.

The decorated function runs once, forward; its outputs, its inputs and the variables its
outputs depend on go through one IdentityN op whose gradient is overridden (with
gradient_override_map, TF's own mechanism) by a gradient function registered under a fresh
name "CustomGradient-<uid>": that function calls the user's grad_fn.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import logging
from collections.abc import Callable
from typing import Any

from tfcluster.framework.func_graph import flatten, pack_as
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
)
from tfcluster.gradients import registry
from tfcluster.ops import array_ops, variable_scope
from tfcluster.ops.array_extras import identity_n

_log = logging.getLogger("tensorflow")
_uid = itertools.count(1)
# Op types whose ops are variables (TF's VAR_OP_TYPES).
_VAR_OP_TYPES = ("VariableV2", "VarHandleOp")


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """f(*x) returns (y, grad_fn); the decorated function returns y, and tf.gradients
    through it calls grad_fn(*dy) (or grad_fn(*dy, variables=vs) when f reads variables,
    returning (dx, dvs))."""

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return _graph_mode_decorator(f, *args, **kwargs)

    return decorated


def _graph_mode_decorator(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    if kwargs:
        raise ValueError(
            "The custom_gradient decorator currently supports keywords "
            "arguments only when eager execution is enabled."
        )
    name = f"CustomGradient-{next(_uid)}"
    arg_tensors = [convert_to_tensor(x) for x in args]
    scope = variable_scope.get_variable_scope()
    before = {id(v) for v in scope.global_variables() + scope.local_variables()}
    result, grad_fn = f(*arg_tensors)
    created = [v for v in scope.global_variables() + scope.local_variables() if id(v) not in before]
    if any(not getattr(v, "_is_resource_variable", False) for v in created):
        # TF requires ResourceVariables here (use_resource=True makes them).
        raise TypeError(
            "All variables used by a function wrapped with @custom_gradient must "
            "be `ResourceVariable`s. Ensure that no `variable_scope` is created "
            "with `use_resource=False`."
        )
    variables = _dependent_variables(arg_tensors, result)
    params = inspect.signature(grad_fn).parameters
    takes_variables = "variables" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )
    if variables and not takes_variables:
        raise TypeError(
            "If using @custom_gradient with a function that "
            "uses variables, then grad_fn must accept a keyword "
            "argument 'variables'."
        )
    if takes_variables and not variables:
        if not variable_scope.get_variable_scope().use_resource:
            raise TypeError(
                "If using @custom_gradient with a function that "
                "uses variables, the enclosing variable scope must "
                "have use_resource=True."
            )
        _log.warning(
            "@custom_gradient grad_fn has 'variables' in signature, but "
            "no ResourceVariables were used on the forward pass."
        )
    flat_result = flatten(result)
    n_result = len(flat_result)

    def grad(op: Operation, *result_grads: Any) -> list[Any]:
        result_grads = result_grads[:n_result]
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        return [None] * n_result + flatten(input_grads) + list(variable_grads)

    registry.RegisterGradient(name)(grad)
    with get_default_graph().gradient_override_map({"IdentityN": name}):
        passed = identity_n(flat_result + arg_tensors + list(variables))
    return pack_as(result, passed[:n_result])


def _dependent_variables(args: list[Tensor], result: Any) -> list[Any]:
    """The trainable variables between args and result (TF's get_dependent_variables: a
    backward walk from the outputs through differentiable ops, stopping at the args)."""
    # TF walks from an Identity of each output, which it leaves in the graph (op names count it).
    seeds = [array_ops.identity(t).op for t in flatten(result)]
    stop = set(args)
    found: list[Operation] = list(seeds)
    seen = set(found)
    wave = list(seeds)
    while wave:
        new_wave = []
        for op in wave:
            if not _differentiable(op):
                continue
            for t in op.inputs:
                if t in stop or t.op in seen:
                    continue
                seen.add(t.op)
                found.append(t.op)
                new_wave.append(t.op)
        wave = new_wave
    graph = get_default_graph()
    out = []
    for op in found:
        if op.type not in _VAR_OP_TYPES or op in seeds:
            continue
        candidates = [
            v
            for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
            if v.name == f"{op.name}:0" and v.trainable
        ]
        if len(candidates) > 1:
            raise ValueError(
                f"Unsuccessful at finding trainable variable {op.name}. "
                f"Number of candidates: {len(candidates)}. Candidates: {candidates}"
            )
        out.extend(candidates)
    return out


def _differentiable(op: Operation) -> bool:
    try:
        return registry.lookup(op.type) is not None
    except LookupError:
        return False


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """f's values forward, the identity's gradient backward."""

    @custom_gradient
    def _grad_pass_through_op(*args: Any, **kwargs: Any) -> Any:
        def grad(*grads: Any, **kw: Any) -> Any:
            variables = kw.get("variables")
            if variables is not None:
                return grads, [None] * len(variables)
            return grads

        return f(*args, **kwargs), grad

    return functools.wraps(f)(_grad_pass_through_op)


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """f, whose gradient runs f again (after the incoming gradient exists) and differentiates
    that replay, so f's activations need not be kept for the backward pass."""

    @custom_gradient
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = f(*args, **kwargs)

        def grad(dresult: Any, variables: Any = None) -> Any:
            from tfcluster.gradients.gradients_impl import gradients_of_graph

            with control_dependencies([dresult]):
                replay = f(*args, **kwargs)
            kw_vars = list(variables) if variables is not None else []
            grads = gradients_of_graph(
                replay, list(args) + kw_vars, grad_ys=[dresult], own_scope=False
            )
            return grads[: len(args)], grads[len(args) :]

        return result, grad

    return inner
