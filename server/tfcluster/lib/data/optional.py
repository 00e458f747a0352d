"""tf.data.experimental.Optional and get_next_as_optional: a value that may be absent, as a
scalar variant tensor (ops/optional_ops.py)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, colocate_with, name_scope
from tfcluster.lib.data import structure as st
from tfcluster.ops import optional_ops


class Optional:
    """Wraps a nested structure of tensors that may or may not be present."""

    def __init__(self, variant: Tensor, value_structure: Any) -> None:
        self._variant_tensor = variant
        self._value_structure = value_structure

    @staticmethod
    def from_value(value: Any) -> Optional:
        """An Optional holding `value` (a nested structure of tensors)."""
        with name_scope("optional") as scope:
            with name_scope("value"):
                element = st.normalize_element(value)
                structure = st.structure_of(element)
                encoded = st.to_tensor_list(element)
            return Optional(optional_ops.optional_from_value(encoded, name=scope), structure)

    @staticmethod
    def none_from_structure(value_structure: Any) -> Optional:
        """An Optional with no value, for values of `value_structure`."""
        return Optional(optional_ops.optional_none(), value_structure)

    @property
    def value_structure(self) -> Any:
        return self._value_structure

    def has_value(self, name: str | None = None) -> Tensor:
        """A scalar bool: whether there is a value."""
        with colocate_with(self._variant_tensor.op):
            return optional_ops.optional_has_value(self._variant_tensor, name=name)

    def get_value(self, name: str | None = None) -> Any:
        """The value; InvalidArgumentError when run on an Optional without one."""
        with (
            name_scope(name, "OptionalGetValue", [self._variant_tensor]) as scope,
            colocate_with(self._variant_tensor.op),
        ):
            flat = optional_ops.optional_get_value(
                self._variant_tensor, st.op_attrs(self._value_structure), name=scope
            )
        return st.from_tensor_list(self._value_structure, flat)


def get_next_as_optional(iterator: Any) -> Optional:
    """The iterator's next element as an Optional (without a value at the end)."""
    with colocate_with(iterator._iterator_resource.op):
        variant = optional_ops.iterator_get_next_as_optional(
            iterator._iterator_resource, iterator._element_attrs
        )
    return Optional(variant, iterator._structure)


__all__ = ["Optional", "get_next_as_optional"]
