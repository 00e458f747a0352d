"""The checks that validate ragged row partitions, as run-time Assert ops only.

tf.debugging's asserts (ops/check_ops) also fail at graph construction when both sides are
known statically, and tfcluster folds more shape arithmetic (strided slices of constant
vectors) than TF 1.15 does; TF's ragged factories report a bad partition when the graph
runs (InvalidArgumentError), so these never check statically. Scopes and messages follow
check_ops' (assert_equal, assert_less, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.ops import control_flow_ops, math_ops
from tfcluster.ops.logging_ops import Assert


def _binary(
    sym: str, opname: str, fn: Callable[[Any, Any], Tensor], x: Any, y: Any, message: str | None
) -> Operation:
    with name_scope(None, opname, [x, y]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        data: list[Any] = [
            f"Condition x {sym} y did not hold element-wise:",
            f"x ({x.name}) = ",
            x,
            f"y ({y.name}) = ",
            y,
        ]
        if message is not None:
            data = [message, *data]
        return Assert(math_ops.reduce_all(fn(x, y)), data)  # type: ignore[no-any-return]


def assert_equal(x: Any, y: Any, message: str | None = None) -> Operation:
    # check_ops.assert_equal's scope, then its comparison's own (assert_equal_1).
    with name_scope(None, "assert_equal", [x, y]):
        if x is y:
            return control_flow_ops.no_op()  # type: ignore[no-any-return]
    return _binary("==", "assert_equal", math_ops.equal, x, y, message)


def assert_less(x: Any, y: Any, message: str | None = None) -> Operation:
    return _binary("<", "assert_less", math_ops.less, x, y, message)


def assert_less_equal(x: Any, y: Any, message: str | None = None) -> Operation:
    return _binary("<=", "assert_less_equal", math_ops.less_equal, x, y, message)


def assert_non_negative(x: Any, message: str | None = None) -> Operation:
    with name_scope(None, "assert_non_negative", [x]):
        x = convert_to_tensor(x, name="x")
        zero = math_ops.cast(0, x.dtype.base_dtype)
        return _binary("<=", "assert_less_equal", math_ops.less_equal, zero, x, message)
