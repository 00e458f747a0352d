"""The assert_* family and tf.debugging's checks, as TF 1.15 builds them.

What can be decided while the graph is built is decided then, with TF's error classes:
InvalidArgumentError for a condition on constants that fails, ValueError for ranks and shapes,
TypeError for dtypes. The rest becomes an Assert op (see logging_ops.Assert) that fails the
step with InvalidArgumentError and TF's message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import dtypes, errors, tensor_util
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops import array_ops, control_flow_ops, math_ops
from tfcluster.ops.logging_ops import Assert

NUMERIC_TYPES = frozenset(
    [
        dtypes.float32,
        dtypes.float64,
        dtypes.int8,
        dtypes.int16,
        dtypes.int32,
        dtypes.int64,
        dtypes.uint8,
        dtypes.complex64,
        dtypes.complex128,
        dtypes.float16,
    ]
)


def _constant_value_string(t: Any) -> Any:
    if not isinstance(t, Tensor):
        return str(t)
    value = tensor_util.constant_value(t)
    return str(value) if value is not None else t


def _assert_static(condition: Any, data: Sequence[Any]) -> None:
    if not condition:
        message = "\n".join(str(_constant_value_string(x)) for x in data)
        raise errors.InvalidArgumentError(None, None, message)


def assert_proper_iterable(values: Any) -> None:
    """Raises TypeError unless values is an iterable other than a tensor, array or string."""
    unintentional = (Tensor, SparseTensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _binary_assert(
    sym: str,
    opname: str,
    op_func: Callable[[Any, Any], Tensor],
    static_func: Callable[[Any, Any], Any],
    x: Any,
    y: Any,
    data: Any,
    summarize: int | None,
    message: str | None,
    name: str | None,
) -> Operation:
    with name_scope(name, opname, [x, y, *(data or [])]):
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
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x == y` holds element-wise."""
    with name_scope(name, "assert_equal", [x, y, *(data or [])]):
        if x is y:  # the same tensor: nothing to check
            return control_flow_ops.no_op()
    return _binary_assert(
        "==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name
    )


def assert_none_equal(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x != y` holds for all elements."""
    return _binary_assert(
        "!=",
        "assert_none_equal",
        math_ops.not_equal,
        np.not_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def assert_less(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x < y` holds element-wise."""
    return _binary_assert(
        "<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name
    )


def assert_less_equal(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x <= y` holds element-wise."""
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


def assert_greater(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x > y` holds element-wise."""
    return _binary_assert(
        ">", "assert_greater", math_ops.greater, np.greater, x, y, data, summarize, message, name
    )


def assert_greater_equal(
    x: Any,
    y: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x >= y` holds element-wise."""
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


def _sign_assert(
    x: Any,
    data: Any,
    summarize: int | None,
    message: str | None,
    name: str | None,
    opname: str,
    condition_text: str,
    check: Callable[..., Operation],
    zero_first: bool,
) -> Operation:
    message = message or ""
    with name_scope(name, opname, [x, *(data or [])]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, condition_text, f"x ({x.name}) = ", x]
            if opname == "assert_non_positive":
                # TF 1.15 joins these two strings (a missing comma in its source).
                data = [message, condition_text + f"x ({x.name}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return check(a, b, data=data, summarize=summarize)


def assert_negative(
    x: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x < 0` holds element-wise."""
    return _sign_assert(
        x,
        data,
        summarize,
        message,
        name,
        "assert_negative",
        "Condition x < 0 did not hold element-wise:",
        assert_less,
        False,
    )


def assert_positive(
    x: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x > 0` holds element-wise."""
    return _sign_assert(
        x,
        data,
        summarize,
        message,
        name,
        "assert_positive",
        "Condition x > 0 did not hold element-wise:",
        assert_less,
        True,
    )


def assert_non_negative(
    x: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x >= 0` holds element-wise."""
    return _sign_assert(
        x,
        data,
        summarize,
        message,
        name,
        "assert_non_negative",
        "Condition x >= 0 did not hold element-wise:",
        assert_less_equal,
        True,
    )


def assert_non_positive(
    x: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert the condition `x <= 0` holds element-wise."""
    return _sign_assert(
        x,
        data,
        summarize,
        message,
        name,
        "assert_non_positive",
        "Condition x <= 0 did not hold element-wise:",
        assert_less_equal,
        False,
    )


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert x and y are close element-wise: |x - y| < atol + rtol * |y|."""
    message = message or ""
    with name_scope(name, "assert_near", [x, y, rtol, atol, *(data or [])]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        eps = np.finfo(x.dtype.base_dtype.as_numpy_dtype).eps
        rtol_t = convert_to_tensor(
            10 * eps if rtol is None else rtol, name="rtol", dtype=x.dtype.base_dtype
        )
        atol_t = convert_to_tensor(
            10 * eps if atol is None else atol, name="atol", dtype=x.dtype.base_dtype
        )
        if data is None:
            data = [
                message,
                f"x and y not equal to tolerance rtol = {rtol_t}, atol = {atol_t}",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        tol = atol_t + rtol_t * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


class _StaticRankFailed(Exception):
    def __init__(self, actual: int, given: Any) -> None:
        super().__init__("Static rank condition failed")
        self.actual = actual
        self.given = given


def _assert_rank_condition(
    x: Tensor,
    rank: Tensor,
    static_condition: Callable[[int, Any], bool],
    dynamic_condition: Callable[[Any, Any], Tensor],
    data: Any,
    summarize: int | None,
) -> Operation:
    assert_type(rank, dtypes.int32)
    rank_static = tensor_util.constant_value(rank)
    if rank_static is not None:
        if np.ndim(rank_static) != 0:
            raise ValueError("Rank must be a scalar.")
        x_rank = x.shape.ndims
        if x_rank is not None:
            if not static_condition(x_rank, rank_static):
                raise _StaticRankFailed(x_rank, rank_static)
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), rank)
    if rank_static is None:
        rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
        condition = control_flow_ops.with_dependencies([rank_check], condition)
    return Assert(condition, data, summarize=summarize)


def _rank_assert(
    x: Any,
    rank: Any,
    data: Any,
    summarize: int | None,
    message: str | None,
    name: str | None,
    opname: str,
    words: str,
    static_condition: Callable[[int, Any], bool],
    dynamic_condition: Callable[[Any, Any], Tensor],
) -> Operation:
    with name_scope(name, opname, [x, rank, *(data or [])]):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = message or ""
        if data is None:
            data = [
                message,
                f"Tensor {x.name} must have {words}",
                rank,
                "Received shape: ",
                array_ops.shape(x),
            ]
        try:
            return _assert_rank_condition(
                x, rank, static_condition, dynamic_condition, data, summarize
            )
        except _StaticRankFailed as e:
            raise ValueError(
                f"{message}.  Tensor {x.name} must have {words} {int(e.given)}.  Received rank "
                f"{e.actual}, shape {x.shape}"
            ) from None


def assert_rank(
    x: Any,
    rank: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert x has rank equal to rank."""
    return _rank_assert(
        x,
        rank,
        data,
        summarize,
        message,
        name,
        "assert_rank",
        "rank",
        lambda actual, given: actual == given,
        math_ops.equal,
    )


def assert_rank_at_least(
    x: Any,
    rank: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert x has rank equal to rank or higher."""
    return _rank_assert(
        x,
        rank,
        data,
        summarize,
        message,
        name,
        "assert_rank_at_least",
        "rank at least",
        lambda actual, given: actual >= given,
        math_ops.greater_equal,
    )


def assert_rank_in(
    x: Any,
    ranks: Sequence[Any],
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert x has rank in ranks."""
    with name_scope(name, "assert_rank_in", [x, *ranks, *(data or [])]):
        x = convert_to_tensor(x, name="x")
        rank_ts = tuple(convert_to_tensor(r, name="rank") for r in ranks)
        message = message or ""
        if data is None:
            data = [
                message,
                f"Tensor {x.name} must have rank in",
                *rank_ts,
                "Received shape: ",
                array_ops.shape(x),
            ]
        for r in rank_ts:
            assert_type(r, dtypes.int32)
        statics = tuple(tensor_util.constant_value(r) for r in rank_ts)
        if not any(s is None for s in statics):
            for s in statics:
                if np.ndim(s) != 0:  # type: ignore[arg-type]
                    raise ValueError("Rank must be a scalar.")
            x_rank = x.shape.ndims
            if x_rank is not None:
                if x_rank not in statics:
                    raise ValueError(
                        f"{message}.  Tensor {x.name} must have rank in {statics!r}.  Received "
                        f"rank {x_rank}, shape {x.shape}"
                    )
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        actual = array_ops.rank(x)
        if not rank_ts:
            condition = convert_to_tensor(False)
        else:
            condition = math_ops.equal(rank_ts[0], actual)
            for r in rank_ts[1:]:
                condition = math_ops.logical_or(condition, math_ops.equal(r, actual))
        for r, s in zip(rank_ts, statics):
            if s is None:
                check = assert_rank(r, 0, data=["Rank must be a scalar. Received rank: ", r])
                condition = control_flow_ops.with_dependencies([check], condition)
        return Assert(condition, data, summarize=summarize)


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> Operation:
    """Assert that x is of integer dtype (TypeError at once otherwise)."""
    message = message or ""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.base_dtype.is_integer:
            raise TypeError(
                f'{message}  Expected "x" to be integer type.  Found: {x.name} of dtype {x.dtype}'
            )
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_type(
    tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None
) -> Operation:
    """Statically asserts that the given tensor is of the given type."""
    message = message or ""
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{message}  {tensor.name} must be of type {tf_type}")
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_scalar(tensor: Any, name: str | None = None, message: str | None = None) -> Tensor:
    """The tensor itself, when it is a scalar (ValueError otherwise)."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        t = convert_to_tensor(tensor, name=scope)
        if t.shape.ndims != 0:
            raise ValueError(
                f"{message or ''}Expected scalar shape for {t.name}, saw shape: {t.shape}."
            )
        return t


def _assert_same_base_type(items: Sequence[Any], expected_type: Any = None) -> Any:
    original = expected_type
    mismatch = False
    for item in items:
        if item is not None:
            item_type = item.dtype.base_dtype
            if not expected_type:
                expected_type = item_type
            elif expected_type != item_type:
                mismatch = True
                break
    if not mismatch:
        return expected_type
    expected_type = original
    first = None
    for item in items:
        if item is None:
            continue
        item_type = item.dtype.base_dtype
        if not expected_type:
            expected_type = item_type
            first = item.name if hasattr(item, "name") else str(item)
        elif expected_type != item_type:
            label = item.name if hasattr(item, "name") else str(item)
            raise ValueError(
                f"{label}, type={item_type}, must be of the same type ({expected_type})"
                + (f" as {first}" if first else "")
                + "."
            )
    return expected_type


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> dtypes.DType:
    """The one floating dtype of the tensors (and dtype); ValueError otherwise."""
    if tensors:
        dtype = _assert_same_base_type(tensors, dtype)
    if not dtype:
        dtype = dtypes.float32
    elif not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


class _TensorDimSizes(NamedTuple):
    x: Tensor
    unspecified_dim: bool
    actual_sizes: Any
    symbolic_sizes: Any


def _dimension_sizes(x: Tensor) -> Any:
    dynamic = array_ops.shape(x)
    rank = x.shape.ndims
    if rank == 0:
        return (1,)
    if rank is not None:
        return [int(d) if d is not None else dynamic[i] for i, d in enumerate(x.shape.as_list())]
    has_rank_zero = math_ops.equal(array_ops.rank(x), 0)
    return control_flow_ops.cond(has_rank_zero, lambda: convert_to_tensor([1]), lambda: dynamic)


def _has_known_value(size: Any) -> bool:
    if size is None or isinstance(size, Tensor):
        return False
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return True


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Assert tensor shapes and dimension size relationships between tensors."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    message = message or ""
    shapes = list(shapes)
    with name_scope(name, "assert_shapes", [x for x, _ in shapes]):
        constraints = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]
        dims: list[_TensorDimSizes] = []
        for tensor, symbolic in constraints:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(
                    f"{message}.  Tensor {tensor.name}.  Specified shape must be an iterable.  "
                    "An iterable has the attribute `__iter__` or `__getitem__`.  Received "
                    f"specified shape: {symbolic}"
                )
            symbols = tuple(symbolic)
            innermost = False
            for i, symbol in enumerate(symbols):
                if symbol is not Ellipsis and symbol != "*":
                    continue
                if i != 0:
                    raise ValueError(
                        f"{message}.  Tensor {tensor.name} specified shape index {i}.  Symbol "
                        "`...` or `*` for a variable number of unspecified dimensions is only "
                        "allowed as the first entry"
                    )
                innermost = True
            sized = symbols[1:] if innermost else symbols
            dims.append(_TensorDimSizes(tensor, innermost, _dimension_sizes(tensor), sized or (1,)))
        rank_assertions = []
        for sizes in dims:
            rank = len(sizes.symbolic_sizes)
            zero_or_one = rank in (0, 1)
            if sizes.unspecified_dim:
                if zero_or_one:
                    continue
                assertion = assert_rank_at_least(
                    sizes.x, rank, data=data, summarize=summarize, message=message, name=name
                )
            elif zero_or_one:
                assertion = assert_rank_in(
                    sizes.x, [0, 1], data=data, summarize=summarize, message=message, name=name
                )
            else:
                assertion = assert_rank(
                    sizes.x, rank, data=data, summarize=summarize, message=message, name=name
                )
            rank_assertions.append(assertion)
        size_assertions = []
        specified: dict[Any, tuple[Any, Tensor, int]] = {}
        for sizes in dims:
            for i, symbol in enumerate(sizes.symbolic_sizes):
                if symbol in (None, "."):
                    continue
                dim = i - len(sizes.symbolic_sizes) if sizes.unspecified_dim else i
                if symbol in specified or _has_known_value(symbol):
                    if _has_known_value(symbol):
                        want: Any = int(symbol)
                        how = "Specified explicitly"
                    else:
                        want, by, at = specified[symbol]
                        how = f"Specified by tensor {by.name} dimension {at}"
                    actual = sizes.actual_sizes[dim]
                    if _has_known_value(actual) and _has_known_value(want):
                        if int(actual) != int(want):
                            raise ValueError(
                                f"{message}.  {how}.  Tensor {sizes.x.name} dimension {dim} must "
                                f"have size {int(want)}.  Received size {int(actual)}, shape "
                                f"{sizes.x.shape}"
                            )
                        continue
                    condition = math_ops.equal(convert_to_tensor(actual), convert_to_tensor(want))
                    data_ = data
                    if data is None:
                        data_ = [
                            message,
                            how,
                            f"Tensor {sizes.x.name} dimension",
                            dim,
                            "must have size",
                            want,
                            "Received shape: ",
                            array_ops.shape(sizes.x),
                        ]
                    size_assertions.append(Assert(condition, data_, summarize=summarize))
                else:
                    specified[symbol] = (sizes.actual_sizes[dim], sizes.x, dim)
        with control_dependencies(rank_assertions):
            return control_flow_ops.group(size_assertions)


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether tensor is a Tensor of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.base_dtype in NUMERIC_TYPES


def _diff_for_monotonic_comparison(x: Any) -> Tensor:
    x = array_ops.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    is_shorter_than_two = math_ops.less(array_ops.size(x), 2)
    s_len = array_ops.shape(x) - 1

    def diff() -> Tensor:
        end = [1] + s_len  # noqa: RUF005 - s_len is a tensor: this is tf.add
        return array_ops.strided_slice(x, [1], end) - array_ops.strided_slice(x, [0], s_len)

    return control_flow_ops.cond(
        is_shorter_than_two, lambda: convert_to_tensor([], dtype=x.dtype.base_dtype), diff
    )


def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """True when x[i] <= x[i+1] for all i (x flattened)."""
    with name_scope(name, "is_non_decreasing", [x]):
        diff = _diff_for_monotonic_comparison(x)
        zero = convert_to_tensor(0, dtype=diff.dtype.base_dtype)
        return math_ops.reduce_all(math_ops.less_equal(zero, diff))


def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """True when x[i] < x[i+1] for all i (x flattened)."""
    with name_scope(name, "is_strictly_increasing", [x]):
        diff = _diff_for_monotonic_comparison(x)
        zero = convert_to_tensor(0, dtype=diff.dtype.base_dtype)
        return math_ops.reduce_all(math_ops.less(zero, diff))


__all__ = [
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_type",
    "is_non_decreasing",
    "is_numeric_tensor",
    "is_strictly_increasing",
]
