"""tf.bitwise: and, or, xor, invert and shifts of integer tensors (TF's gen_bitwise_ops)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops.infer_util import check_dtype
from tfcluster.ops.op_util import binary_broadcast, make_op, unary_same
from tfcluster.ops.special_math_ops import _same_dtype

_INTEGERS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8)
_BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift")

for _op in _BINARY:
    op_def_registry.register(_op, binary_broadcast)
op_def_registry.register("Invert", unary_same)


def _binary(op_type: str, x: Any, y: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [x, y]) as scope:
        a, b = _same_dtype([x, y], op_type, ("x", "y"))
        check_dtype(a, _INTEGERS, op_type, "x")
        return make_op(op_type, [a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


def bitwise_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    return _binary("BitwiseXor", x, y, name)


def left_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x << y (shift amounts past the width are clamped to it, as in TF)."""
    return _binary("LeftShift", x, y, name)


def right_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x >> y, arithmetic for signed types."""
    return _binary("RightShift", x, y, name)


def invert(x: Any, name: str | None = None) -> Tensor:
    """~x."""
    with name_scope(name, "Invert", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        check_dtype(t, _INTEGERS, "Invert", "x")
        return make_op("Invert", [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0]


# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
