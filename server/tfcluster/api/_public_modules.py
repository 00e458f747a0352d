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

from tfcluster.api import _deprecated_names, _unimplemented

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


class _TopLevelModule(_deprecated_names.DeprecatingModule):
    """The `tfcluster` module: the import system's binding of an implementation package as an
    attribute (done on its first import) is dropped; the package stays in sys.modules."""

    def __setattr__(self, name: str, value: Any) -> None:
        if _is_internal(name, value):
            return
        super().__setattr__(name, value)


# tf.compat.v1 is tf itself: `import tfcluster.compat.v1.nn` is `import tfcluster.nn`.
_TOP_ALIAS = "compat.v1"


def _canonical(module_path: str) -> str:
    while module_path == _TOP_ALIAS or module_path.startswith(f"{_TOP_ALIAS}."):
        module_path = module_path[len(_TOP_ALIAS) + 1 :]
    return module_path


def _other_module(module_path: str) -> types.ModuleType | None:
    """The module of the tree that `tfcluster.<module_path>` names when it is not that path's
    own face: tfcluster itself for tf.compat.v1, tf.flags for tf.app.flags, ..."""
    canonical = _canonical(module_path)
    if canonical != module_path:
        # tf.compat.v1's modules read without TF 1.15's deprecation warnings.
        module = sys.modules[_PACKAGE] if not canonical else _unimplemented.public_module(canonical)
        return _deprecated_names.quiet_view(module)
    return _unimplemented.face_alias(module_path)


class _PublicModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tfcluster.<TF module path>` as that module's face (one module object per face)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        prefix = f"{_PACKAGE}."
        if not fullname.startswith(prefix):
            return None
        module_path = fullname[len(prefix) :]
        if _canonical(module_path).split(".")[0] == _unimplemented.CONTRIB:
            # `from tensorflow.contrib import rnn`: say what tf.contrib is, not "no module".
            _unimplemented.raise_unimplemented(f"tf.{_canonical(module_path)}")
        if _canonical(module_path) not in _unimplemented.tf_names():
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        module_path = spec.name[len(_PACKAGE) + 1 :]
        if _other_module(module_path) is not None:
            # A placeholder that exec_module replaces by that module, so that the import
            # system never rebinds the other module's __spec__.
            return None
        module = _unimplemented.public_module(module_path)
        if not hasattr(module, "__path__"):
            # Its TF submodules are found by this finder too.
            module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """A face is complete when created; another module takes a placeholder's place."""
        name = module.__spec__.name if module.__spec__ is not None else module.__name__
        other = _other_module(name[len(_PACKAGE) + 1 :])
        if other is not None:
            sys.modules[name] = other


def install(top: types.ModuleType) -> None:
    """Makes `top` (the tfcluster package) show TF's tree only; called once, at its end."""
    global _INTERNAL
    _INTERNAL = _internal_packages(top)
    for name in list(vars(top)):
        if _is_internal(name, vars(top)[name]):
            delattr(top, name)
    top.__class__ = _TopLevelModule
    _deprecated_names.make_deprecating(top, "")
    if not any(isinstance(f, _PublicModuleFinder) for f in sys.meta_path):
        # First: a face package's own __path__ would otherwise let the path finder load its
        # submodules a second time under the public name.
        sys.meta_path.insert(0, _PublicModuleFinder())
