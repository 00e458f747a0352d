"""What graph construction knows of a resource variable's handle: the dtype and shape its
VarHandleOp was made with (TF keeps them as the handle tensor's handle data)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape

# Ops passing a handle on unchanged.
_PASS_THROUGH = ("Identity", "Switch", "Enter", "RefIdentity")


def _producer(t: Any) -> Any:
    op = getattr(t, "op", None)
    seen = 0
    while op is not None and seen < 64:
        if op.type in _PASS_THROUGH and op.inputs:
            t = op.inputs[0]
        elif op.type == "_Arg" and (outer := _captured(t)) is not None:
            t = outer  # a function body's stand-in for an outer handle
        else:
            break
        op = t.op
        seen += 1
    return op if op is not None and op.type == "VarHandleOp" else None


def _captured(t: Any) -> Any:
    """The outer tensor a function body's argument stands in for (None if not a capture)."""
    captures = getattr(t.graph, "_captures", None)
    if not captures:
        return None
    for outer, inner in captures.items():
        if inner is t:
            return outer
    return None


def handle_shape(t: Any) -> TensorShape:
    """The variable's static shape (unknown where the handle comes from elsewhere)."""
    op = _producer(t)
    if op is None:
        return TensorShape(None)
    return TensorShape(op._get_attr("shape"))


def handle_dtype(t: Any) -> dtypes.DType | None:
    op = _producer(t)
    return None if op is None else dtypes.as_dtype(op._get_attr("dtype"))


def check_handle(t: Any, op_type: str, arg: str) -> None:
    if t.dtype.base_dtype != dtypes.resource:
        raise TypeError(
            f"Input '{arg}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that does not "
            "match expected type of resource."
        )
