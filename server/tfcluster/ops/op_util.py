"""Shared helpers for op definitions: creating ops, dtype checks, shape inference."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    get_graph_from_inputs,
)
from tfcluster.framework.tensor_shape import TensorShape

Outputs = list[tuple[dtypes.DType, TensorShape]]


def make_op(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Operation:
    graph = get_graph_from_inputs(inputs) if inputs else get_default_graph()
    op_def = op_def_registry.lookup(op_type)
    refs = [] if op_def is None else [inputs[i] for i in op_def.ref_inputs if i < len(inputs)]
    refs = [t for t in refs if t.dtype.is_ref_dtype]
    if not refs:
        return graph.create_op(op_type, list(inputs), attrs or {}, name=name or op_type)
    # An op updating a variable goes where the variable is, as TF's op_def_library makes it:
    # the variable's device and its `loc:@` colocation group.
    with contextlib.ExitStack() as stack:
        for t in refs:
            stack.enter_context(graph.colocate_with(t.op))
        return graph.create_op(op_type, list(inputs), attrs or {}, name=name or op_type)


def convert_same_dtype(
    values: Sequence[Any], op_type: str, names: Sequence[str] = ("x", "y")
) -> list[Tensor]:
    """Converts operands to tensors of one dtype: Python values take the tensors' dtype."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    dtype = None
    for v in values:
        if isinstance(v, Tensor):
            dtype = v.dtype.base_dtype
            break
        if hasattr(v, "_as_graph_element") and hasattr(v, "dtype"):
            dtype = v.dtype.base_dtype
            break
    out = []
    for v in values:
        if isinstance(v, Tensor) or tensors or dtype is not None:
            try:
                out.append(convert_to_tensor(v, dtype=dtype))
            except (TypeError, ValueError) as e:
                if isinstance(v, Tensor) or hasattr(v, "_as_graph_element"):
                    t = convert_to_tensor(v)
                    raise TypeError(
                        f"Input '{names[len(out)] if len(out) < len(names) else len(out)}' of "
                        f"'{op_type}' Op has type {t.dtype.base_dtype.name} that does not match "
                        f"type {dtype.name if dtype else '?'} of argument '{names[0]}'."
                    ) from None
                raise TypeError(f"{op_type}: cannot convert {v!r} to {dtype}: {e}") from None
        else:
            out.append(convert_to_tensor(v))
    base = out[0].dtype.base_dtype
    for i, t in enumerate(out[1:], 1):
        if t.dtype.base_dtype != base:
            raise TypeError(
                f"Input '{names[i] if i < len(names) else i}' of '{op_type}' Op has type "
                f"{t.dtype.base_dtype.name} that does not match type {base.name} of argument "
                f"'{names[0]}'."
            )
    return out


def broadcast_shape(a: TensorShape, b: TensorShape, op_name: str = "") -> TensorShape:
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    x, y = a.as_list(), b.as_list()
    n = max(len(x), len(y))
    pad: list[int | None] = [1] * n
    x = pad[: n - len(x)] + x
    y = pad[: n - len(y)] + y
    out: list[int | None] = []
    for dx, dy in zip(x, y):
        if dx == 1:
            out.append(dy)
        elif dy == 1:
            out.append(dx)
        elif dx is None:
            out.append(dy)
        elif dy is None or dx == dy:
            out.append(dx)
        else:
            if not op_name:
                # Graph.create_op says which node, with TF's wording.
                raise op_def_registry.NodeShapeError(
                    f"Dimensions must be equal, but are {dx} and {dy}"
                )
            raise ValueError(
                f"Dimensions must be equal, but are {dx} and {dy} for '{op_name}' with input "
                f"shapes: {a}, {b}."
            )
    return TensorShape(out)


def unary_same(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def binary_broadcast(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, broadcast_shape(inputs[0].shape, inputs[1].shape))]


def binary_broadcast_bool(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.bool_, broadcast_shape(inputs[0].shape, inputs[1].shape))]


def unknown_like(dtype: dtypes.DType) -> Outputs:
    return [(dtype, TensorShape(None))]


def check_dtype(t: Tensor, allowed: Sequence[dtypes.DType], op_type: str, arg: str = "x") -> None:
    if t.dtype.base_dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(
            f"Value passed to parameter '{arg}' has DataType {t.dtype.base_dtype.name} not in "
            f"list of allowed values: {names} (op {op_type})"
        )


FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
NUMERIC = (
    *FLOATS,
    dtypes.int8,
    dtypes.int16,
    dtypes.int32,
    dtypes.int64,
    dtypes.uint8,
    dtypes.complex64,
    dtypes.complex128,
)
INTS = (dtypes.int32, dtypes.int64)
