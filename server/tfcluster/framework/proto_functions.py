"""Graph collections whose items are Python objects saved as protos in a MetaGraphDef
(variables as VariableDef, savers as SaverDef, queue runners as QueueRunnerDef): each
owner registers how to write and rebuild its objects (TF's ops.register_proto_function)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_REGISTRY: dict[str, tuple[Any, Callable[..., Any] | None, Callable[..., Any] | None]] = {}


def register_proto_function(
    collection_name: str,
    proto_type: Any = None,
    to_proto: Callable[..., Any] | None = None,
    from_proto: Callable[..., Any] | None = None,
) -> None:
    if to_proto is not None and not callable(to_proto):
        raise TypeError("to_proto must be callable.")
    if from_proto is not None and not callable(from_proto):
        raise TypeError("from_proto must be callable.")
    _REGISTRY[collection_name] = (proto_type, to_proto, from_proto)


def get_collection_proto_type(collection_name: str) -> Any:
    return _REGISTRY.get(collection_name, (None, None, None))[0]


def get_to_proto_function(collection_name: str) -> Callable[..., Any] | None:
    return _REGISTRY.get(collection_name, (None, None, None))[1]


def get_from_proto_function(collection_name: str) -> Callable[..., Any] | None:
    return _REGISTRY.get(collection_name, (None, None, None))[2]
