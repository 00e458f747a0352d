"""Kernels of For, SymbolicGradient and MapDefun: each runs a function body (bound as the
If/While kernels bind theirs, kernels/functional.py) with the caller's step context."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.gradients.symbolic_gradient import gradient_function
from tfcluster.kernels.common import invalid, scalar_int
from tfcluster.kernels.functional import _Function
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _check_arity(node: Any, fn: _Function, attr: str, args: int, results: int) -> None:
    if fn.num_args != args or fn.num_results != results:
        raise invalid(
            f"{node.name}: function '{node.attrs[attr].name}' takes {fn.num_args} arguments "
            f"and returns {fn.num_results} results; {node.op} passes {args} and expects "
            f"{results}"
        )


@kernel("For", devices=CPU_ONLY)
def for_loop(node: Any, xp: Any) -> Any:
    num_vars = len(node.attrs["T"])
    body = _Function(node.attrs["body"], node.device, f"{node.name} body")
    _check_arity(node, body, "body", num_vars + 1, num_vars)

    def compute(ctx: Any, ins: list[Any]) -> Any:
        start, limit, delta = (scalar_int(v, w) for v, w in zip(ins, ("start", "limit", "delta")))
        if delta == 0 or (delta > 0 and start > limit) or (delta < 0 and start < limit):
            raise invalid(f"Invalid start/limit/delta: {start} {limit} {delta}")
        values = list(ins[3:])
        for i in range(start, limit, delta):
            ctx.time_left()  # the step's deadline and cancellation bound a long loop
            values = list(body(ctx, [np.int32(i), *values]))
        return tuple(values)

    return compute


@kernel("SymbolicGradient", devices=CPU_ONLY)
def symbolic_gradient(node: Any, xp: Any) -> Any:
    """The gradient body is built (with tfcluster's gradient registry) once, when the node
    is bound; it takes f's arguments and one gradient per f result."""
    what = f"{node.name} f"
    grad = _Function(gradient_function(node.attrs["f"], what), node.device, what)
    num_args = len(node.attrs["Tout"])
    if grad.num_args != len(node.inputs) or grad.num_results != num_args:
        raise invalid(
            f"Expects {grad.num_args} arguments, but {len(node.inputs)} is provided"
            if grad.num_args != len(node.inputs)
            else f"{node.name}: f takes {grad.num_results} arguments, Tout lists {num_args}"
        )

    def compute(ctx: Any, ins: list[Any]) -> Any:
        return tuple(grad(ctx, ins))

    return compute


@kernel("MapDefun", devices=CPU_ONLY)
def map_defun(node: Any, xp: Any) -> Any:
    a = node.attrs
    num_args = len(a["Targuments"])
    num_out = len(a["output_types"])
    shapes = [TensorShape(s) for s in a["output_shapes"]]
    fn = _Function(a["f"], node.device, f"{node.name} f")
    _check_arity(node, fn, "f", len(node.inputs), num_out)

    def compute(ctx: Any, ins: list[Any]) -> Any:
        args = [np.asarray(v) for v in ins[:num_args]]
        captured = list(ins[num_args:])
        if any(v.ndim == 0 for v in args):
            raise invalid("Arguments must have rank at least 1.")
        n = int(args[0].shape[0])
        if any(int(v.shape[0]) != n for v in args):
            raise invalid("Arguments must have the same dimension 0.")
        rows: list[list[Any]] = [[] for _ in range(num_out)]
        for i in range(n):
            ctx.time_left()
            results = fn(ctx, [*(v[i] for v in args), *captured])
            for k, (r, shape) in enumerate(zip(results, shapes)):
                r = np.asarray(r)
                if not shape.is_compatible_with(TensorShape(r.shape)):
                    raise invalid(
                        f"Output {k} of MapDefun's function has shape {list(r.shape)}, "
                        f"which is incompatible with the declared output shape {shape}"
                    )
                if rows[k] and r.shape != rows[k][0].shape:
                    raise invalid(
                        f"Output {k} of MapDefun's function has shape {list(r.shape)} for "
                        f"slice {i}, but {list(rows[k][0].shape)} for slice 0"
                    )
                rows[k].append(r)
        outs = []
        for k, shape in enumerate(shapes):
            if n:
                outs.append(np.stack(rows[k]))
                continue
            if not shape.is_fully_defined():
                raise invalid(
                    f"MapDefun has no slices and its output shape {shape} is not fully defined"
                )
            dtype = a["output_types"][k].as_numpy_dtype
            outs.append(np.zeros([0, *(d or 0 for d in shape.as_list())], dtype))
        return tuple(outs)

    return compute
