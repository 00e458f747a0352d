"""tf.Assert and the assertions losses and metrics build on (assert_less, assert_less_equal,
assert_greater_equal, assert_non_negative, assert_rank_in, assert_type), as TF 1.15 builds
them: checked while the graph is built where the values are known, else an Assert op that
fails the step with InvalidArgumentError. Assert ops of data other than strings and int32
run inside a cond named AssertGuard, as TF's do (only a failing check reads the data)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, op_def_registry, tensor_util
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, control_flow_ops, math_ops
from tfcluster.ops.op_util import make_op

op_def_registry.register("Assert", op_def_registry.no_outputs, stateful=True)

_HOST_DTYPES = (dtypes.string, dtypes.int32)


def _assert_op(condition: Tensor, data: Sequence[Any], summarize: int | None) -> Operation:
    """The Assert node itself, named Assert in the current scope; its data inputs are data_i."""
    with name_scope(None, "Assert") as scope:
        inputs = [convert_to_tensor(d, name=f"data_{i}") for i, d in enumerate(data)]
        attrs = {
            "T": [t.dtype.base_dtype for t in inputs],
            "summarize": 3 if summarize is None else int(summarize),
        }
        return make_op("Assert", [condition, *inputs], attrs, name=scope)


def Assert(
    condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None
) -> Operation:
    """An op that fails with InvalidArgumentError listing `data` when `condition` is false."""
    with name_scope(name, "Assert", [condition, data]):
        xs = [convert_to_tensor(d) for d in data]
        cond_t = convert_to_tensor(condition, name="Condition")
        if cond_t.dtype.base_dtype != dtypes.bool_:
            raise TypeError(f"Assert's condition must be bool, got {cond_t.dtype.base_dtype.name}")
        if all(x.dtype.base_dtype in _HOST_DTYPES for x in xs):
            return _assert_op(cond_t, data, summarize)
        guarded = control_flow_ops.cond(
            cond_t,
            control_flow_ops.no_op,
            lambda: _assert_op(cond_t, data, summarize),
            name="AssertGuard",
        )
        return guarded if isinstance(guarded, Operation) else guarded.op


def _static_failure(data: Sequence[Any]) -> errors.OpError:
    parts = []
    for d in data:
        value = tensor_util.constant_value(d) if isinstance(d, Tensor) else None
        parts.append(str(value) if value is not None else str(d))
    return errors.InvalidArgumentError(None, None, "\n".join(parts))


def _binary_assert(
    sym: str,
    opname: str,
    op_func: Callable[..., Tensor],
    static_func: Callable[..., Any],
    x: Any,
    y: Any,
    data: Sequence[Any] | None,
    summarize: int | None,
    message: str | None,
    name: str | None,
) -> Operation:
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [
                f"Condition x {sym} y did not hold element-wise:",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        if message is not None:
            data = [message, *data]
        condition = math_ops.reduce_all(op_func(x, y))
        x_static = tensor_util.constant_value(x)
        y_static = tensor_util.constant_value(y)
        known = x_static is not None and y_static is not None
        if known and not np.all(static_func(x_static, y_static)):
            raise _static_failure(data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(
    x: Any,
    y: Any,
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    return _binary_assert(
        "==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name
    )


def assert_less(
    x: Any,
    y: Any,
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    return _binary_assert(
        "<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name
    )


def assert_less_equal(
    x: Any,
    y: Any,
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    return _binary_assert(
        "<=",
        "assert_less_equal",
        math_ops.less_equal,
        np.less_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def assert_greater_equal(
    x: Any,
    y: Any,
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    return _binary_assert(
        ">=",
        "assert_greater_equal",
        math_ops.greater_equal,
        np.greater_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def assert_non_negative(
    x: Any,
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    message = message or ""
    with name_scope(name, "assert_non_negative", [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, "Condition x >= 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        return assert_less_equal(zero, x, data=data, summarize=summarize)


def assert_type(
    tensor: Any, tf_type: dtypes.DType, message: str | None = None, name: str | None = None
) -> Operation:
    """A no-op when `tensor` has dtype `tf_type`; TypeError (at graph construction) otherwise."""
    message = message or ""
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{message}  {tensor.name} must be of type {tf_type}")
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_rank_in(
    x: Any,
    ranks: Sequence[Any],
    data: Sequence[Any] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Checks that x's rank is one of `ranks`: statically where known, else at run time."""
    with name_scope(name, "assert_rank_in", [x, *ranks, *(data or [])]):
        x = convert_to_tensor(x, name="x")
        rank_ts = [convert_to_tensor(r, name="rank") for r in ranks]
        message = message or ""
        if data is None:
            data = [message, f"Tensor {x.name} must have rank in", *rank_ts]
            data += ["Received shape: ", array_ops.shape(x)]
        for r in rank_ts:
            assert_type(r, dtypes.int32)
        static = [tensor_util.constant_value(r) for r in rank_ts]
        if all(s is not None for s in static):
            if any(np.ndim(s) != 0 for s in static if s is not None):
                raise ValueError("Rank must be a scalar.")
            known = x.shape.ndims
            if known is not None:
                wanted = tuple(static)  # TF's message shows them as numpy values
                if known not in [int(w) for w in wanted]:  # type: ignore[arg-type]
                    raise ValueError(
                        f"{message}.  Tensor {x.name} must have rank in {wanted}.  Received "
                        f"rank {known}, shape {x.shape}"
                    )
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        x_rank = array_ops.rank(x)
        matches = [math_ops.equal(x_rank, r) for r in rank_ts]
        condition = math_ops.reduce_any(array_ops.stack(matches))
        return Assert(condition, data, summarize=summarize)


__all__ = [
    "Assert",
    "assert_equal",
    "assert_greater_equal",
    "assert_less",
    "assert_less_equal",
    "assert_non_negative",
    "assert_rank_in",
    "assert_type",
]
