"""A Keras layer's float32 variable that reads as the layer's compute dtype (float16,
bfloat16) while the layer is called, and as itself everywhere else (optimizers update the
float32 variable; gradients flow through the cast)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Tensor,
    get_default_graph,
    register_tensor_conversion_function,
)
from tfcluster.ops import math_ops

_READ_DTYPE_ATTR = "_auto_cast_variable_read_dtype"


@contextlib.contextmanager
def enable_auto_cast(dtype: Any) -> Iterator[None]:
    """AutoCastVariables of the default graph read as `dtype` (a floating dtype, or None)."""
    if dtype is not None and not dtypes.as_dtype(dtype).is_floating:
        dtype = None
    graph = get_default_graph()
    previous = getattr(graph, _READ_DTYPE_ATTR, None)
    setattr(graph, _READ_DTYPE_ATTR, dtypes.as_dtype(dtype) if dtype is not None else None)
    try:
        yield
    finally:
        setattr(graph, _READ_DTYPE_ATTR, previous)


class AutoCastVariable:
    def __init__(self, variable: Any) -> None:
        if not variable.dtype.is_floating:
            raise ValueError(
                f"variable must be a floating point variable but has type: {variable.dtype.name}"
            )
        self._variable = variable

    def _read_dtype(self) -> Any:
        dtype = getattr(get_default_graph(), _READ_DTYPE_ATTR, None)
        if dtype is not None and dtype != self.true_dtype.base_dtype:
            return dtype
        return None

    @property
    def name(self) -> str:
        return str(self._variable.name)

    @property
    def dtype(self) -> Any:
        """The dtype it reads as here (the variable's own outside a layer call)."""
        return self._read_dtype() or self._variable.dtype

    @property
    def true_dtype(self) -> Any:
        return self._variable.dtype

    def value(self) -> Tensor:
        val = self._variable.value()
        dtype = self._read_dtype()
        return val if dtype is None else math_ops.cast(val, dtype)

    def read_value(self) -> Tensor:
        val = self._variable.read_value()
        dtype = self._read_dtype()
        return val if dtype is None else math_ops.cast(val, dtype)

    def assign(self, *args: Any, **kwargs: Any) -> Any:
        return self._variable.assign(*args, **kwargs)

    def assign_add(self, *args: Any, **kwargs: Any) -> Any:
        return self._variable.assign_add(*args, **kwargs)

    def assign_sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._variable.assign_sub(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._variable, name)

    def __repr__(self) -> str:
        return (
            f"<AutoCastVariable '{self.name}' dtype={self.dtype.base_dtype.name} "
            f"true_dtype={self.true_dtype.base_dtype.name}>"
        )

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def _conversion(
    v: AutoCastVariable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    if as_ref:
        # The float32 variable itself (what updates and gradients with respect to it use).
        return v._variable._ref()  # type: ignore[no-any-return]
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type {dtypes.as_dtype(dtype).name} "
            f"for variable of type {v.dtype.name}"
        )
    return v.value()


register_tensor_conversion_function(AutoCastVariable, _conversion)
math_ops.install_operator_overloads(AutoCastVariable)
