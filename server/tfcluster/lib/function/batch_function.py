"""tf.nondifferentiable_batch_function: a function whose calls from concurrent session.run
calls are batched (along dimension 0) by one BatchFunction op, as TF 1.15 builds it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import Tensor, get_default_graph, name_scope
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.lib.function.def_function import Function
from tfcluster.ops import control_flow_ops, function_call_ops


def nondifferentiable_batch_function(
    num_batch_threads: int,
    max_batch_size: int,
    batch_timeout_micros: int,
    allowed_batch_sizes: list[int] | None = None,
    max_enqueued_batches: int = 10,
    autograph: bool = True,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorates fn(*tensors): each call adds a BatchFunction op (scope "batch") and returns
    its outputs as a list."""

    def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def decorated(*args: Any) -> Any:
            graph = get_default_graph()
            with name_scope("batch") as scope:
                for a in args:
                    if not isinstance(a, Tensor):
                        raise ValueError(
                            "All arguments to functions decorated with `batch_function`  are "
                            f"supposed to be Tensors; found {a!r}"
                        )
                traced = Function(fn, name="computation", autograph=autograph)
                specs = [TensorSpec(a.shape, a.dtype.base_dtype) for a in args]
                concrete = traced.get_concrete_function(*specs)
                built = concrete._built
                captured, refs = function_call_ops.captured_inputs(graph, built)
                num_results = len(concrete.outputs)
                attrs = {
                    "f": built.func,
                    "num_batch_threads": int(num_batch_threads),
                    "max_batch_size": int(max_batch_size),
                    "batch_timeout_micros": int(batch_timeout_micros),
                    "max_enqueued_batches": int(max_enqueued_batches),
                    "allowed_batch_sizes": [int(s) for s in allowed_batch_sizes or []],
                    "container": "",
                    "shared_name": scope,
                    "batching_queue": "",
                    "Tin": [a.dtype.base_dtype for a in args],
                    "Tcaptured": [t.dtype.base_dtype for t in captured],
                    "Tout": list(built.result_dtypes),
                }
                op = control_flow_ops._create_functional_op(
                    graph,
                    "BatchFunction",
                    [*args, *captured],
                    attrs,
                    "BatchFunction",
                    refs,
                    list(concrete.graph.control_captures),
                )
            # TF returns the op's outputs as a flat list, whatever fn's structure.
            return list(op.outputs[:num_results])

        return decorated

    return decorator


__all__ = ["nondifferentiable_batch_function"]
