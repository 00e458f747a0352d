"""Static tensor shapes with unknown dimensions (TF1's TensorShape and Dimension)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tfcluster.protos import tensor_shape_pb2


class Dimension:
    """One dimension; `value` is None when unknown. Compares and converts like an int.

    As TF 1.15's: arithmetic with a value that is no dimension (a list, a string, 2.5) returns
    NotImplemented, so `[None] * dim` repeats the list through __index__; an unknown
    dimension has no int (Python's "__index__ returned non-int" TypeError)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            number = int(value)
            if not isinstance(value, (str, bytes)) and number != value:
                raise ValueError(f"Ambiguous dimension: {value}")
            if number < 0:
                raise ValueError(f"Dimension {number} must be >= 0")
            value = number
        self._value = value

    @property
    def value(self) -> int | None:
        return self._value

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("__int__ returned non-int (type NoneType)")
        return self._value

    def __index__(self) -> int:
        if self._value is None:
            raise TypeError("__index__ returned non-int (type NoneType)")
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __eq__(self, other: object) -> Any:
        o = _dimension_or_none(other)
        if o is None:
            return NotImplemented
        if self._value is None or o.value is None:
            return None
        return self._value == o.value

    def __ne__(self, other: object) -> Any:
        o = _dimension_or_none(other)
        if o is None:
            return NotImplemented
        if self._value is None or o.value is None:
            return None
        return self._value != o.value

    def __hash__(self) -> int:
        return hash(self._value)

    def is_compatible_with(self, other: Any) -> bool:
        o = as_dimension(other).value
        return self._value is None or o is None or self._value == o

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        o = as_dimension(other).value
        if self._value is None:
            return Dimension(o)
        if o is not None and o != self._value:
            raise ValueError(f"Dimensions {self} and {o} are not compatible")
        return self

    @staticmethod
    def _combine(a: Dimension, b: Dimension, fn: Any) -> Dimension:
        if a.value is None or b.value is None:
            return Dimension(None)
        return Dimension(fn(a.value, b.value))

    def _binop(self, other: Any, fn: Any) -> Any:
        """self <op> other, or NotImplemented when `other` is no dimension (as TF's)."""
        o = _dimension_or_none(other)
        if o is None:
            return NotImplemented
        return self._combine(self, o, fn)

    def __add__(self, other: Any) -> Any:
        return self._binop(other, lambda a, b: a + b)

    def __radd__(self, other: Any) -> Any:
        return self + other

    def __sub__(self, other: Any) -> Any:
        return self._binop(other, lambda a, b: a - b)

    def __rsub__(self, other: Any) -> Dimension:
        return self._combine(as_dimension(other), self, lambda a, b: a - b)

    def __mul__(self, other: Any) -> Any:
        return self._binop(other, lambda a, b: a * b)

    def __rmul__(self, other: Any) -> Any:
        return self * other

    def __floordiv__(self, other: Any) -> Any:
        return self._binop(other, lambda a, b: a // b)

    def __rfloordiv__(self, other: Any) -> Dimension:
        return self._combine(as_dimension(other), self, lambda a, b: a // b)

    def __truediv__(self, other: Any) -> Any:
        raise TypeError(
            f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
            "please use // instead"
        )

    def __rtruediv__(self, other: Any) -> Any:
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
            "please use // instead"
        )

    def __mod__(self, other: Any) -> Dimension:
        return self._combine(self, as_dimension(other), lambda a, b: a % b)

    def __rmod__(self, other: Any) -> Dimension:
        return self._combine(as_dimension(other), self, lambda a, b: a % b)

    def _compare(self, other: Any, fn: Any) -> bool | None:
        o = as_dimension(other).value
        return None if self._value is None or o is None else fn(self._value, o)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a >= b)


def _dimension_or_none(value: Any) -> Dimension | None:
    """as_dimension(value), or None where TF's Dimension operators give NotImplemented."""
    try:
        return as_dimension(value)
    except (TypeError, ValueError):
        return None


def as_dimension(value: Any) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A possibly partial shape: unknown rank (`dims is None`) or dims that may be None."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if dims is None:
            self._dims: tuple[int | None, ...] | None = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, tensor_shape_pb2.TensorShapeProto):
            self._dims = (
                None
                if dims.unknown_rank
                else tuple(None if d.size < 0 else int(d.size) for d in dims.dim)
            )
        elif isinstance(dims, (int, Dimension)):
            self._dims = (dimension_value(dims),)
        elif not hasattr(dims, "__iter__"):
            # TF: anything not iterable (a numpy integer, ...) is one dimension.
            self._dims = (dimension_value(as_dimension(dims)),)
        else:
            self._dims = tuple(dimension_value(as_dimension(d)) for d in dims)

    @property
    def dims(self) -> list[Dimension] | None:
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def ndims(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> list[int | None]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple[int | None, ...] | None:
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims or ():
            n *= d  # type: ignore[operator]
        return n

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Dimension]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return Dimension(self._dims[key])

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([Dimension(a).merge_with(b) for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_has_rank(self, rank: int) -> None:
        """ValueError unless the rank is unknown or `rank`."""
        if self.ndims not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_same_rank(self, other: Any) -> None:
        """ValueError when both ranks are known and differ."""
        other = as_shape(other)
        if self.ndims is not None and other.ndims is not None and self.ndims != other.ndims:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape both are compatible with: unknown rank if the ranks
        differ (or one is unknown), else each dimension where the two agree."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def as_proto(self) -> tensor_shape_pb2.TensorShapeProto:
        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        return tensor_shape_pb2.TensorShapeProto(
            dim=[
                tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else d)
                for d in self._dims
            ]
        )

    def __eq__(self, other: object) -> bool:
        try:
            other_shape = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other_shape._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({[Dimension(d) for d in self._dims]})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


def as_shape(shape: Any) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def fits(shape: TensorShape, dims: tuple[int, ...]) -> bool:
    """shape.is_compatible_with(dims) for the concrete shape of a value, without making a
    TensorShape of it (every fed value of every step is checked)."""
    want = shape._dims
    if want is None:
        return True
    if len(want) != len(dims):
        return False
    for a, b in zip(want, dims):  # noqa: SIM110 - a loop is faster than all(...)
        if a is not None and a != b:
            return False
    return True


def unknown_shape(rank: int | None = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape([])


def known_dims(shape: TensorShape) -> Iterable[int | None]:
    return shape.as_tuple() or ()
