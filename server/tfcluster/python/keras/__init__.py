"""`tensorflow.python.keras`: TF 1.15's Keras package, which programs of TF 1.13-1.15 import
directly (`from tensorflow.python.keras.layers import Dense`, `from tensorflow.python.keras
import backend as K`). It is tf.keras: each of its modules here is the module object of
tf.keras of the same name (one class per name, so isinstance checks hold across both
spellings); a module tf.keras lacks fails on import."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import Any

_PUBLIC = "tfcluster.keras"


def _public_name(fullname: str) -> str:
    return _PUBLIC + fullname[len(__name__) :]


class _KerasModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tfcluster.python.keras.<path>` as `tfcluster.keras.<path>`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(f"{__name__}."):
            return None
        try:
            importlib.import_module(_public_name(fullname))
        except ImportError:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None  # a placeholder, replaced by tf.keras's module in exec_module

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__spec__.name if module.__spec__ is not None else module.__name__
        sys.modules[name] = sys.modules[_public_name(name)]


if not any(isinstance(f, _KerasModuleFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _KerasModuleFinder())


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module(_PUBLIC), name)
