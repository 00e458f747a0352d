"""What the task server's gRPC interceptors share: each wraps a method's handler once (again
only when the service hands a new one), and a wrapper keeps the handler's (de)serializers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class WrappedHandlers:
    """Method path -> (the service's handler, its wrapper)."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    def get(self, path: str, handler: Any, wrap: Callable[[Any], Any]) -> Any:
        """wrap(handler), made on the method's first call and whenever its handler changes."""
        cached = self._wrapped.get(path)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = wrap(handler)
        self._wrapped[path] = (handler, wrapped)
        return wrapped


def coding_of(handler: Any) -> dict[str, Any]:
    """The keyword arguments that give a wrapper the handler's request and response coding."""
    return {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
