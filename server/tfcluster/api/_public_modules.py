"""The public face of the `tfcluster` package: TF 1.15's module tree, and nothing else.

`import tfcluster.nn` / `from tfcluster.keras.layers import Dense` find the face module of
that TF module (or its unimplemented stand-in), as `tf.nn` does; the implementation packages
(framework, ops, kernels, ...) stay importable by their full path but are not attributes of
the top-level module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import pkgutil
import sys
import types
from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.api import _unimplemented

_PACKAGE = "tfcluster"


def public_dir(namespace: Mapping[str, Any], module_path: str) -> list[str]:
    names = _unimplemented.tf_names().get(module_path, frozenset())
    names |= _unimplemented.tf_submodules(module_path)
    defined = {n for n, v in namespace.items() if not n.startswith("_") and not _is_internal(n, v)}
    return sorted(names | defined)


def _internal_packages(package: types.ModuleType) -> frozenset[str]:
    """The package's own subpackages and modules that are not modules of TF's tree."""
    public = _unimplemented.tf_submodules("")
    return frozenset(
        info.name for info in pkgutil.iter_modules(package.__path__) if info.name not in public
    )


_INTERNAL: frozenset[str] = frozenset()


def _is_internal(name: str, value: Any) -> bool:
    return name in _INTERNAL and isinstance(value, types.ModuleType)


class _TopLevelModule(types.ModuleType):
    """The `tfcluster` module: the import system's binding of an implementation package as an
    attribute (done on its first import) is dropped; the package stays in sys.modules."""

    def __setattr__(self, name: str, value: Any) -> None:
        if _is_internal(name, value):
            return
        super().__setattr__(name, value)


class _PublicModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tfcluster.<TF module path>` as that module's face (after the real packages)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        prefix = f"{_PACKAGE}."
        if not fullname.startswith(prefix):
            return None
        module_path = fullname[len(prefix) :]
        if module_path not in _unimplemented.tf_names():
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _unimplemented.public_module(spec.name[len(_PACKAGE) + 1 :])
        if not hasattr(module, "__path__"):
            # Its TF submodules are found by this finder too.
            module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """The face is complete when created."""


def install(top: types.ModuleType) -> None:
    """Makes `top` (the tfcluster package) show TF's tree only; called once, at its end."""
    global _INTERNAL
    _INTERNAL = _internal_packages(top)
    for name in list(vars(top)):
        if _is_internal(name, vars(top)[name]):
            delattr(top, name)
    top.__class__ = _TopLevelModule
    if not any(isinstance(f, _PublicModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_PublicModuleFinder())
