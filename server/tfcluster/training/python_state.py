"""tf.train.experimental.PythonState: Python state saved in an object-based checkpoint. A
subclass says how its state becomes a string (serialize) and back (deserialize); a
tf.train.Checkpoint saves the string under '<path>/.ATTRIBUTES/py_state' and gives it back to
deserialize when restore() matches the object (at once, or when the object is attached later),
as TF 1.15 does."""

from __future__ import annotations

import abc
from typing import Any

PY_STATE_KEY = "py_state"


class PythonState(abc.ABC):
    """A mixin for putting Python state in an object-based checkpoint."""

    @abc.abstractmethod
    def serialize(self) -> Any:
        """Callback to serialize the object. Returns a string."""

    @abc.abstractmethod
    def deserialize(self, string_value: Any) -> None:
        """Callback to deserialize the object."""
