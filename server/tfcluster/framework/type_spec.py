"""tf.TypeSpec, tf.TensorSpec and tf.SparseTensorSpec as TF 1.15 has them: values describing
the dtype and shape of a Tensor or SparseTensor (placeholder-like signatures), compared,
hashed and merged as TF's are."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape, as_shape


def _most_specific_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The dimensions a and b agree on, unknown where they differ (unknown rank if ranks do)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


class TypeSpec:
    """The base class of type specifications: a description of a value's type and shape."""

    __slots__ = ()

    @property
    def value_type(self) -> type:
        raise NotImplementedError

    def _serialize(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        raise NotImplementedError

    def most_specific_compatible_type(self, other: Any) -> TypeSpec:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._serialize() == other._serialize()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, *(repr(v) for v in self._serialize())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()!r}"


class TensorSpec(TypeSpec):
    """The dtype, shape and (optional) name of a tf.Tensor."""

    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> None:
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec: Any, name: str | None = None) -> TensorSpec:
        return cls(spec.shape, spec.dtype, name or getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        if not isinstance(tensor, Tensor):
            raise ValueError("`tensor` should be a tf.Tensor")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def value_type(self) -> type:
        return Tensor

    def _serialize(self) -> tuple[Any, ...]:
        return (self._shape, self._dtype, self._name)

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        return (
            isinstance(spec_or_tensor, (TensorSpec, Tensor))
            and self._dtype.is_compatible_with(spec_or_tensor.dtype)
            and self._shape.is_compatible_with(spec_or_tensor.shape)
        )

    def most_specific_compatible_type(self, other: Any) -> TensorSpec:
        # Every part but the shape must agree, as TF's TypeSpec asks.
        if type(other) is not type(self) or (self._dtype, self._name) != (other.dtype, other.name):
            raise ValueError(f"Types are not compatible: {self!r} vs {other!r}")
        shape = _most_specific_shape(self._shape, other.shape)
        return TensorSpec(shape, self._dtype, self._name)

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other)
            and self._shape == other._shape  # type: ignore[attr-defined]
            and self._dtype == other._dtype  # type: ignore[attr-defined]
            and self._name == other._name  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        dims = None if self._shape.ndims is None else tuple(self._shape.as_list())
        return hash((dims, self._dtype))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


class SparseTensorSpec(TypeSpec):
    """The dtype and dense shape of a tf.SparseTensor."""

    __slots__ = ("_dtype", "_shape")

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32) -> None:
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        if isinstance(value, SparseTensorValue):
            value = SparseTensor.from_value(value)
        if not isinstance(value, SparseTensor):
            raise TypeError(f"Expected SparseTensor or SparseTensorValue, got {value!r}")
        return cls(value.shape, value.dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def value_type(self) -> type:
        return SparseTensor

    def _serialize(self) -> tuple[Any, ...]:
        return (self._shape, self._dtype)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        if isinstance(spec_or_value, (SparseTensor, SparseTensorValue)):
            spec_or_value = SparseTensorSpec.from_value(spec_or_value)
        return (
            isinstance(spec_or_value, SparseTensorSpec)
            and self._dtype.is_compatible_with(spec_or_value.dtype)
            and self._shape.is_compatible_with(spec_or_value.shape)
        )

    def most_specific_compatible_type(self, other: Any) -> SparseTensorSpec:
        if type(other) is not type(self) or self._dtype != other.dtype:
            raise ValueError(f"Types are not compatible: {self!r} vs {other!r}")
        return SparseTensorSpec(_most_specific_shape(self._shape, other.shape), self._dtype)


__all__ = ["SparseTensorSpec", "TensorSpec", "TypeSpec"]
