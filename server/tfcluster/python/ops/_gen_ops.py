"""TF 1.15's generated op modules (gen_math_ops, gen_array_ops, gen_nn_ops): one wrapper per op
with the signature TF generated for it (inputs then attrs, positional or by keyword, `name`
last), each building the op as tf.raw_ops does. An op tfcluster has no kernel for raises
UnimplementedError naming the wrapper on use."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.python import _tf115_private_names
from tfcluster.python._private_module import UnimplementedName, module_getattr


def _default(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"dtype"}:
        return dtypes.as_dtype(value["dtype"])
    return value


def _signature(params: list[list[Any]]) -> inspect.Signature:
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [
            inspect.Parameter(p[0], kind)
            if len(p) == 1
            else inspect.Parameter(p[0], kind, default=_default(p[1]))
            for p in params
        ]
    )


def _wrapper(name: str, raw_op: Callable[..., Any], sig: inspect.Signature) -> Callable[..., Any]:
    def op(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return raw_op(**bound.arguments)

    op.__name__ = op.__qualname__ = name
    op.__signature__ = sig  # type: ignore[attr-defined]
    return op


def fill(module_name: str) -> None:
    """Module `module_name` (tfcluster.python.ops.gen_<x>_ops) gets TF's wrappers of its ops
    and, under each op type's name, tf.raw_ops' function of it."""
    import tfcluster
    from tfcluster.api import raw_ops

    path = module_name[len("tfcluster.") :]
    module = sys.modules[module_name]
    implemented = raw_ops.implemented_ops()
    tf_module = f"tensorflow.{path}"
    ops: dict[str, Any] = _tf115_private_names.GEN_OPS[path]
    for name, (op_type, params) in ops.items():
        wrapper: Any
        if op_type in implemented:
            raw_op = getattr(tfcluster.raw_ops, op_type)
            wrapper = _wrapper(name, raw_op, _signature(params))
            setattr(module, op_type, raw_op)
        else:
            wrapper = UnimplementedName(f"{tf_module}.{name}")
        setattr(module, name, wrapper)
    setattr(module, "__getattr__", module_getattr(path))  # noqa: B010
