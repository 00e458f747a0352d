"""tf.py_func, tf.numpy_function and tf.py_function: ops that call a Python function.

The op carries a token; the function stays in the registry of the process that built the
graph (framework/py_func_registry.py), and the kernel calls it there. So the op must run in
that process: a local session, or a task server started in the same program (between-graph
replication) with the op pinned to one of its devices. Placed on a task of another process,
the kernel finds no function under its token and fails with InvalidArgumentError (as TF).

py_func / numpy_function give the function numpy arrays and take numpy values back (their
dtypes must match Tout exactly); they have no gradient (override it with
Graph.gradient_override_map, as TF1 programs do). py_function gives EagerTensors: TF ops on
them run at once, and its gradient differentiates those ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, py_func_registry
from tfcluster.framework.graph import (
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _py_func_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dt, TensorShape(None)) for dt in attrs["Tout"]]


op_def_registry.register("PyFunc", _py_func_infer, stateful=True)
op_def_registry.register("PyFuncStateless", _py_func_infer)
op_def_registry.register("EagerPyFunc", _py_func_infer, stateful=True)
OP_TYPES = ("PyFunc", "PyFuncStateless", "EagerPyFunc")


def _as_dtype_list(tout: Any) -> tuple[list[dtypes.DType], bool]:
    if tout is None:
        return [], True
    if isinstance(tout, (list, tuple)):
        return [dtypes.as_dtype(t).base_dtype for t in tout], True
    return [dtypes.as_dtype(tout).base_dtype], False


def internal_py_func(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,
    stateful: bool = True,
    eager: bool = False,
    is_grad_func: bool = False,
    name: str | None = None,
) -> Any:
    if not callable(func):
        raise ValueError(f"Expected func to be callable, got func of type {type(func)}")
    out_types, is_list = _as_dtype_list(Tout)
    token, entry = py_func_registry.register(func, eager=eager, is_grad_func=is_grad_func)
    graph = get_default_graph()
    # The outermost graph keeps the function alive (the registry holds it weakly; a loop
    # body's graph is dropped once serialised).
    owner = graph
    while getattr(owner, "outer_graph", None) is not None:
        owner = owner.outer_graph  # type: ignore[attr-defined]
    # As TF 1.15, on a list attribute of the graph, not in a collection (a collection would
    # show in get_all_collection_keys and make export_meta_graph warn it cannot store it).
    if not hasattr(owner, py_func_registry.PY_FUNCS_USED_IN_GRAPH):
        setattr(owner, py_func_registry.PY_FUNCS_USED_IN_GRAPH, [])
    getattr(owner, py_func_registry.PY_FUNCS_USED_IN_GRAPH).append(entry)
    values = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    if eager:
        op_type = "EagerPyFunc"
    else:
        op_type = "PyFunc" if stateful else "PyFuncStateless"
    with name_scope(name, op_type, [v for v in values if isinstance(v, Tensor)]) as scope:
        inputs = [convert_to_tensor(x, name="input") for x in values]
        attrs: dict[str, Any] = {
            "token": token,
            "Tin": [t.dtype.base_dtype for t in inputs],
            "Tout": out_types,
        }
        if eager:
            attrs["is_async"] = False
        op = graph.create_op(op_type, inputs, attrs, name=scope)
    if not op.outputs:
        return op  # no results: the op itself, to run
    if is_list:
        return list(op.outputs)
    return op.outputs[0]


def py_func(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,
    stateful: bool = True,
    name: str | None = None,
) -> Any:
    """Wraps a python function (numpy arrays in, numpy values out) as an op."""
    return internal_py_func(func, inp, Tout, stateful=stateful, name=name)


def numpy_function(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,
    name: str | None = None,
) -> Any:
    """Wraps a python function that takes and returns numpy arrays as an op."""
    return internal_py_func(func, inp, Tout, stateful=True, name=name)


def py_function(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,
    name: str | None = None,
) -> Any:
    """Wraps a python function run eagerly (its TF ops run at once) as a differentiable op."""
    return internal_py_func(func, inp, Tout, eager=True, name=name)


__all__ = ["numpy_function", "py_func", "py_function"]
