"""tf.IndexedSlicesSpec and tf.TensorArraySpec as TF 1.15 has them: TypeSpecs describing an
IndexedSlices or a TensorArray, compared, hashed, checked for compatibility and merged as
TF's are (TF's generic TypeSpec rules: shapes compatible/merged dimension-wise, every other
part equal)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.framework.type_spec import TypeSpec, _most_specific_shape
from tfcluster.ops.tensor_array_ops import TensorArray


def _compatible(a: Any, b: Any) -> bool:
    if isinstance(a, (TensorShape, dtypes.DType)):
        return bool(a.is_compatible_with(b))
    return bool(a == b)


def _merged(a: Any, b: Any) -> Any:
    if isinstance(a, TensorShape):
        return _most_specific_shape(a, b)
    if a != b:
        raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
    return a


class IndexedSlicesSpec(TypeSpec):
    """The dense shape, values dtype, indices dtype, dense_shape dtype (None when the slices
    have no dense_shape tensor) and indices shape of a tf.IndexedSlices."""

    __slots__ = (
        "_dense_shape_dtype",
        "_indices_dtype",
        "_indices_shape",
        "_shape",
        "_values_dtype",
    )

    def __init__(
        self,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        indices_dtype: Any = dtypes.int64,
        dense_shape_dtype: Any = None,
        indices_shape: Any = None,
    ) -> None:
        self._shape = as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (
            None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        )
        self._indices_shape = as_shape(indices_shape).with_rank(1)

    @property
    def value_type(self) -> type:
        return IndexedSlices

    def _serialize(self) -> tuple[Any, ...]:
        return (
            self._shape,
            self._values_dtype,
            self._indices_dtype,
            self._dense_shape_dtype,
            self._indices_shape,
        )

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        other = spec_or_value
        if isinstance(other, IndexedSlices):
            other = _spec_of_slices(other)
        return type(other) is type(self) and all(
            _compatible(a, b) for a, b in zip(self._serialize(), other._serialize())
        )

    def most_specific_compatible_type(self, other: Any) -> IndexedSlicesSpec:
        if type(other) is not type(self):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return IndexedSlicesSpec(
            *(_merged(a, b) for a, b in zip(self._serialize(), other._serialize()))
        )


def _spec_of_slices(value: IndexedSlices) -> IndexedSlicesSpec:
    dense_shape = getattr(value, "dense_shape", None)
    return IndexedSlicesSpec(
        value.values.shape,
        value.values.dtype,
        value.indices.dtype,
        None if dense_shape is None else dense_shape.dtype,
        value.indices.shape,
    )


class TensorArraySpec(TypeSpec):
    """The element shape, dtype, dynamic_size and infer_shape of a tf.TensorArray."""

    __slots__ = ("_dtype", "_dynamic_size", "_element_shape", "_infer_shape")

    def __init__(
        self,
        element_shape: Any = None,
        dtype: Any = dtypes.float32,
        dynamic_size: bool = False,
        infer_shape: bool = True,
    ) -> None:
        self._element_shape = as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @staticmethod
    def from_value(value: Any) -> TensorArraySpec:
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but saw: {value}")
        return TensorArraySpec(
            value.element_shape, value.dtype, value.dynamic_size, value._infer_shape
        )

    @property
    def value_type(self) -> type:
        return TensorArray

    def _serialize(self) -> tuple[Any, ...]:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, TensorArray):
            other = TensorArraySpec.from_value(other)
        # As TF: infer_shape is left out of the check.
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype.is_compatible_with(other._dtype)
            and self._element_shape.is_compatible_with(other._element_shape)
            and self._dynamic_size == other._dynamic_size
        )

    def most_specific_compatible_type(self, other: Any) -> TensorArraySpec:
        if not self.is_compatible_with(other):
            raise ValueError("Types are not compatible")
        return TensorArraySpec(
            _most_specific_shape(self._element_shape, other._element_shape),
            self._dtype,
            self._dynamic_size,
            self._infer_shape and other._infer_shape,
        )


__all__ = ["IndexedSlicesSpec", "TensorArraySpec"]
