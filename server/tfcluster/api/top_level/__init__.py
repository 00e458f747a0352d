"""The names of `tf.*`, one module per area (core, variable scopes, ...): each lists what it
exports in `__all__`, and the top-level package re-exports them all."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any


def exported() -> dict[str, Any]:
    """name -> object, from every module of this package, in module-name order."""
    out: dict[str, Any] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name in module.__all__:
            if name in out and out[name] is not getattr(module, name):
                raise ImportError(f"tf.{name} is exported twice (again by {module.__name__})")
            out[name] = getattr(module, name)
    return out
