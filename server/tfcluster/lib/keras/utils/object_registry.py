"""Keras's object (de)serialization: `{"class_name": ..., "config": ...}` dicts, and the custom
objects a user registers globally (`get_custom_objects()`) or for a block of code
(`CustomObjectScope` / `custom_object_scope`), as TF 1.15's keras.utils.generic_utils has them."""

from __future__ import annotations

import inspect
from typing import Any

_GLOBAL_CUSTOM_OBJECTS: dict[str, Any] = {}


class CustomObjectScope:
    """Within `with CustomObjectScope({"name": obj}):` deserialization finds `name`."""

    def __init__(self, *args: dict[str, Any]) -> None:
        self.custom_objects = args
        self.backup: dict[str, Any] | None = None

    def __enter__(self) -> CustomObjectScope:
        self.backup = _GLOBAL_CUSTOM_OBJECTS.copy()
        for objects in self.custom_objects:
            _GLOBAL_CUSTOM_OBJECTS.update(objects)
        return self

    def __exit__(self, *args: Any) -> None:
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(self.backup or {})


def custom_object_scope(*args: dict[str, Any]) -> CustomObjectScope:
    return CustomObjectScope(*args)


def get_custom_objects() -> dict[str, Any]:
    """The global dict itself: assigning into it registers an object for every load."""
    return _GLOBAL_CUSTOM_OBJECTS


def serialize_keras_object(instance: Any) -> Any:
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": type(instance).__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError("Cannot serialize", instance)


def class_and_config_for_serialized_keras_object(
    config: Any,
    module_objects: dict[str, Any] | None = None,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str = "object",
) -> tuple[Any, Any]:
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError("Improper config format: " + str(config))
    class_name = config["class_name"]
    cls = _lookup(class_name, module_objects, custom_objects)
    if cls is None:
        raise ValueError(f"Unknown {printable_module_name}: {class_name}")
    return cls, config["config"]


def _lookup(name: str, module_objects: Any, custom_objects: Any) -> Any:
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    return (module_objects or {}).get(name)


def deserialize_keras_object(
    identifier: Any,
    module_objects: dict[str, Any] | None = None,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str = "object",
) -> Any:
    """An object from a config dict (its class's from_config, else the class called with
    the config) or a function/class from its name."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls, cls_config = class_and_config_for_serialized_keras_object(
            identifier, module_objects, custom_objects, printable_module_name
        )
        if hasattr(cls, "from_config"):
            params = inspect.signature(cls.from_config).parameters
            if "custom_objects" in params:
                merged = {**_GLOBAL_CUSTOM_OBJECTS, **(custom_objects or {})}
                return cls.from_config(cls_config, custom_objects=merged)
            with CustomObjectScope(custom_objects or {}):
                return cls.from_config(cls_config)
        with CustomObjectScope(custom_objects or {}):
            return cls(**cls_config)
    if isinstance(identifier, str):
        found = _lookup(identifier, module_objects, custom_objects)
        if found is None:
            raise ValueError(f"Unknown {printable_module_name}:{identifier}")
        return found
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")
