"""What the ops do given a RaggedTensor, registered with framework/dispatch as TF 1.15's
ragged_dispatch registers them: element-wise ops apply to the flat values (operands sharing
one row partition, or a dense operand broadcasting over the inner dimensions), reductions
and concat/stack go to their ragged forms. Also RaggedTensor's operators."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfcluster.framework import dispatch
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor
from tfcluster.lib.ragged import array as ragged_array
from tfcluster.lib.ragged import math as ragged_math
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
from tfcluster.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

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


def _same_partition_checks(rts: list[RaggedTensor]) -> list[Any]:
    first = rts[0]
    checks = []
    for other in rts[1:]:
        if other.ragged_rank != first.ragged_rank:
            raise ValueError("Inputs must have identical ragged splits (ragged_rank differs)")
        for a, b in zip(first.nested_row_splits, other.nested_row_splits):
            if a is not b:
                checks.append(
                    ragged_checks.assert_equal(
                        a, b, message="Inputs must have identical ragged splits"
                    )
                )
    return checks


def _flat_operand(value: Any, rt: RaggedTensor, dtype: Any) -> Any:
    """A dense operand of an element-wise op with `rt`: it may broadcast over the inner
    (uniform) dimensions of rt's flat values, not over its ragged ones."""
    if isinstance(value, RaggedTensor):
        return value.flat_values
    t = convert_to_tensor(value, dtype=dtype)
    inner_rank = (rt.flat_values.shape.ndims or 1) - 1
    if t.shape.ndims is not None and t.shape.ndims > inner_rank:
        raise ValueError(
            f"tfcluster broadcasts a dense operand of rank {t.shape.ndims} over a RaggedTensor "
            f"only along its {inner_rank} uniform inner dimension(s)"
        )
    return t


def _elementwise(fn: Callable[..., Any], operands: list[str]) -> Callable[..., Any]:
    original = getattr(fn, "__wrapped__", fn)
    signature = inspect.signature(original)

    def handler(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        values = [bound.arguments.get(n) for n in operands]
        rts = [v for v in values if isinstance(v, RaggedTensor)]
        checks = _same_partition_checks(rts)
        dtype = next((v.dtype for v in values if isinstance(v, (RaggedTensor, Tensor))), None)
        for n, v in zip(operands, values):
            if n in bound.arguments:
                bound.arguments[n] = _flat_operand(v, rts[0], dtype)
        with control_dependencies(checks):
            flat = original(*bound.args, **bound.kwargs)
        return rts[0].with_flat_values(flat)

    return handler


def _list_elementwise(fn: Callable[..., Any]) -> Callable[..., Any]:
    original = getattr(fn, "__wrapped__", fn)
    signature = inspect.signature(original)
    list_name = next(iter(signature.parameters))

    def handler(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        inputs = [convert_to_tensor_or_ragged_tensor(v) for v in bound.arguments[list_name]]
        rts = [v for v in inputs if isinstance(v, RaggedTensor)]
        checks = _same_partition_checks(rts)
        bound.arguments[list_name] = [_flat_operand(v, rts[0], None) for v in inputs]
        with control_dependencies(checks):
            flat = original(*bound.args, **bound.kwargs)
        return rts[0].with_flat_values(flat)

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
            else:
                handler = _elementwise(
                    fn, _param_names(fn)[: 2 if n in dispatch.BINARY_ELEMENTWISE else 1]
                )
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
