"""The gradient of a function body as a function of its own (what TF's SymbolicGradient op
runs): it takes the body's arguments, then one incoming gradient per body result, and
returns one gradient per argument, built with tfcluster's gradient registry.

An argument no result depends on (or one of a type without gradients) gets zeros, as TF's
SymbolicGradient gives.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.func_graph import FuncGraph, inline_function, parse_function
from tfcluster.framework.graph import Graph, Tensor, convert_to_tensor
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.ops import array_ops, function_call_ops
from tfcluster.protos import attr_value_pb2


def _differentiable(t: Tensor) -> bool:
    dt = t.dtype.base_dtype
    return dt.is_floating or dt.is_complex


def gradient_function(func: Any, what: str) -> attr_value_pb2.NameAttrList:
    """The body of d(results . dys)/d(args) for the function body `func`."""
    try:
        body = parse_function(func, what)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None
    if any(a[3] for a in body.args):
        raise errors.InvalidArgumentError(
            None, None, f"{what}: a function taking variable references has no SymbolicGradient"
        )
    fg = FuncGraph(f"{body.name}_symbolic_gradient", Graph())
    with fg.as_default():
        args = [
            fg.add_arg(dt, shape, f"input_{i}") for i, (_, dt, shape, _) in enumerate(body.args)
        ]
        dys = [fg.add_arg(dt, None, f"dy_{k}") for k, dt in enumerate(body.result_dtypes)]
        try:
            ys = inline_function(body, args)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"{what}: {e}") from None
        pairs = [(y, dy) for y, dy in zip(ys, dys) if _differentiable(y)]
        xs = [x for x in args if _differentiable(x)]
        found: list[Any] = [None] * len(xs)
        if pairs and xs:
            try:
                found = gradients([y for y, _ in pairs], xs, grad_ys=[dy for _, dy in pairs])
            except LookupError as e:  # an op without a registered gradient: TF's class
                raise errors.NotFoundError(None, None, f"{what}: {e}") from None
        by_arg = {id(x): g for x, g in zip(xs, found)}
        outs = []
        for x in args:
            g = by_arg.get(id(x))
            outs.append(array_ops.zeros_like(x) if g is None else convert_to_tensor(g))
    return function_call_ops.build_function(fg, outs, []).func


__all__ = ["gradient_function"]
