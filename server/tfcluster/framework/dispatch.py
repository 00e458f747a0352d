"""Type-based dispatch for op functions, as TF 1.15's `dispatch.add_dispatch_support`: an op
function marked `dispatchable` hands its call to the handler a library registered for it
when one of its arguments is of a registered type (tf.RaggedTensor registers its ops here;
the floor holds only the registry, so ops never import the library that extends them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_TYPES: list[type] = []
_HANDLERS: dict[str, Callable[..., Any]] = {}


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
    key = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _TYPES:
            types = tuple(_TYPES)
            if _any_dispatched(args, types) or _any_dispatched(kwargs.values(), types):
                handler = _HANDLERS.get(key)
                if handler is not None:
                    return handler(*args, **kwargs)
        return fn(*args, **kwargs)

    wrapper.dispatch_key = key  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def key_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "dispatch_key", f"{fn.__module__}.{fn.__qualname__}")
