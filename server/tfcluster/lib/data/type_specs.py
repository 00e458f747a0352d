"""tf.data.DatasetSpec and tf.OptionalSpec as TF 1.15 has them: TypeSpecs of a Dataset (its
element spec and the dataset's own shape, () for one dataset) and of an Optional (its value
structure), built from tfcluster's element structures as TensorSpec/SparseTensorSpec/
DatasetSpec leaves and compared, checked and merged with TF's generic TypeSpec rules."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.framework.type_spec import (
    SparseTensorSpec,
    TensorSpec,
    TypeSpec,
    _most_specific_shape,
)
from tfcluster.lib.data import structure as st


def spec_structure(structure: Any) -> Any:
    """tfcluster's element structure (of st.Spec) as TF's TypeSpecs."""

    def leaf(spec: st.Spec) -> TypeSpec:
        if spec.kind == st.SPARSE:
            return SparseTensorSpec(spec.shape, spec.dtype)
        if spec.kind == st.DATASET:
            return DatasetSpec(spec_structure(spec.element))
        return TensorSpec(spec.shape, spec.dtype)

    return st.map_structure(leaf, structure)


def _flat(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flat(value[k])]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _same_structure(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and sorted(a) == sorted(b)
            and all(_same_structure(a[k], b[k]) for k in a)
        )
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same_structure(x, y) for x, y in zip(a, b))
        )
    return True


def _compatible(a: Any, b: Any) -> bool:
    if not _same_structure(a, b):
        return False
    return all(
        x.is_compatible_with(y) if isinstance(x, (TypeSpec, TensorShape)) else x == y
        for x, y in zip(_flat(a), _flat(b))
    )


def _merge(a: Any, b: Any) -> Any:
    if isinstance(a, dict):
        return {k: _merge(a[k], b[k]) for k in a}
    if isinstance(a, (list, tuple)):
        return type(a)(_merge(x, y) for x, y in zip(a, b))
    if isinstance(a, TypeSpec):
        return a.most_specific_compatible_type(b)
    if isinstance(a, TensorShape):
        return _most_specific_shape(a, b)
    if a != b:
        raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
    return a


class DatasetSpec(TypeSpec):
    """The element spec of a tf.data.Dataset and its shape (() for a single dataset)."""

    __slots__ = ("_dataset_shape", "_element_spec")

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @staticmethod
    def from_value(value: Any) -> DatasetSpec:
        return DatasetSpec(spec_structure(value._structure))

    @property
    def value_type(self) -> type:
        from tfcluster.lib.data.dataset import Dataset

        return Dataset

    def _serialize(self) -> tuple[Any, ...]:
        return (self._element_spec, self._dataset_shape)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        other = spec_or_value
        if not isinstance(other, TypeSpec) and hasattr(other, "_structure"):
            other = DatasetSpec.from_value(other)
        return type(other) is type(self) and _compatible(self._serialize(), other._serialize())

    def most_specific_compatible_type(self, other: Any) -> DatasetSpec:
        if type(other) is not type(self) or not _same_structure(
            self._element_spec, other._element_spec
        ):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return DatasetSpec(*_merge(self._serialize(), other._serialize()))


class OptionalSpec(TypeSpec):
    """The value structure of a tf.data.experimental.Optional."""

    __slots__ = ("_value_structure",)

    def __init__(self, value_structure: Any) -> None:
        self._value_structure = value_structure

    @staticmethod
    def from_value(value: Any) -> OptionalSpec:
        return OptionalSpec(spec_structure(value.value_structure))

    @property
    def value_type(self) -> type:
        from tfcluster.lib.data.optional import Optional

        return Optional

    def _serialize(self) -> tuple[Any, ...]:
        return (self._value_structure,)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        other = spec_or_value
        if not isinstance(other, TypeSpec) and hasattr(other, "value_structure"):
            other = OptionalSpec.from_value(other)
        return type(other) is type(self) and _compatible(self._serialize(), other._serialize())

    def most_specific_compatible_type(self, other: Any) -> OptionalSpec:
        if type(other) is not type(self) or not _same_structure(
            self._value_structure, other._value_structure
        ):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return OptionalSpec(*_merge(self._serialize(), other._serialize()))


__all__ = ["DatasetSpec", "OptionalSpec"]
