"""What the ops do given a RaggedTensor, registered with framework/dispatch as TF 1.15's
ragged_dispatch registers them: element-wise ops apply to the flat values (two operands
broadcast to one ragged shape first, lib/ragged/shape; list ops check their operands share
one row partition), reductions, concat/stack and tile go to their ragged forms. Also
RaggedTensor's operators."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfcluster.framework import dispatch
from tfcluster.framework.graph import control_dependencies, convert_to_tensor
from tfcluster.lib.ragged import array as ragged_array
from tfcluster.lib.ragged import math as ragged_math
from tfcluster.lib.ragged import shape as ragged_shape
from tfcluster.ops import (
    array_ops,
    bitwise_ops,
    clip_ops,
    complex_ops,
    math_ops,
    numerics,
    parsing_ops,
    ragged_checks,
    ragged_getitem,
    special_math_ops,
    string_ops,
    unicode_ops,
)
from tfcluster.ops.ragged_tensor import RaggedTensor

# Which DISPATCHED functions are element-wise on a list (the two-operand ones are
# dispatch.BINARY_ELEMENTWISE).
_LIST = {"add_n", "string_join"}
_MODULES = {
    "tfcluster.ops.array_ops": array_ops,
    "tfcluster.ops.bitwise_ops": bitwise_ops,
    "tfcluster.ops.clip_ops": clip_ops,
    "tfcluster.ops.math_ops": math_ops,
    "tfcluster.ops.string_ops": string_ops,
    "tfcluster.ops.special_math_ops": special_math_ops,
    "tfcluster.ops.complex_ops": complex_ops,
    "tfcluster.ops.numerics": numerics,
    "tfcluster.ops.parsing_ops": parsing_ops,
    "tfcluster.ops.unicode_ops": unicode_ops,
}


def _param_names(fn: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(getattr(fn, "__wrapped__", fn)).parameters)


def _splits_checks(rts: list[RaggedTensor]) -> list[Any]:
    """Run-time checks that the ragged operands of a list op share their row partitions (TF's
    assert_splits_match: one assert_equal per pair of splits)."""
    first = rts[0].nested_row_splits
    checks = []
    for other in rts[1:]:
        splits = other.nested_row_splits
        if len(splits) != len(first):
            raise ValueError("Inputs must have identical ragged splits")
        for a, b in zip(first, splits):
            checks.append(
                ragged_checks.assert_equal(a, b, message="Inputs must have identical ragged splits")
            )
    return checks


def _match_splits_dtypes(rts: list[RaggedTensor]) -> None:
    if len({rt.row_splits.dtype.base_dtype for rt in rts}) > 1:
        raise ValueError(
            "Input RaggedTensors have mismatched row_splits dtypes; use "
            "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
        )


def _unary(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The op on the flat values of a ragged first operand (other arguments as they are)."""
    original = getattr(fn, "__wrapped__", fn)
    first = _param_names(fn)[0]

    def handler(*args: Any, **kwargs: Any) -> Any:
        if args:
            x, rest = args[0], args[1:]
        else:
            kwargs = dict(kwargs)
            x, rest = kwargs.pop(first, None), ()
        if not isinstance(x, RaggedTensor):
            return dispatch.NOT_SUPPORTED
        return x.with_flat_values(original(x.flat_values, *rest, **kwargs))

    return handler


def _binary(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A two-operand element-wise op: a dense operand converted at the ragged one's dtype;
    both broadcast to one ragged shape (ragged_tensor_shape) unless the dense one has fewer
    dimensions than the ragged one's flat values (then it broadcasts over those alone); the
    op applies to the flat values."""
    original = getattr(fn, "__wrapped__", fn)
    x_name, y_name = _param_names(fn)[:2]

    def handler(*args: Any, **kwargs: Any) -> Any:
        kwargs = dict(kwargs)
        if len(args) > 1:
            x, y, rest = args[0], args[1], args[2:]
        elif args:
            x, y, rest = args[0], kwargs.pop(y_name, None), args[1:]
        else:
            x, y, rest = kwargs.pop(x_name, None), kwargs.pop(y_name, None), ()
        x_ragged, y_ragged = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
        if not (x_ragged or y_ragged):
            return dispatch.NOT_SUPPORTED
        try:
            if not x_ragged:
                x = convert_to_tensor(x, name=x_name, preferred_dtype=y.dtype)
            if not y_ragged:
                y = convert_to_tensor(y, name=y_name, preferred_dtype=x.dtype)
        except (TypeError, ValueError):
            return dispatch.NOT_SUPPORTED
        if x_ragged and y_ragged:
            _match_splits_dtypes([x, y])
        if (
            (x_ragged and y_ragged)
            or (x_ragged and _ndims(x.flat_values) <= _ndims(y))
            or (y_ragged and _ndims(y.flat_values) <= _ndims(x))
        ):
            shape = ragged_shape.broadcast_dynamic_shape(
                ragged_shape.RaggedTensorDynamicShape.from_tensor(x),
                ragged_shape.RaggedTensorDynamicShape.from_tensor(y),
            )
            x = ragged_shape.broadcast_to(x, shape, broadcast_inner_dimensions=False)
            y = ragged_shape.broadcast_to(y, shape, broadcast_inner_dimensions=False)
        x_values = x.flat_values if isinstance(x, RaggedTensor) else x
        y_values = y.flat_values if isinstance(y, RaggedTensor) else y
        mapped = original(x_values, y_values, *rest, **kwargs)
        if isinstance(x, RaggedTensor):
            return x.with_flat_values(mapped)
        return y.with_flat_values(mapped)

    return handler


def _ndims(t: Any) -> Any:
    """Static rank, compared as TF compares it (an unknown one is None)."""
    ndims = t.shape.ndims
    return -1 if ndims is None else ndims


def _list_elementwise(fn: Callable[..., Any]) -> Callable[..., Any]:
    """An op on a list (add_n, string_join): the ragged items must share one row partition
    (checked when the graph runs); the op applies to their flat values and dense items."""
    original = getattr(fn, "__wrapped__", fn)
    signature = inspect.signature(original)
    list_name = next(iter(signature.parameters))

    def handler(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        items = bound.arguments.get(list_name)
        if items is None or not any(isinstance(v, RaggedTensor) for v in items):
            return dispatch.NOT_SUPPORTED
        rts = [v for v in items if isinstance(v, RaggedTensor)]
        _match_splits_dtypes(rts)
        bound.arguments[list_name] = [
            v.flat_values if isinstance(v, RaggedTensor) else v for v in items
        ]
        with control_dependencies(_splits_checks(rts)):
            return RaggedTensor.from_nested_row_splits(
                original(*bound.args, **bound.kwargs), rts[0].nested_row_splits, validate=False
            )

    return handler


def _concat(values: Any, axis: Any, name: str | None = "concat") -> Any:
    return ragged_array.concat(values, axis, name=None if name == "concat" else name)


def _stack(values: Any, axis: int = 0, name: str | None = "stack") -> Any:
    return ragged_array.stack(values, axis, name=None if name == "stack" else name)


def _gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    name: str | None = None,
    axis: Any = None,
    batch_dims: int = 0,
) -> Any:
    if axis not in (None, 0) or batch_dims != 0:
        raise ValueError("tfcluster gathers ragged rows along axis 0 only (batch_dims=0)")
    return ragged_getitem.gather(params, indices, name=name)


def _register() -> None:
    special: dict[str, Callable[..., Any]] = {
        "concat": _concat,
        "stack": _stack,
        "gather": _gather,
        "expand_dims": ragged_array.expand_dims,
        "size": ragged_array.size,
        "rank": ragged_array.rank,
        "tile": ragged_array.tile,
        **{
            n: getattr(ragged_math, n)
            for n in (
                "reduce_sum",
                "reduce_prod",
                "reduce_min",
                "reduce_max",
                "reduce_mean",
                "reduce_any",
                "reduce_all",
            )
        },
    }
    for module_name, names in dispatch.DISPATCHED.items():
        module = _MODULES[module_name]
        for n in names:
            fn = getattr(module, n)
            if n in special:
                handler = special[n]
            elif n in _LIST:
                handler = _list_elementwise(fn)
            elif n in dispatch.BINARY_ELEMENTWISE:
                handler = _binary(fn)
            else:
                handler = _unary(fn)
            dispatch.register(dispatch.key_of(fn), handler)


def _unary_operator(op: Callable[..., Any]) -> Callable[[Any], Any]:
    return lambda x: op(x)


def _install_operators() -> None:
    """RaggedTensor's operators, each the dispatched op (tf.add for +, ...)."""

    def binary(fn: Callable[..., Any]) -> tuple[Any, Any]:
        return (lambda x, y: fn(x, y)), (lambda x, y: fn(y, x))

    table = {
        "add": math_ops.add,
        "sub": math_ops.subtract,
        "mul": math_ops.multiply,
        "div": math_ops.divide,
        "truediv": math_ops.truediv,
        "floordiv": math_ops.floordiv,
        "mod": math_ops.floormod,
        "pow": math_ops.pow,
        "and": math_ops.logical_and,
        "or": math_ops.logical_or,
        "xor": math_ops.logical_xor,
    }
    for name, fn in table.items():
        forward, reverse = binary(fn)
        setattr(RaggedTensor, f"__{name}__", forward)
        setattr(RaggedTensor, f"__r{name}__", reverse)
    comparisons = {
        "lt": math_ops.less,
        "le": math_ops.less_equal,
        "gt": math_ops.greater,
        "ge": math_ops.greater_equal,
    }
    for name, fn in comparisons.items():
        setattr(RaggedTensor, f"__{name}__", binary(fn)[0])
    unary = {"neg": math_ops.negative, "abs": math_ops.abs, "invert": math_ops.logical_not}
    for name, op in unary.items():
        setattr(RaggedTensor, f"__{name}__", _unary_operator(op))


_register()
_install_operators()
