"""TensorFlow data types, mapped onto numpy dtypes and the DataType proto enum."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from tfcluster.protos import types_pb2

_REF_OFFSET = 100


class DType:
    """A TensorFlow dtype. Reference dtypes (`float32_ref`) mark variable outputs."""

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum: int, name: str, np_dtype: Any) -> None:
        self._enum = enum
        self._name = name
        self._np = np_dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def as_numpy_dtype(self) -> Any:
        return self._np

    @property
    def is_ref_dtype(self) -> bool:
        return self._enum > _REF_OFFSET

    @property
    def base_dtype(self) -> DType:
        return _BY_ENUM[self._enum - _REF_OFFSET] if self.is_ref_dtype else self

    @property
    def _as_ref(self) -> DType:
        return self if self.is_ref_dtype else _BY_ENUM[self._enum + _REF_OFFSET]

    @property
    def is_floating(self) -> bool:
        return self.base_dtype in (float16, float32, float64, bfloat16)

    @property
    def is_integer(self) -> bool:
        return self.base_dtype in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

    @property
    def is_unsigned(self) -> bool:
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def is_quantized(self) -> bool:
        return self.base_dtype in QUANTIZED_DTYPES

    @property
    def real_dtype(self) -> DType:
        """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
        base = self.base_dtype
        return {complex64: float32, complex128: float64}.get(base, base)

    @property
    def limits(self) -> tuple[Any, Any]:
        return self.min, self.max

    @property
    def is_complex(self) -> bool:
        return self.base_dtype.name.startswith("complex")

    @property
    def is_bool(self) -> bool:
        return self.base_dtype is bool_

    @property
    def is_numpy_compatible(self) -> bool:
        return self.base_dtype is not resource and self.base_dtype is not variant

    @property
    def size(self) -> int:
        return 1 if self._np is object else int(np.dtype(self._np).itemsize)

    def _has_no_limits(self) -> bool:
        base = self.base_dtype
        return (
            self.is_quantized
            or base in (bool_, string, complex64, complex128)
            or not self.is_numpy_compatible
        )

    def _storage(self) -> Any:
        """The plain numpy dtype holding the values (a quantized dtype's integer field)."""
        npd = np.dtype(self.base_dtype._np)
        return npd.fields[next(iter(npd.fields))][0] if npd.fields else npd

    @property
    def min(self) -> Any:
        if self._has_no_limits():
            raise TypeError(f"Cannot find minimum value of {self}.")
        base = self._storage()
        return _finfo(base).min if self.is_floating else np.iinfo(base).min

    @property
    def max(self) -> Any:
        if self._has_no_limits():
            raise TypeError(f"Cannot find maximum value of {self}.")
        base = self._storage()
        return _finfo(base).max if self.is_floating else np.iinfo(base).max

    def is_compatible_with(self, other: Any) -> bool:
        return self.base_dtype is as_dtype(other).base_dtype

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        try:
            return self._enum == as_dtype(other)._enum  # type: ignore[arg-type]
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._enum

    def __repr__(self) -> str:
        return f"tf.{self._name}"

    def __str__(self) -> str:
        return f"<dtype: '{self._name}'>"

    def __reduce__(self) -> Any:
        return as_dtype, (self._enum,)


def _finfo(dtype: Any) -> Any:
    """numpy's finfo, or ml_dtypes' for bfloat16 (numpy's own refuses it)."""
    if np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16):
        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


_BY_ENUM: dict[int, DType] = {}


def _make(enum: int, name: str, np_dtype: Any) -> DType:
    dt = DType(enum, name, np_dtype)
    ref = DType(enum + _REF_OFFSET, name + "_ref", np_dtype)
    _BY_ENUM[enum] = dt
    _BY_ENUM[enum + _REF_OFFSET] = ref
    return dt


float16 = half = _make(types_pb2.DT_HALF, "float16", np.float16)
# Brain floating point: numpy knows it through ml_dtypes (as TensorFlow's own numpy side does).
bfloat16 = _make(types_pb2.DT_BFLOAT16, "bfloat16", ml_dtypes.bfloat16)
float32 = _make(types_pb2.DT_FLOAT, "float32", np.float32)
float64 = double = _make(types_pb2.DT_DOUBLE, "float64", np.float64)
int8 = _make(types_pb2.DT_INT8, "int8", np.int8)
int16 = _make(types_pb2.DT_INT16, "int16", np.int16)
int32 = _make(types_pb2.DT_INT32, "int32", np.int32)
int64 = _make(types_pb2.DT_INT64, "int64", np.int64)
uint8 = _make(types_pb2.DT_UINT8, "uint8", np.uint8)
uint16 = _make(types_pb2.DT_UINT16, "uint16", np.uint16)
uint32 = _make(types_pb2.DT_UINT32, "uint32", np.uint32)
uint64 = _make(types_pb2.DT_UINT64, "uint64", np.uint64)
bool_ = _make(types_pb2.DT_BOOL, "bool", np.bool_)
string = _make(types_pb2.DT_STRING, "string", object)
complex64 = _make(types_pb2.DT_COMPLEX64, "complex64", np.complex64)
complex128 = _make(types_pb2.DT_COMPLEX128, "complex128", np.complex128)
# Quantized types hold integers in a one-field record dtype, as TensorFlow's numpy side does
# (np.dtype([("qint8", np.int8)])): they convert to and from the plain integers explicitly.
qint8 = _make(types_pb2.DT_QINT8, "qint8", np.dtype([("qint8", np.int8)]))
quint8 = _make(types_pb2.DT_QUINT8, "quint8", np.dtype([("quint8", np.uint8)]))
qint16 = _make(types_pb2.DT_QINT16, "qint16", np.dtype([("qint16", np.int16)]))
quint16 = _make(types_pb2.DT_QUINT16, "quint16", np.dtype([("quint16", np.uint16)]))
qint32 = _make(types_pb2.DT_QINT32, "qint32", np.dtype([("qint32", np.int32)]))
_QUANTIZED = (qint8, quint8, qint16, quint16, qint32)
QUANTIZED_DTYPES = frozenset([*_QUANTIZED, *(d._as_ref for d in _QUANTIZED)])
resource = DType(types_pb2.DT_RESOURCE, "resource", object)
_BY_ENUM[types_pb2.DT_RESOURCE] = resource
# Values only kernels of one task understand (a while loop's per-iteration accumulators).
variant = DType(types_pb2.DT_VARIANT, "variant", object)
_BY_ENUM[types_pb2.DT_VARIANT] = variant

float32_ref = float32._as_ref
float64_ref = float64._as_ref
int32_ref = int32._as_ref
int64_ref = int64._as_ref

_BY_NAME = {dt.name: dt for dt in _BY_ENUM.values()}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "bool_": bool_})

_BY_NUMPY: dict[Any, DType] = {
    np.dtype(np.float16): float16,
    np.dtype(ml_dtypes.bfloat16): bfloat16,
    np.dtype(np.float32): float32,
    np.dtype(np.float64): float64,
    np.dtype(np.int8): int8,
    np.dtype(np.int16): int16,
    np.dtype(np.int32): int32,
    np.dtype(np.int64): int64,
    np.dtype(np.uint8): uint8,
    np.dtype(np.uint16): uint16,
    np.dtype(np.uint32): uint32,
    np.dtype(np.uint64): uint64,
    np.dtype(np.bool_): bool_,
    np.dtype(np.complex64): complex64,
    np.dtype(np.complex128): complex128,
    **{np.dtype(d.as_numpy_dtype): d for d in _QUANTIZED},
    np.dtype(object): string,
}


# TF's C++ DataTypeString spells these three as C types; every other name is the Python one.
_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def data_type_string(dtype: DType) -> str:
    """TF's DataTypeString, the dtype name its runtime's messages show ('float', 'double_ref')."""
    base = dtype.name.removesuffix("_ref")
    return _C_NAMES.get(base, base) + ("_ref" if dtype.name.endswith("_ref") else "")


def storage_dtype(np_dtype: Any) -> Any:
    """The plain numpy dtype holding a value: a quantized dtype's integer field, else itself."""
    if isinstance(np_dtype, np.dtype) and np_dtype.fields:
        return np_dtype.fields[next(iter(np_dtype.fields))][0]
    return np_dtype


def as_dtype(type_value: Any) -> DType:
    """Converts a DType, enum, name, numpy dtype or Python type to a DType."""
    value = type_value  # TF's parameter name
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and value in _BY_ENUM:
        return _BY_ENUM[value]
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value in (str, bytes):
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.") from None
    if npd.kind in ("U", "S"):
        return string
    if npd in _BY_NUMPY:
        return _BY_NUMPY[npd]
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")
