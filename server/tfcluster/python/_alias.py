"""Makes a module of tensorflow.python's tree be the tfcluster module that does its job."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def alias(name: str, target: str) -> None:
    """`import tfcluster.python.<...>` (module `name`) gives module `target` itself."""
    module = importlib.import_module(target)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    # `from tfcluster.python.ops import math_ops` reads the parent's attribute.
    setattr(sys.modules[parent], child, module)


def fill_with_face_functions(name: str, target: str, face_path: str) -> None:
    """Module `name` gets the names of module `target`, its functions being the very objects
    the face `tf.<face_path>` holds: TF's private modules hold the decorated functions its
    public modules re-export, so a deprecated one announces itself on the first call through
    either path, once."""
    module = sys.modules[name]
    namespace = {
        key: value
        for key, value in vars(importlib.import_module(target)).items()
        if not key.startswith("__")
    }
    face = _face(face_path)
    for key, value in face.items():
        if key in namespace and not key.startswith("_") and callable(value):
            namespace[key] = value
    module.__dict__.update(namespace)


def _face(face_path: str) -> dict[str, Any]:
    """The namespace of `tf.<face_path>` once read through the top level (reads that give a
    face its deprecation wrappers; tfcluster's own reads announce nothing)."""
    face: Any = importlib.import_module("tfcluster")
    for part in face_path.split("."):
        face = getattr(face, part)
    namespace: dict[str, Any] = types.ModuleType.__getattribute__(face, "__dict__")
    return namespace


def face_function(face_path: str, name: str) -> Any:
    """The function `tf.<face_path>.<name>` as the program reads it (deprecation included)."""
    return _face(face_path)[name]
