"""Makes a module of tensorflow.python's tree be the tfcluster module that does its job."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_FACES = "tfcluster.api."


def alias(name: str, target: str) -> None:
    """`import tfcluster.python.<...>` (module `name`) gives module `target` itself, or for
    the face of a public module (tfcluster.api.<path>) the view of it TF's own module is."""
    if target.startswith(_FACES):
        module = _face_view(target[len(_FACES) :])
    else:
        module = importlib.import_module(target)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    # `from tfcluster.python.ops import math_ops` reads the parent's attribute.
    setattr(sys.modules[parent], child, module)


def _face_view(path: str) -> types.ModuleType:
    """`tf.<path>` as TF's module behind it shows it (tensorflow.python.platform.gfile behind
    tf.gfile): its deprecated functions warn, as the face read through the top level has
    them wrap (FastGFile), and its renamed names do not (TF warns of those only when read as
    `tf.<path>.<name>`): a quiet view, as tf.compat.v1 shows it."""
    from tfcluster.api import _deprecated_names

    face: Any = importlib.import_module("tfcluster")
    for part in path.split("."):
        face = getattr(face, part)
    return _deprecated_names.quiet_view(face)


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
