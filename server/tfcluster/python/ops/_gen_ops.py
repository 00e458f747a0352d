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


def add_wrappers(module_name: str) -> None:
    """Module `module_name` (tfcluster.python.ops.<x>, serving tensorflow.python.ops.<x>)
    gets TF's generated wrappers it holds and, under each op type's name, tf.raw_ops' function
    of it; a name the module already defines (a class TF's module defines over a wrapper's
    op-type name) is kept."""
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
            if op_type not in vars(module):
                setattr(module, op_type, raw_op)
        else:
            wrapper = UnimplementedName(f"{tf_module}.{name}")
        if name not in vars(module):
            setattr(module, name, wrapper)


def fill(module_name: str) -> None:
    """A generated op module (tfcluster.python.ops.gen_<x>_ops): TF's wrappers of its ops;
    its other names raise as module_getattr says."""
    add_wrappers(module_name)
    path = module_name[len("tfcluster.") :]
    setattr(sys.modules[module_name], "__getattr__", module_getattr(path))  # noqa: B010
