"""tf.test.StubOutForTesting: replaces attributes of modules, classes or instances for a
test and puts the originals back on CleanUp (or leaving a `with` block), as TF 1.15's."""

from __future__ import annotations

import inspect
from typing import Any


class StubOutForTesting:
    def __init__(self) -> None:
        self.cache: list[tuple[Any, Any, str]] = []
        self.stubs: list[tuple[Any, str, Any]] = []

    def __del__(self) -> None:
        self.CleanUp()

    def __enter__(self) -> StubOutForTesting:
        return self

    def __exit__(self, *unused: Any) -> None:
        self.CleanUp()

    def CleanUp(self) -> None:
        """Undoes every SmartSet() and Set(), restoring the original definitions."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj: Any, attr_name: str, new_attr: Any) -> None:
        """Replaces obj.attr_name; for an instance without its own attribute the class is
        stubbed (so every instance sees it). AttributeError when there is no such attribute."""
        obj = inspect.unwrap(obj) if callable(obj) and not inspect.isclass(obj) else obj
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in vars(obj)):
            owner = obj
        else:
            owner = obj if inspect.isclass(obj) else obj.__class__
            if not hasattr(obj, attr_name):
                raise AttributeError("Attribute not found.")
        original = getattr(obj, attr_name)
        if isinstance(getattr(obj, "__dict__", {}).get(attr_name), staticmethod):
            original = staticmethod(original)
        self.stubs.append((owner, attr_name, original))
        setattr(owner, attr_name, new_attr)

    def SmartUnsetAll(self) -> None:
        for owner, name, original in reversed(self.stubs):
            setattr(owner, name, original)
        self.stubs = []

    def Set(self, parent: Any, child_name: str, new_child: Any) -> None:
        """Replaces parent.child_name (on parent itself, even an instance)."""
        old_child = getattr(parent, child_name)
        if isinstance(getattr(parent, "__dict__", {}).get(child_name), staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self) -> None:
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []
