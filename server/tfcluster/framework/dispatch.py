"""Type-based dispatch for op functions, as TF 1.15's `dispatch.add_dispatch_support`: an op
function marked `dispatchable` that fails on an argument of a registered type hands the call
to the handler a library registered for it (tf.RaggedTensor registers its ops here;
the floor holds only the registry, so ops never import the library that extends them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_TYPES: list[type] = []
_HANDLERS: dict[str, Callable[..., Any]] = {}
# What a handler returns for arguments it does not take: the function's own error stands.
NOT_SUPPORTED = object()


def register_type(cls: type) -> None:
    if cls not in _TYPES:
        _TYPES.append(cls)


def register(key: str, handler: Callable[..., Any]) -> None:
    """handler runs in place of the dispatchable function `key` (module.qualname) whenever
    one of its arguments (or an item of a list argument) is of a registered type."""
    _HANDLERS[key] = handler


def _any_dispatched(values: Any, types: tuple[type, ...]) -> bool:
    for v in values:
        if isinstance(v, types):
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(x, types) for x in v):
            return True
    return False


def dispatchable(fn: F) -> F:
    """fn runs first, as TF's add_dispatch_support runs it: only when it fails (TypeError or
    ValueError, e.g. converting a RaggedTensor to a tensor) and an argument is of a registered
    type does the handler run (the names fn's own scopes took stay taken, as in TF)."""
    key = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError) as error:
            handler = _HANDLERS.get(key)
            if handler is None or not _TYPES:
                raise
            types = tuple(_TYPES)
            if not (_any_dispatched(args, types) or _any_dispatched(kwargs.values(), types)):
                raise
            failure = error
        result = handler(*args, **kwargs)
        if result is NOT_SUPPORTED:
            raise failure
        return result

    wrapper.dispatch_key = key  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def key_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "dispatch_key", f"{fn.__module__}.{fn.__qualname__}")


# The op functions that take a RaggedTensor in TF 1.15 (its ragged_dispatch lists), by module:
# each module wraps its own at import, so every importer sees the dispatching function.
# The element-wise ones on two operands are named once here: handlers (tf.ragged's) need to
# know which parameters broadcast.
_BINARY_BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
_BINARY_MATH = (
    "add",
    "div_no_nan",
    "divide",
    "equal",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "not_equal",
    "pow",
    "realdiv",
    "squared_difference",
    "subtract",
    "truediv",
    "truncatediv",
    "truncatemod",
)
_BINARY_OTHER = ("atan2", "complex")
BINARY_ELEMENTWISE = frozenset(_BINARY_BITWISE + _BINARY_MATH + _BINARY_OTHER)

DISPATCHED: dict[str, tuple[str, ...]] = {
    "tfcluster.ops.array_ops": (
        "identity",
        "ones_like",
        "zeros_like",
        "concat",
        "stack",
        "gather",
        "expand_dims",
        "size",
        "rank",
        "tile",
    ),
    "tfcluster.ops.clip_ops": ("clip_by_value",),
    "tfcluster.ops.bitwise_ops": ("invert", *_BINARY_BITWISE),
    "tfcluster.ops.math_ops": (
        "abs",
        "acos",
        "asin",
        "atan",
        "cast",
        "ceil",
        "conj",
        "cos",
        "exp",
        "expm1",
        "floor",
        "is_finite",
        "is_inf",
        "is_nan",
        "log",
        "log1p",
        "logical_not",
        "negative",
        "reciprocal",
        "round",
        "rsqrt",
        "saturate_cast",
        "sign",
        "sin",
        "sqrt",
        "square",
        "tan",
        *_BINARY_MATH,
        "add_n",
        "reduce_sum",
        "reduce_prod",
        "reduce_min",
        "reduce_max",
        "reduce_mean",
        "reduce_any",
        "reduce_all",
    ),
    "tfcluster.ops.string_ops": (
        "as_string",
        "regex_full_match",
        "regex_replace",
        "strip",
        "string_to_hash_bucket",
        "string_to_hash_bucket_fast",
        "string_to_hash_bucket_strong",
        "substr",
        "string_length",
        "string_join",
        "decode_base64",
        "encode_base64",
    ),
    "tfcluster.ops.special_math_ops": (
        "acosh",
        "asinh",
        "atanh",
        "cosh",
        "digamma",
        "erf",
        "erfc",
        "lgamma",
        "log_sigmoid",
        "rint",
        "sinh",
        "atan2",
    ),
    "tfcluster.ops.complex_ops": ("angle", "imag", "real", "complex"),
    "tfcluster.ops.numerics": ("check_numerics",),
    # (TF 1.15 lists string_to_number too, but tf.strings.to_number is another function.)
    "tfcluster.ops.parsing_ops": ("decode_compressed",),
    "tfcluster.ops.unicode_ops": ("unicode_script",),
}


def make_dispatchable(namespace: dict[str, Any]) -> None:
    """Wraps the functions DISPATCHED lists for the module whose globals are `namespace`."""
    for name in DISPATCHED.get(namespace["__name__"], ()):
        fn = namespace[name]
        if not hasattr(fn, "dispatch_key"):
            namespace[name] = dispatchable(fn)
