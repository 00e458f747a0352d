"""TF 1.15's quantization arithmetic (tensorflow/core/kernels/quantization_utils.h), step for
step in the precision TF uses for each step (double where TF promotes, float32 where its Eigen
expressions stay float), so quantized kernels give TF's integers exactly.

Values travel as int64 numpy arrays of the quantized type's integers; `to_quantized` makes the
quantized-dtype array a kernel returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.kernels.common import host_array, invalid
from tfcluster.kernels.quantization import (
    float_to_quantized_min_first,
    quantized_to_float_min_first,
    round_half_away,
)

F32 = np.float32


def storage(dtype: dtypes.DType) -> Any:
    return dtypes.storage_dtype(np.dtype(dtype.as_numpy_dtype))


def limits(dtype: dtypes.DType) -> tuple[int, int]:
    info = np.iinfo(storage(dtype))
    return int(info.min), int(info.max)


def ints(value: Any, dtype: dtypes.DType) -> np.ndarray:
    """The integers of a quantized array (int64)."""
    arr = np.ascontiguousarray(host_array(value))
    if arr.dtype.names:
        arr = arr.view(storage(dtype))
    return arr.astype(np.int64)


def to_quantized(values: Any, dtype: dtypes.DType) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values).astype(storage(dtype))).view(
        dtype.as_numpy_dtype
    )


def scalar(value: Any) -> Any:
    """TF's `input.flat<float>()(0)`: the first element, as float32."""
    arr = np.asarray(host_array(value), F32).reshape(-1)
    if arr.size < 1:
        raise invalid("a min / max input is empty")
    return F32(arr[0])


def _steps(dtype: dtypes.DType) -> float:
    return float(1 << (8 * np.dtype(storage(dtype)).itemsize))


def eigen_ints(q: Any, dtype: dtypes.DType) -> Any:
    """The integers TF's code reads from quantized values: Eigen's qint32 converts to other
    types only through float (its one conversion operator), which rounds values beyond 2**24."""
    q = np.asarray(q, np.int64)
    return q.astype(F32).astype(np.int64) if dtype == dtypes.qint32 else q


def quantized_to_float(q: Any, lo: Any, hi: Any, dtype: dtypes.DType) -> Any:
    """QuantizedToFloat<T>: double arithmetic, range_min rounded in float."""
    lo, hi = F32(lo), F32(hi)
    q = eigen_ints(q, dtype)
    if lo == hi:
        return np.full(q.shape, lo, F32)
    steps = _steps(dtype)
    span = float(F32(hi - lo)) * (steps / (steps - 1.0))
    scale = span / steps
    scale32 = F32(scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        rounded = F32(round_half_away(np, np.asarray(F32(lo / scale32))) * scale32)
    lowest = limits(dtype)[0]
    return (float(rounded) + (q.astype(np.float64) - lowest) * scale).astype(F32)


def float_to_quantized_unclamped(x: Any, lo: Any, hi: Any, dtype: dtypes.DType) -> Any:
    """FloatToQuantizedUnclamped<T> (int64): double arithmetic, std::round."""
    lo, hi = F32(lo), F32(hi)
    lowest = limits(dtype)[0]
    x = np.asarray(x, F32)
    if lo == hi:
        return np.full(x.shape, lowest, np.int64)
    steps = _steps(dtype)
    span = float(F32(hi - lo)) * (steps / (steps - 1.0))
    scale = steps / span
    q = round_half_away(np, x.astype(np.float64) * scale) - round_half_away(
        np, np.asarray(float(lo) * scale)
    )
    return q.astype(np.int64) + lowest


def float_to_quantized(x: Any, lo: Any, hi: Any, dtype: dtypes.DType) -> Any:
    low, high = limits(dtype)
    return np.clip(float_to_quantized_unclamped(x, lo, hi, dtype), low, high)


def range_for_multiplication(
    a: tuple[Any, Any], b: tuple[Any, Any], ta: dtypes.DType, tb: dtypes.DType, tc: dtypes.DType
) -> tuple[Any, Any]:
    """QuantizationRangeForMultiplication: one level of c is a level of a times one of b."""

    def level(lo: Any, hi: Any, t: dtypes.DType) -> Any:
        low, high = limits(t)
        return F32(F32(hi - lo) / F32(high - low))

    c_level = F32(level(*a, ta) * level(*b, tb))
    low, high = limits(tc)
    return F32(c_level * F32(low)), F32(c_level * F32(high))


def requantize_32_to_8(q: Any, in_lo: Any, in_hi: Any, out_lo: Any, out_hi: Any) -> Any:
    """RequantizeManyInNewRangeUsingEigen<qint32, quint8>: TF's 16.16 fixed-point path."""
    in_lo, in_hi, out_lo, out_hi = (F32(v) for v in (in_lo, in_hi, out_lo, out_hi))
    input_range = F32(in_hi - in_lo)
    output_range = F32(out_hi - out_lo)
    recip = F32(0.0) if output_range == 0 else F32(255.0 / float(output_range))
    rezero = F32(float(F32(in_lo + in_hi)) / 2.0)
    if output_range == 0:
        range_scale_fp = 0
        output_offset_fp = 0
    else:
        range_scale_fp = int(255.0 * 65536 * float(input_range) / float(output_range))
        output_offset_fp = int(65536 * (float(out_lo) * 255.0) / float(output_range))
    input_offset_fp = int(F32(F32(rezero * recip) * F32(65536)))
    with np.errstate(over="ignore"):
        fp = ((eigen_ints(q, dtypes.qint32) * np.int64(range_scale_fp)) >> 32) + np.int64(
            input_offset_fp - output_offset_fp + (1 << 15)
        )
    return np.clip(fp >> 16, 0, 255)


def requantize(
    q: Any,
    in_lo: Any,
    in_hi: Any,
    out_lo: Any,
    out_hi: Any,
    tin: dtypes.DType,
    tout: dtypes.DType,
) -> Any:
    """RequantizeManyInNewRangeUsingEigen<tin, tout>."""
    if tin == dtypes.qint32 and tout == dtypes.quint8:
        return requantize_32_to_8(q, in_lo, in_hi, out_lo, out_hi)
    as_float = quantized_to_float_min_first(np.asarray(q), F32(in_lo), F32(in_hi), tin)
    return float_to_quantized_min_first(as_float, F32(out_lo), F32(out_hi), tout)


def eight_to_32(q: Any, in_lo: Any, in_hi: Any, out_lo: Any, out_hi: Any) -> Any:
    """quint8 values in a qint32 range by TF's code-0 / code-1 fixed multiply (as its
    QuantizedAdd kernels do), clamped to int32."""
    zero = float_to_quantized_unclamped(
        quantized_to_float(0, in_lo, in_hi, dtypes.quint8), out_lo, out_hi, dtypes.qint32
    )
    one = float_to_quantized_unclamped(
        quantized_to_float(1, in_lo, in_hi, dtypes.quint8), out_lo, out_hi, dtypes.qint32
    )
    mult = np.int64(np.asarray(one - zero).astype(np.int32))
    low, high = limits(dtypes.qint32)
    return np.clip(np.int64(zero) + np.asarray(q, np.int64) * mult, low, high)


def wrap_int32(values: Any) -> Any:
    """C++'s int32 arithmetic: results wrap modulo 2**32."""
    return np.asarray(values, np.int64).astype(np.int32).astype(np.int64)
