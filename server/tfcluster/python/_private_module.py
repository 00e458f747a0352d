"""What a module of TF's private tree served here answers for a name it lacks: a name TF
1.15's module has raises tf.errors.UnimplementedError naming it on use; any other name raises
AttributeError as TF's module does (`module 'tensorflow.python.ops.rnn' has no attribute ...`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import errors
from tfcluster.python import _tf115_private_names


def tf_names(path: str) -> frozenset[str]:
    """The names TF 1.15's module tensorflow.<path> ("python.ops.rnn") holds."""
    return frozenset(_tf115_private_names.NAMES[path])


class UnimplementedName:
    """A name of TF's module tfcluster does not implement: using it raises
    UnimplementedError naming it."""

    def __init__(self, qualified: str) -> None:
        self._qualified = qualified

    def _raise(self) -> Any:
        raise errors.UnimplementedError(
            None, None, f"{self._qualified} is not implemented in tfcluster"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._raise()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._raise()

    def __repr__(self) -> str:
        return f"<unimplemented {self._qualified}>"


def module_getattr(path: str) -> Callable[[str], Any]:
    """The module-level __getattr__ of tfcluster.<path>, which serves tensorflow.<path>."""
    names = tf_names(path)
    tf_module = f"tensorflow.{path}"

    def __getattr__(name: str) -> Any:
        if name in names:
            return UnimplementedName(f"{tf_module}.{name}")
        raise AttributeError(f"module '{tf_module}' has no attribute '{name}'")

    return __getattr__
