"""Gradients of tf.function's call ops: another call, of a gradient function.

The gradient function takes the call's value inputs, the values of the body's stateful ops
the forward call exported, and the incoming gradients; it recomputes the body (reusing the
exported values instead of running stateful ops again) and differentiates it, as TF's
gradient of a StatefulPartitionedCall calls a backward function. Like TF 1.15, the call ops
have no entry in the gradient table: gradients_impl turns to `call_grad` when the lookup of
one fails (TF's gradients_util does so for every function call op).
"""

from __future__ import annotations

import itertools
from typing import Any

from tfcluster.framework import dtypes, errors
from tfcluster.framework.func_graph import FuncGraph, inline_function, parse_function
from tfcluster.framework.function_library import GRADIENT_ATTR
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.ops import array_ops, function_call_ops

_uid = itertools.count(1)


def _differentiable(t: Tensor) -> bool:
    dt = t.dtype
    return not dt.is_ref_dtype and (dt.is_floating or dt.is_complex)


def _value_input(t: Tensor) -> bool:
    """Inputs the gradient function takes too (not the variable references a body captures:
    it reads their values through the exports)."""
    return not (t.dtype.base_dtype == dtypes.resource and t.op.type == "_RefHandle")


def _library_gradient(op: Operation, grads: Any) -> list[Tensor | None]:
    """The gradient function a GraphDef's library named for the called function (Defun's
    grad_func): it takes the call's inputs and the gradients of its outputs, and returns one
    gradient per input."""
    func = op.attrs[GRADIENT_ATTR]
    body = parse_function(func, f"{op.name} gradient")
    dys = [
        array_ops.zeros_like(y) if g is None else convert_to_tensor(g)
        for y, g in zip(op.outputs, grads)
    ]
    inputs = [*op.inputs, *dys]
    if len(body.args) != len(inputs) or len(body.results) != len(op.inputs):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{op.name}: gradient function '{func.name}' takes {len(body.args)} arguments and "
            f"returns {len(body.results)}; the call needs {len(inputs)} and {len(op.inputs)}",
        )
    attrs = {
        "Tin": [t.dtype.base_dtype for t in inputs],
        "Tout": list(body.result_dtypes),
        "f": func,
        "config": "",
        "config_proto": "",
        "executor_type": "",
    }
    call = get_default_graph().create_op("PartitionedCall", inputs, attrs, name=f"{op.type}_grad")
    return list(call.outputs)


def _call_grad(op: Operation, *grads: Any) -> list[Tensor | None]:
    if GRADIENT_ATTR in op.attrs:
        return _library_gradient(op, grads)
    body = parse_function(op._get_attr("f"), f"{op.name} f")
    num_user = len(op.outputs) - len(body.exports)
    inputs = list(op.inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _differentiable(t)]
    out_idx = [
        j for j in range(num_user) if _differentiable(op.outputs[j]) and grads[j] is not None
    ]
    if not diff_idx or not out_idx:
        return [None] * len(inputs)
    exported = list(op.outputs[num_user:])
    dys = [convert_to_tensor(grads[j]) for j in out_idx]
    fg = FuncGraph(f"__backward_{body.name}_{next(_uid)}", get_default_graph())
    with fg.as_default():
        args: list[Tensor | None] = [
            fg.add_arg(t.dtype.base_dtype, t.shape, f"input_{i}") if _value_input(t) else None
            for i, t in enumerate(inputs)
        ]
        exp_args = [
            fg.add_arg(t.dtype.base_dtype, t.shape, f"export_{k}") for k, t in enumerate(exported)
        ]
        dy_args = [fg.add_arg(t.dtype.base_dtype, t.shape, f"dy_{k}") for k, t in enumerate(dys)]
        replacements = dict(zip(body.exports, exp_args))
        try:
            ys = inline_function(body, args, replacements, out_idx)
        except ValueError as e:
            raise LookupError(f"Cannot differentiate {op.name}: {e}") from None
        xs = [a for i in diff_idx if (a := args[i]) is not None]
        found = gradients(ys, xs, grad_ys=dy_args)
        outs = [
            array_ops.zeros_like(x) if g is None else convert_to_tensor(g)
            for g, x in zip(found, xs)
        ]
    built = function_call_ops.build_function(fg, outs, [])
    explicit = [t for t in inputs if _value_input(t)] + exported + dys
    grad_op = function_call_ops.call(
        get_default_graph(), explicit, built, fg.control_captures, name=op.type
    )
    result: list[Tensor | None] = [None] * len(inputs)
    position = 0
    for i in diff_idx:
        if args[i] is None:
            continue
        g = grad_op.outputs[position]
        g.set_shape(inputs[i].shape)
        result[i] = g
        position += 1
    return result


# Not in the gradient table, as in TF 1.15 (a lookup raises LookupError there):
# tf.gradients falls back to this for a function call op, as TF's gradients_util does.
FUNCTION_CALL_OPS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})
call_grad = _call_grad
