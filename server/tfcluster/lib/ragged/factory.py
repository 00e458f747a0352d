"""tf.ragged.constant, constant_value and placeholder: ragged values from nested Python lists
(the ragged_rank and inner_shape inferred as TF 1.15 infers them) and ragged placeholders."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.ragged_tensor_value import RaggedTensorValue
from tfcluster.ops import array_ops, constant_op
from tfcluster.ops.ragged_tensor import RaggedTensor, is_ragged


def constant(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: int | None = None,
    inner_shape: Any = None,
    name: str | None = None,
    row_splits_dtype: Any = dtypes.int64,
) -> Any:
    """A constant RaggedTensor from a nested list of scalars."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    def ragged_factory(values: Any, row_splits: list[int]) -> RaggedTensor:
        splits = constant_op.constant(row_splits, dtype=row_splits_dtype)
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def inner_factory(values: Any, dtype: Any, shape: Any, name: str = "Const") -> Tensor:
        return constant_op.constant(values, dtype=dtype, shape=shape, name=name)

    with name_scope(name, "RaggedConstant"):
        return _constant_value(
            ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape
        )


def constant_value(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: int | None = None,
    inner_shape: Any = None,
    row_splits_dtype: Any = "int64",
) -> Any:
    """A RaggedTensorValue (numpy) from a nested list of scalars."""
    if dtype is not None and isinstance(dtype, dtypes.DType):
        dtype = dtype.as_numpy_dtype
    splits_np = np.dtype(dtypes.as_dtype(row_splits_dtype).as_numpy_dtype)

    def ragged_factory(values: Any, row_splits: list[int]) -> RaggedTensorValue:
        return RaggedTensorValue(values, np.array(row_splits, dtype=splits_np))

    def inner_factory(values: Any, dtype: Any, shape: Any, name: str = "") -> np.ndarray:
        return np.reshape(np.array(values, dtype=dtype), shape)

    return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


def _is_scalar(item: Any) -> bool:
    return not isinstance(item, (list, tuple)) and np.ndim(item) == 0


def _scalar_and_max_depth(pylist: Any) -> tuple[int | None, int]:
    """The nesting depth of the scalars (None without any) and the deepest list nesting."""
    if _is_scalar(pylist):
        return 0, 0
    scalar_depth: int | None = None
    max_depth = 1
    for child in pylist:
        child_scalar, child_max = _scalar_and_max_depth(child)
        if child_scalar is not None:
            if scalar_depth is not None and scalar_depth != child_scalar + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar_depth = child_scalar + 1
        max_depth = max(max_depth, child_max + 1)
    return scalar_depth, max_depth


def _default_inner_shape(pylist: Any, ragged_rank: int) -> tuple[int, ...]:
    """The uniform shape of the items below ragged_rank levels of lists."""

    def inner_shape(item: Any) -> tuple[int, ...]:
        if _is_scalar(item):
            return ()
        if item:
            return (len(item), *inner_shape(item[0]))
        return (0,)

    def check(item: Any, shape: tuple[int, ...]) -> bool:
        if _is_scalar(item):
            return shape == ()
        if not shape or len(item) != shape[0]:
            return False
        return all(check(child, shape[1:]) for child in item)

    flat = list(pylist)
    for _ in range(ragged_rank):
        flat = [v for row in flat for v in row]
    shape = inner_shape(flat)[1:] if flat else ()
    if not all(check(item, shape) for item in flat):
        raise ValueError("inner values have inconsistent shape")
    return shape


def _constant_value(
    ragged_factory: Callable[..., Any],
    inner_factory: Callable[..., Any],
    pylist: Any,
    dtype: Any,
    ragged_rank: int | None,
    inner_shape: Any,
) -> Any:
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if _is_scalar(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}"
            )
        if inner_shape:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with dim(inner_shape)={len(inner_shape)}"
            )
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _scalar_and_max_depth(pylist)
    if scalar_depth is not None and max_depth > scalar_depth:
        raise ValueError(
            f"Invalid pylist={pylist!r}: empty list nesting is greater than scalar value nesting"
        )
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (
            scalar_depth is None and expected < max_depth
        ):
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with "
                f"ragged_rank={ragged_rank} and dim(inner_shape)={len(inner_shape)}"
            )
    if ragged_rank == 0 or (
        ragged_rank is None
        and (max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))
    ):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        if scalar_depth is None:
            ragged_rank = max(1, max_depth - 1)
        else:
            ragged_rank = max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits = []
    values = list(pylist)
    for _ in range(ragged_rank):
        splits = [0]
        concatenated: list[Any] = []
        for row in values:
            splits.append(splits[-1] + len(row))
            concatenated.extend(row)
        nested_splits.append(splits)
        values = concatenated
    result = inner_factory(values, dtype=dtype, shape=(len(values), *inner_shape), name="values")
    for row_splits in reversed(nested_splits):
        result = ragged_factory(result, row_splits)
    return result


def placeholder(
    dtype: Any, ragged_rank: int, value_shape: Any = None, name: str | None = None
) -> RaggedTensor:
    """A RaggedTensor of placeholders: fed with a tf.ragged.RaggedTensorValue."""
    if ragged_rank == 0:
        return array_ops.placeholder(dtype, value_shape, name)  # type: ignore[return-value]
    with name_scope(name, "RaggedPlaceholder", []):
        flat_shape = [None, *([] if value_shape is None else list(value_shape))]
        result: Any = array_ops.placeholder(dtype, flat_shape, "flat_values")
        for i in reversed(range(ragged_rank)):
            row_splits = array_ops.placeholder(dtypes.int64, [None], f"row_splits_{i}")
            result = RaggedTensor.from_row_splits(result, row_splits, validate=False)
        return result  # type: ignore[no-any-return]
