"""tf.Tensor/tf.Variable.experimental_ref(): a hashable handle that compares by identity
(TF 1.15's object_identity.Reference), so tensors and variables can key dicts and sets."""

from __future__ import annotations

from typing import Any


class Reference:
    """Refers to one object: equal only to another Reference to the very same object."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        """The object referred to."""
        return self._wrapped

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reference):
            raise TypeError("Cannot compare wrapped object with unwrapped object")
        return self._wrapped is other._wrapped

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"
