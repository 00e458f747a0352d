"""A Lambda layer's functions in its config as TF 1.15 writes them: a Python function as its
marshalled bytecode in base64 with defaults and closure (`func_dump`; readable only by the same
Python version, as in Keras), a named function by name, an output shape as it is ("raw")."""

from __future__ import annotations

import codecs
import marshal
import sys
import types
from typing import Any

from tfcluster.lib.keras.utils import object_registry


def func_dump(func: Any) -> tuple[str, Any, Any]:
    code = codecs.encode(marshal.dumps(func.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def _cell(value: Any) -> Any:
    def holder() -> Any:
        return value

    return holder.__closure__[0]  # type: ignore[index]


def func_load(code: Any, defaults: Any = None, closure: Any = None, globs: Any = None) -> Any:
    if isinstance(code, (tuple, list)):
        code, defaults, closure = code
        if isinstance(defaults, list):
            defaults = tuple(defaults)
    if closure is not None:
        closure = tuple(_cell(c) for c in closure)
    try:
        raw = codecs.decode(code.encode("ascii"), "base64")
        loaded = marshal.loads(raw)
    except (ValueError, EOFError, TypeError) as e:
        raise ValueError(
            "The Lambda layer's function was saved by another Python version (its bytecode "
            f"cannot be read here: {e}); rebuild the Lambda layer in code, or pass it in "
            "custom_objects as a named function."
        ) from e
    return types.FunctionType(
        loaded, globs or globals(), name=loaded.co_name, argdefs=defaults, closure=closure
    )


def to_config(key: str, value: Any, allow_raw: bool) -> dict[str, Any]:
    if isinstance(value, types.FunctionType):
        # Keras dumps every Python function's bytecode (LambdaType is FunctionType).
        return {key: func_dump(value), f"{key}_type": "lambda", _module_key(key): value.__module__}
    if callable(value):
        return {key: value.__name__, f"{key}_type": "function", _module_key(key): value.__module__}
    if allow_raw:
        return {key: value, f"{key}_type": "raw", _module_key(key): None}
    raise ValueError(f"Invalid input for serialization, type: {type(value)} ")


def _module_key(key: str) -> str:
    return "module" if key == "function" else f"{key}_module"


def globals_for(module: Any, custom_objects: Any) -> dict[str, Any]:
    globs = dict(globals())
    if module in sys.modules:
        globs.update(sys.modules[module].__dict__)
    globs.update(custom_objects or {})
    return globs


def from_config(config: dict[str, Any], key: str, globs: Any, custom_objects: Any) -> Any:
    kind = config.pop(f"{key}_type", None)
    value = config[key]
    if kind == "function":
        return object_registry.deserialize_keras_object(
            value, custom_objects=custom_objects, printable_module_name="function in Lambda layer"
        )
    if kind == "lambda":
        return func_load(value, globs=globs)
    return value
