"""Quantization kernels with TF 1.15's arithmetic, step for step in float32 (the order of
operations decides the last bit, so it follows TF's kernels exactly).

Fake quantization (FakeQuantWithMinMax*): the range is "nudged" so that 0.0 is exactly one of
the levels, then values are clamped, and rounded to a level (floor(x / scale + 0.5)).
QuantizeV2 / Dequantize / QuantizedConcat work on TF's quantized dtypes (numpy one-field
structured arrays: `.view` gives their integers) and run on the CPU, as TF's do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.kernels.common import host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]
F32 = np.float32


def round_half_away(xp: Any, x: Any) -> Any:
    """std::round: halves away from zero (exact: float32 values plus 0.5 are exact in float64)."""
    wide = x.astype(np.float64)
    return (xp.sign(wide) * xp.floor(xp.abs(wide) + 0.5)).astype(x.dtype)


def _scalar_round_half_away(v: Any) -> Any:
    return round_half_away(np, np.asarray(v, F32))


# ---- fake quantization ---------------------------------------------------------------------
def _quant_range(node: Any) -> tuple[int, int]:
    num_bits = int(node.attrs.get("num_bits", 8))
    if not 2 <= num_bits <= 16:
        raise invalid(f"num_bits must be between 2 and 16, inclusive, was: {num_bits}")
    quant_min = 1 if node.attrs.get("narrow_range", False) else 0
    return quant_min, (1 << num_bits) - 1


def nudge(lo: Any, hi: Any, quant_min: int, quant_max: int) -> tuple[Any, Any, Any]:
    """(nudged_min, nudged_max, scale) per element of lo/hi (host float32): the range moved
    so that 0.0 falls exactly on a level."""
    lo = np.asarray(lo, F32)
    hi = np.asarray(hi, F32)
    qmin, qmax = F32(quant_min), F32(quant_max)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (hi - lo) / (qmax - qmin)
        from_min = qmin - lo / scale
        rounded = _scalar_round_half_away(from_min)
        # A NaN zero point (an empty range) becomes 0 as C++'s cast makes it here.
        rounded = np.where(np.isnan(rounded), F32(0), rounded)
        zero_point = np.where(from_min < qmin, qmin, np.where(from_min > qmax, qmax, rounded))
        zero_point = zero_point.astype(F32)
        return (qmin - zero_point) * scale, (qmax - zero_point) * scale, scale


def _fake_quant(
    xp: Any, x: Any, lo: Any, hi: Any, scale: Any, divide: bool, empty: Any = None
) -> Any:
    lo, hi, scale = (xp.asarray(v, dtype=F32) for v in (lo, hi, scale))
    shifted = xp.maximum(xp.minimum(x, hi), lo) - lo
    with np.errstate(divide="ignore", invalid="ignore"):
        if divide:
            steps = shifted / scale
        else:
            steps = shifted * (F32(1) / scale)
        out = (xp.floor(steps + F32(0.5)) * scale + lo).astype(F32)
    if empty is not None and bool(np.any(empty)):
        # min == max == 0: TF's kernels give zeros.
        out = xp.where(xp.asarray(empty), xp.zeros((), dtype=F32), out)
    return out


def _fake_quant_grad(
    xp: Any, g: Any, x: Any, lo: Any, hi: Any, empty: Any = None
) -> tuple[Any, Any, Any]:
    lo = xp.asarray(lo, dtype=F32)
    hi = xp.asarray(hi, dtype=F32)
    inside = (x >= lo) & (x <= hi)
    below, above = x < lo, x > hi
    if empty is not None and bool(np.any(empty)):
        # min == max == 0: TF passes every gradient to the inputs, none to the range.
        flag = xp.asarray(empty)
        inside, below, above = inside | flag, below & ~flag, above & ~flag
    zero = xp.zeros((), dtype=F32)
    return xp.where(inside, g, zero), xp.where(below, g, zero), xp.where(above, g, zero)


def _empty_range(lo: Any, hi: Any) -> Any:
    return (np.asarray(lo) == 0) & (np.asarray(hi) == 0)


@kernel("FakeQuantWithMinMaxArgs")
def fake_quant_args(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)
    lo_attr, hi_attr = float(node.attrs.get("min", -6.0)), float(node.attrs.get("max", 6.0))
    if not lo_attr < hi_attr:
        raise invalid(f"min has to be smaller than max, was: {lo_attr} >= {hi_attr}")
    lo, hi, scale = nudge(lo_attr, hi_attr, quant_min, quant_max)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_fake_quant(xp, ins[0], lo, hi, scale, divide=False),)

    return compute


@kernel("FakeQuantWithMinMaxArgsGradient")
def fake_quant_args_gradient(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)
    lo_attr, hi_attr = float(node.attrs.get("min", -6.0)), float(node.attrs.get("max", 6.0))
    if not lo_attr < hi_attr:
        raise invalid(f"min has to be smaller than max, was: {lo_attr} >= {hi_attr}")
    lo, hi, _ = nudge(lo_attr, hi_attr, quant_min, quant_max)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g, x = ins
        _same_shape(g, x, "gradients", "inputs")
        return (_fake_quant_grad(xp, g, x, lo, hi)[0],)

    return compute


def _same_shape(a: Any, b: Any, what_a: str, what_b: str) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise invalid(f"{what_a} and {what_b} must be same shape")


@kernel("FakeQuantWithMinMaxVars", host=(1, 2))
def fake_quant_vars(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, lo_t, hi_t = ins
        lo_h, hi_h = host_array(lo_t), host_array(hi_t)
        lo, hi, scale = nudge(lo_h, hi_h, quant_min, quant_max)
        empty = _empty_range(lo_h, hi_h)
        return (_fake_quant(xp, x, lo, hi, scale, divide=True, empty=empty),)

    return compute


@kernel("FakeQuantWithMinMaxVarsGradient", host=(2, 3))
def fake_quant_vars_gradient(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g, x, lo_t, hi_t = ins
        _same_shape(g, x, "gradients", "inputs")
        lo_h, hi_h = host_array(lo_t), host_array(hi_t)
        lo, hi, _ = nudge(lo_h, hi_h, quant_min, quant_max)
        d_x, below, above = _fake_quant_grad(xp, g, x, lo, hi, _empty_range(lo_h, hi_h))
        return d_x, xp.sum(below, dtype=F32), xp.sum(above, dtype=F32)

    return compute


def _check_channels(x: Any, lo: Any, hi: Any) -> int:
    depth = x.shape[-1] if x.ndim else 0
    for name, v in (("min", lo), ("max", hi)):
        if v.shape != (depth,):
            raise invalid(f"{name} has incorrect size, expected {depth} was {v.shape[0]}")
    return depth


@kernel("FakeQuantWithMinMaxVarsPerChannel", host=(1, 2))
def fake_quant_per_channel(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, lo_t, hi_t = ins
        lo_h, hi_h = host_array(lo_t), host_array(hi_t)
        _check_channels(x, lo_h, hi_h)
        lo, hi, scale = nudge(lo_h, hi_h, quant_min, quant_max)
        empty = _empty_range(lo_h, hi_h)
        if x.ndim == 1:
            # TF's rank-1 kernel rounds with std::round instead of floor(v + 0.5).
            lo_d, hi_d, scale_d = (xp.asarray(v, dtype=F32) for v in (lo, hi, scale))
            shifted = xp.maximum(xp.minimum(x, hi_d), lo_d) - lo_d
            with np.errstate(divide="ignore", invalid="ignore"):
                steps = round_half_away(xp, (shifted / scale_d).astype(F32))
                out = (steps * scale_d + lo_d).astype(F32)
            if bool(np.any(empty)):
                out = xp.where(xp.asarray(empty), xp.zeros((), dtype=F32), out)
            return (out,)
        return (_fake_quant(xp, x, lo, hi, scale, divide=True, empty=empty),)

    return compute


@kernel("FakeQuantWithMinMaxVarsPerChannelGradient", host=(2, 3))
def fake_quant_per_channel_gradient(node: Any, xp: Any) -> Compute:
    quant_min, quant_max = _quant_range(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g, x, lo_t, hi_t = ins
        _same_shape(g, x, "gradients", "inputs")
        lo_h, hi_h = host_array(lo_t), host_array(hi_t)
        _check_channels(x, lo_h, hi_h)
        lo, hi, _ = nudge(lo_h, hi_h, quant_min, quant_max)
        d_x, below, above = _fake_quant_grad(xp, g, x, lo, hi, _empty_range(lo_h, hi_h))
        axes = tuple(range(x.ndim - 1))
        return d_x, xp.sum(below, axis=axes, dtype=F32), xp.sum(above, axis=axes, dtype=F32)

    return compute


# ---- QuantizeV2 / Dequantize / QuantizedConcat ----------------------------------------------
def _limits(dtype: dtypes.DType) -> tuple[int, int]:
    info = np.iinfo(dtypes.storage_dtype(np.dtype(dtype.as_numpy_dtype)))
    return int(info.min), int(info.max)


def _storage(dtype: dtypes.DType) -> Any:
    return dtypes.storage_dtype(np.dtype(dtype.as_numpy_dtype))


def _as_quantized(values: Any, dtype: dtypes.DType) -> np.ndarray:
    return np.ascontiguousarray(values.astype(_storage(dtype))).view(dtype.as_numpy_dtype)


def _quantized_ints(value: Any, dtype: dtypes.DType) -> np.ndarray:
    return np.ascontiguousarray(value).view(_storage(dtype))


def _half_range(dtype: dtypes.DType) -> Any:
    lo, hi = _limits(dtype)
    return F32((float(hi) - float(lo) + 1) / 2.0) if lo < 0 else F32(0)


def _scalar_f32(value: Any, what: str) -> Any:
    arr = np.asarray(host_array(value), F32)
    if arr.size < 1:
        raise invalid(f"{what} must have at least one element")
    return F32(arr.reshape(-1)[0])


def float_to_quantized_min_first(
    x: Any, range_min: Any, range_max: Any, dtype: dtypes.DType
) -> Any:
    """TF's QUANTIZE_WITH_EIGEN over FloatToQuantizedStruct<T>(range_min, range_max)."""
    lo, hi = _limits(dtype)
    steps = float(1 << (8 * np.dtype(_storage(dtype)).itemsize))
    diff = F32(range_max - range_min)
    range_scale = F32(0.0 if range_max == range_min else (steps - 1.0) / float(diff))
    range_min_scaled = _scalar_round_half_away(F32(range_min * range_scale))
    lowest = F32(lo)
    lower_bound = max(F32(lo), F32(-2.147483648e09))
    upper_bound = min(F32(hi), F32(2.147483520e09))
    scaled = round_half_away(np, (x * range_scale).astype(F32))
    shifted = (scaled - F32(range_min_scaled - lowest)).astype(F32)
    return np.minimum(np.maximum(shifted, lower_bound), upper_bound).astype(np.int64)


def quantized_to_float_min_first(
    q: Any, range_min: Any, range_max: Any, dtype: dtypes.DType
) -> Any:
    """TF's DEQUANTIZE_WITH_EIGEN over QuantizedToFloatStruct<T>(range_min, range_max)."""
    lo, _ = _limits(dtype)
    steps = float(1 << (8 * np.dtype(_storage(dtype)).itemsize))
    range_scale = F32(float(F32(range_max - range_min)) / (steps - 1.0))
    if range_max == range_min:
        range_min_rounded = F32(range_min)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            range_min_rounded = F32(
                _scalar_round_half_away(F32(range_min / range_scale)) * range_scale
            )
    offset = F32(range_min_rounded - F32(lo) * range_scale)
    return (offset + q.astype(F32) * range_scale).astype(F32)


def _flush_denormal(v: Any) -> Any:
    """TF's CPU threads flush denormal floats to zero (FTZ/DAZ): a denormal scale is 0."""
    return F32(0) if abs(v) < np.finfo(F32).tiny else F32(v)


def _mode(node: Any) -> str:
    mode = node.attrs.get("mode", "MIN_COMBINED")
    return mode.decode() if isinstance(mode, bytes) else str(mode)


@kernel("QuantizeV2", devices=CPU_ONLY)
def quantize_v2(node: Any, xp: Any) -> Compute:
    dtype: dtypes.DType = node.attrs["T"]
    mode = _mode(node)
    round_mode = node.attrs.get("round_mode", "HALF_AWAY_FROM_ZERO")
    round_mode = round_mode.decode() if isinstance(round_mode, bytes) else str(round_mode)
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise invalid(f"Mode string must be 'MIN_COMBINED', 'MIN_FIRST', or 'SCALED', is '{mode}'")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise invalid(
            f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '{mode}'."
        )
    t_min, t_max = _limits(dtype)
    half_range = _half_range(dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = np.asarray(host_array(ins[0]), F32)
        in_min = _scalar_f32(ins[1], "min_range")
        in_max = _scalar_f32(ins[2], "max_range")
        if in_max < in_min:
            raise invalid("input_max_range must be larger than input_min_range.")
        min_range = min(F32(0), in_min)
        epsilon = F32(max(F32(1), max(abs(in_min), abs(in_max))) / F32(100))
        max_range = max(in_max, F32(min_range + epsilon))
        max_range = max(F32(0), max_range)
        if mode == "MIN_COMBINED":
            scale = F32((float(t_max) - float(t_min)) / float(F32(max_range - min_range)))
            clamped = np.maximum(np.minimum(x, max_range), min_range)
            shifted = ((clamped - min_range) * scale).astype(F32)
            if t_min < 0:
                q = round_half_away(np, (shifted - half_range).astype(F32)).astype(np.int64)
            else:
                # C++'s float -> unsigned cast truncates (the values are within T's range).
                q = np.trunc((shifted + F32(0.5)).astype(F32)).astype(np.int64)
        elif mode == "MIN_FIRST":
            q = float_to_quantized_min_first(x, min_range, max_range, dtype)
        else:
            with np.errstate(divide="ignore"):
                from_min = F32(t_min / min_range) if t_min * min_range > 0 else np.finfo(F32).max
                from_max = F32(t_max / max_range) if t_max * max_range > 0 else np.finfo(F32).max
            scale = F32(min(from_min, from_max))
            min_range = F32(F32(t_min) / scale)
            max_range = F32(F32(t_max) / scale)
            scaled = (np.maximum(np.minimum(x, max_range), min_range) * scale).astype(F32)
            if round_mode == "HALF_TO_EVEN":
                q = np.rint(scaled).astype(np.int64)
            else:
                q = round_half_away(np, scaled).astype(np.int64)
        return _as_quantized(q, dtype), np.asarray(min_range, F32), np.asarray(max_range, F32)

    return compute


@kernel("Dequantize", devices=CPU_ONLY)
def dequantize(node: Any, xp: Any) -> Compute:
    dtype: dtypes.DType = node.attrs["T"]
    mode = _mode(node)
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise invalid(f"Mode string must be 'MIN_COMBINED', 'MIN_FIRST', or 'SCALED', is '{mode}'")
    t_min, t_max = _limits(dtype)
    half_range = _half_range(dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = _quantized_ints(host_array(ins[0]), dtype)
        min_range = _scalar_f32(ins[1], "min_range")
        max_range = _scalar_f32(ins[2], "max_range")
        if mode == "MIN_COMBINED":
            scale = F32((max_range - min_range) / (F32(t_max) - F32(t_min)))
            out = (q.astype(np.int32).astype(F32) + half_range) * scale + min_range
        elif mode == "MIN_FIRST":
            out = quantized_to_float_min_first(q, min_range, max_range, dtype)
        else:
            if t_min == 0:
                scale = F32(max_range / F32(t_max))
            else:
                scale = max(F32(min_range / F32(t_min)), F32(max_range / F32(t_max)))
            out = q.astype(np.int32).astype(F32) * _flush_denormal(scale)
        return (np.asarray(out, F32),)

    return compute


@kernel("QuantizedConcat", devices=CPU_ONLY)
def quantized_concat(node: Any, xp: Any) -> Compute:
    dtype: dtypes.DType = node.attrs["T"]
    if dtype not in (dtypes.quint8, dtypes.qint32):
        raise invalid(
            "No OpKernel was registered to support Op 'QuantizedConcat' with these attrs: "
            f"[T={dtype.name}]; registered: T in [quint8, qint32]"
        )
    n = int(node.attrs["N"])
    signed = _limits(dtype)[0] < 0

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        axis_arr = host_array(ins[0])
        if axis_arr.ndim != 0:
            raise invalid(
                "Concat dim tensor should be a scalar integer, but got shape "
                f"{list(axis_arr.shape)}"
            )
        axis = int(axis_arr)
        values = [_quantized_ints(host_array(v), dtype) for v in ins[1 : 1 + n]]
        mins = [_scalar_f32(v, "input_mins") for v in ins[1 + n : 1 + 2 * n]]
        maxes = [_scalar_f32(v, "input_maxes") for v in ins[1 + 2 * n :]]
        rank = values[0].ndim
        if not 0 <= axis < max(rank, 1):
            raise invalid(
                f"ConcatOp : Expected concatenating dimensions in the range [0, {rank}), but "
                f"got {axis}"
            )
        for i, v in enumerate(values[1:], 1):
            if v.ndim != rank:
                raise invalid(
                    f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                    f"{list(values[0].shape)} vs. shape[{i}] = {list(v.shape)}"
                )
            for d in range(rank):
                if d != axis and v.shape[d] != values[0].shape[d]:
                    raise invalid(
                        f"ConcatOp : Dimensions of inputs should match: shape[0] = "
                        f"{list(values[0].shape)} vs. shape[{i}] = {list(v.shape)}"
                    )
        out_min = min(F32(0), min(mins))
        out_max = max(maxes)
        if signed:
            largest = max(abs(out_min), abs(out_max))
            out_min, out_max = -largest, largest
        parts = []
        for v, lo, hi in zip(values, mins, maxes):
            if lo == out_min and hi == out_max:
                parts.append(v)
            else:
                as_float = quantized_to_float_min_first(v, lo, hi, dtype)
                parts.append(float_to_quantized_min_first(as_float, out_min, out_max, dtype))
        joined = np.concatenate([p.astype(np.int64) for p in parts], axis=axis)
        return (
            _as_quantized(joined, dtype),
            np.asarray(out_min, F32),
            np.asarray(out_max, F32),
        )

    return compute


# ---- QuantizeAndDequantizeV2 ----------------------------------------------------------------
def quantize_and_dequantize(
    xp: Any,
    x: Any,
    signed: bool,
    num_bits: int,
    range_given: bool,
    min_given: Any,
    max_given: Any,
    round_mode: str,
    narrow: bool,
) -> Any:
    """TF's QuantizeAndDequantizeOneScaleFunctor (V1, V2 and V3 share it)."""
    if signed:
        q_min = -(1 << (num_bits - 1)) + (1 if narrow else 0)
        q_max = (1 << (num_bits - 1)) - 1
    else:
        q_min, q_max = 0, (1 << num_bits) - 1
    t = x.dtype.type
    if range_given:
        min_range, max_range = t(min_given), t(max_given)
    elif x.size:
        min_range = t(host_array(xp.min(x)))
        max_range = t(host_array(xp.max(x)))
    else:
        min_range = max_range = t(0)
    big = np.finfo(t).max
    from_min = t(q_min / min_range) if q_min * min_range > 0 else big
    from_max = t(q_max / max_range) if q_max * max_range > 0 else big
    if from_min < from_max:
        scale, inverse = from_min, t(min_range / t(q_min))
        max_range = t(t(q_max) * inverse)
    else:
        scale, inverse = from_max, t(max_range / t(q_max))
        min_range = t(t(q_min) * inverse)
    if range_given:
        x = xp.maximum(xp.minimum(x, max_range), min_range)
    scaled = (x * scale).astype(t)
    # HALF_UP: floor(v + 0.5), in the op's own precision.
    rounded = xp.rint(scaled) if round_mode == "HALF_TO_EVEN" else xp.floor(scaled + t(0.5))
    return (rounded * inverse).astype(t)


@kernel("QuantizeAndDequantizeV2", host=(1, 2))
def quantize_and_dequantize_v2(node: Any, xp: Any) -> Compute:
    signed = bool(node.attrs.get("signed_input", True))
    num_bits = int(node.attrs.get("num_bits", 8))
    range_given = bool(node.attrs.get("range_given", False))
    narrow = bool(node.attrs.get("narrow_range", False))
    round_mode = node.attrs.get("round_mode", "HALF_TO_EVEN")
    round_mode = round_mode.decode() if isinstance(round_mode, bytes) else str(round_mode)
    if not ((signed and 1 < num_bits <= 63) or (not signed and 0 < num_bits <= 62)):
        raise invalid(f"num_bits is out of range: {num_bits} with signed_input_ {signed}")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        t = x.dtype.type
        lo = hi = t(0)
        if range_given:
            lo = t(np.asarray(host_array(ins[1])).reshape(-1)[0])
            hi = t(np.asarray(host_array(ins[2])).reshape(-1)[0])
            if lo > hi:
                raise invalid(f"Invalid range: input_min {lo} > input_max {hi}")
        return (
            quantize_and_dequantize(
                xp, x, signed, num_bits, range_given, lo, hi, round_mode, narrow
            ),
        )

    return compute
