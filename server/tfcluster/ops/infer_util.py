"""Static shape and argument helpers shared by the segment, scatter, linalg and special-math op
modules: rank checks with TF's messages, statically known ints, index-typed arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape

INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def shape_list(shape: TensorShape) -> list[int | None] | None:
    return None if shape.ndims is None else shape.as_list()


def with_rank(shape: TensorShape, rank: int, what: str) -> TensorShape:
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims} for '{what}'")
    return shape if shape.ndims is not None else TensorShape([None] * rank)


def with_rank_at_least(shape: TensorShape, rank: int, what: str) -> None:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(
            f"Shape must be at least rank {rank} but is rank {shape.ndims} for '{what}'"
        )


def merge_dim(a: int | None, b: int | None, what: str) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{what}'")
    return a if a is not None else b


def static_int(t: Tensor) -> int | None:
    """A scalar int tensor's value when known at graph-construction time."""
    value = tensor_util.constant_value(t)
    if value is None or np.ndim(value) != 0:
        return None
    return int(value)


def static_ints(t: Tensor) -> list[int] | None:
    value = tensor_util.constant_value(t)
    if value is None:
        return None
    return [int(v) for v in np.asarray(value).reshape(-1)]


def index_tensor(value: Any, name: str, dtype: Any = None) -> Tensor:
    """An int32/int64 argument (Python values default to int32)."""
    if isinstance(value, TensorShape):
        value = value.as_list()
    t = convert_to_tensor(value, name=name, dtype=dtype, preferred_dtype=dtypes.int32)
    check_index_dtype(t, name)
    return t


def check_index_dtype(t: Tensor, name: str) -> None:
    if t.dtype.base_dtype not in INDEX_DTYPES:
        raise TypeError(
            f"Value passed to parameter '{name}' has DataType {t.dtype.base_dtype.name} not in "
            "list of allowed values: int32, int64"
        )


def check_dtype(t: Tensor, allowed: Sequence[dtypes.DType], op_type: str, arg: str) -> None:
    if t.dtype.base_dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(
            f"Value passed to parameter '{arg}' has DataType {t.dtype.base_dtype.name} not in "
            f"list of allowed values: {names} (op {op_type})"
        )
