"""Colour kernels over xp: RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation.

Each is TF's per-pixel formula written over whole arrays (branches become selects), in the
node's float dtype, in TF's order of operations; divisions by a zero range are kept out of
the arithmetic (a select picks the defined branch) so no warning or NaN is produced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import kernel

# Pixels per slice on the CPU: the dozens of temporaries of a slice stay in cache.
_SLICE = 1 << 15


def _per_pixel(xp: Any, x: Any, op: str, dtype: Any, fn: Any, rank: int = 1) -> Any:
    """fn(c0, c1, c2) -> [o0, o1, o2] over the three channels of every pixel, in slices of
    pixels on the CPU (whole on a GPU), written into one output of x's shape."""
    if x.ndim < rank:
        raise invalid(f"input must be at least {rank}-D, got shape{list(x.shape)}")
    if x.shape[-1] != 3:
        raise invalid(f"input must have 3 channels but input only has {x.shape[-1]} channels.")
    flat = x.reshape(-1, 3)
    out = xp.empty(flat.shape, dtype)
    step = _SLICE if xp is np else max(flat.shape[0], 1)
    for start in range(0, flat.shape[0], step):
        part = flat[start : start + step]
        planes = fn(part[:, 0], part[:, 1], part[:, 2])
        for channel in range(3):
            out[start : start + step, channel] = planes[channel]
    return out.reshape(x.shape)


def _select(xp: Any, cond: Any, a: Any, b: Any) -> Any:
    """xp.where(cond, a, b) for same-shaped float arrays; on the CPU as a bitwise blend of
    their bits, exact for every value and several times faster than numpy's where on the
    irregular masks pixels make."""
    if xp is not np or a.dtype != b.dtype or a.shape != b.shape or a.dtype.itemsize not in (4, 8):
        return xp.where(cond, a, b)
    ints = np.int32 if a.dtype.itemsize == 4 else np.int64
    mask = -cond.view(np.int8).astype(ints)
    ai, bi = a.view(ints), b.view(ints)
    return (bi ^ ((ai ^ bi) & mask)).view(a.dtype)


def _safe(xp: Any, value: Any, ok: Any) -> Any:
    """value where ok, else 1 (a harmless divisor for the branch a select discards)."""
    return _select(xp, ok, value, xp.ones_like(value))


@kernel("RGBToHSV")
def rgb_to_hsv(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    one, two, four, six = (dtype.type(v) for v in (1, 2, 4, 6))

    def planes(r: Any, g: Any, b: Any) -> list[Any]:
        v = xp.maximum(xp.maximum(r, g), b)
        rng = v - xp.minimum(xp.minimum(r, g), b)
        s = _select(xp, v > 0, rng / _safe(xp, v, v > 0), xp.zeros_like(v))
        norm = (one / _safe(xp, rng, rng > 0)) * (one / six)
        h = _select(
            xp,
            r == v,
            norm * (g - b),
            _select(xp, g == v, norm * (b - r) + two / six, norm * (r - g) + four / six),
        )
        h = _select(xp, rng > 0, h, xp.zeros_like(h))
        h = _select(xp, h < 0, h + one, h)
        return [h, s, v]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_per_pixel(xp, xp.asarray(ins[0]), "RGBToHSV", dtype, planes),)

    return compute


@kernel("HSVToRGB")
def hsv_to_rgb(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    c1, c2, c3, c4, c6 = (dtype.type(v) for v in (1, 2, 3, 4, 6))

    def planes(h: Any, s: Any, v: Any) -> list[Any]:
        dh = h * c6
        dr = xp.clip(xp.abs(dh - c3) - c1, 0, 1)
        dg = xp.clip(-xp.abs(dh - c2) + c2, 0, 1)
        db = xp.clip(-xp.abs(dh - c4) + c2, 0, 1)
        one_s = -s + c1
        return [(one_s + s * d) * v for d in (dr, dg, db)]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_per_pixel(xp, xp.asarray(ins[0]), "HSVToRGB", dtype, planes),)

    return compute


def _channel_sums_by_halving(xp: Any, planes: Any, pixels: int, channels: int) -> Any:
    """The float32 sum of each channel of each image ([images, pixels * channels] ->
    [images, channels]) in the order of TF 1.15's AdjustContrastv2 kernel: the second half of
    the pixels is added onto the first (the middle pixel of an odd count kept), then halved
    again until one pixel is left, each round one vectorised addition."""
    right = pixels // 2
    left = pixels - right
    sums = planes[:, : left * channels].copy()
    sums[:, : right * channels] += planes[:, left * channels : (left + right) * channels]
    remaining = left
    while remaining > 1:
        right = remaining // 2
        left = remaining - right
        sums[:, : right * channels] += sums[:, left * channels : (left + right) * channels]
        remaining = left
    return sums[:, :channels]


@kernel("AdjustContrastv2")
def adjust_contrast(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs.get("T").as_numpy_dtype) if "T" in node.attrs else np.float32

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        factor = xp.asarray(ins[1])
        if x.ndim < 3:
            raise invalid(f"input must be at least 3-D, got shape{list(x.shape)}")
        if factor.ndim != 0:
            raise invalid(f"contrast_factor must be scalar: {list(factor.shape)}")
        if x.size == 0:
            return (x,)
        work = x.astype(np.float32, copy=False)
        h, w, c = x.shape[-3:]
        planes = work.reshape(-1, h * w * c)
        scale = np.float32(1) / np.float32(h * w)  # float32 1.0f / pixels, as TF
        mean = _channel_sums_by_halving(xp, planes, h * w, c) * scale
        # TF adds factor * (x - mean) to the mean broadcast over the image, in float32.
        # (In place: one temporary besides the tiled means; the same float32 operations.)
        means = xp.tile(mean, (1, h * w))
        out = planes - means
        out *= factor.astype(np.float32)
        out += means
        return (out.reshape(x.shape).astype(dtype, copy=False),)

    return compute


# TF's rgb_to_hv_range branches on the order of r, g, b; the category of each branch, indexed
# by (r < g) * 4 + a * 2 + b where (a, b) are the branch's two tests.
_CATEGORY = np.array([5, 4, 0, 0, 2, 3, 1, 1], np.int32)
# (r, g, b) of category 0..5 as indices into (max, mid, min): TF's hv_range_to_rgb.
_FROM_CATEGORY = np.array(
    [[0, 1, 2], [1, 0, 2], [2, 0, 1], [2, 1, 0], [1, 2, 0], [0, 2, 1]], np.int64
)


def _hv_range(xp: Any, r: Any, g: Any, b: Any) -> tuple[Any, Any, Any]:
    """TF's rgb_to_hv_range: hue in [0, 6) and the value range, by the order of r, g, b."""
    r_lt_g = r < g
    first = (r_lt_g & (b < r)) | (~r_lt_g & (b < g))
    second = (r_lt_g & (b > g)) | (~r_lt_g & (b > r))
    code = r_lt_g.astype(np.int32) * 4 + first.astype(np.int32) * 2 + second.astype(np.int32)
    category = xp.take(xp.asarray(_CATEGORY), code)
    v_max = xp.maximum(xp.maximum(r, g), b)
    v_min = xp.minimum(xp.minimum(r, g), b)
    v_mid = xp.maximum(xp.minimum(r, g), xp.minimum(xp.maximum(r, g), b))
    span = v_max - v_min
    flat = span == 0
    ratio = (v_mid - v_min) / _safe(xp, span, ~flat)
    odd = (category & 1).astype(bool)
    h = category.astype(np.float32) + _select(xp, odd, np.float32(1) - ratio, ratio)
    return _select(xp, flat, xp.zeros_like(h), h), v_min, v_max


def _hv_range_to_rgb(xp: Any, h: Any, v_min: Any, v_max: Any) -> list[Any]:
    category = h.astype(np.int32)
    ratio = h - category.astype(np.float32)
    ratio = _select(xp, (category & 1).astype(bool), np.float32(1) - ratio, ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    # Categories past 5 (none for hues in [0, 6)) take TF's default branch, 5.
    category = xp.minimum(category, 5)
    out = []
    for channel in range(3):
        which = xp.take(xp.asarray(_FROM_CATEGORY[:, channel]), category)
        out.append(_select(xp, which == 0, v_max, _select(xp, which == 1, v_mid, v_min)))
    return out


# (r, g, b) of adjust_saturation's hsv_to_rgb per hue sector, as indices into (c, x, 0); any
# other sector (6: a hue of exactly 1) is TF's default branch, black before adding m.
_SATURATION_RGB = np.array(
    [[0, 1, 2], [1, 0, 2], [2, 0, 1], [2, 1, 0], [1, 2, 0], [0, 2, 1], [2, 2, 2]], np.int64
)


def _delta(value: Any, what: str) -> np.float32:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid(f"{what} must be scalar: {list(arr.shape)}")
    return np.float32(arr)


@kernel("AdjustHue", host=(1,))
def adjust_hue(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim < 3:
            raise invalid(f"input must be at least 3-D, got shape{list(x.shape)}")
        delta = _delta(ins[1], "delta")

        def planes(r: Any, g: Any, b: Any) -> list[Any]:
            h, v_min, v_max = _hv_range(xp, r, g, b)
            h = h + delta * np.float32(6)
            for _ in range(2):  # back into [0, 6) as TF's loops (|delta| <= 1: two steps)
                h = _select(xp, h < 0, h + np.float32(6), h)
            for _ in range(2):
                h = _select(xp, h >= 6, h - np.float32(6), h)
            return _hv_range_to_rgb(xp, h, v_min, v_max)

        x = x.astype(np.float32, copy=False)
        return (_per_pixel(xp, x, "AdjustHue", dtype, planes, 3),)

    return compute


@kernel("AdjustSaturation", host=(1,))
def adjust_saturation(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    f = np.float32

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim < 3:
            raise invalid(f"input must be at least 3-D, got shape{list(x.shape)}")
        scale = _delta(ins[1], "scale")

        def planes(r: Any, g: Any, b: Any) -> list[Any]:
            # TF's rgb_to_hsv of adjust_saturation_op.cc (hue in [0, 1)).
            v = xp.maximum(r, xp.maximum(g, b))
            rng = v - xp.minimum(r, xp.minimum(g, b))
            s = _select(xp, v > 0, rng / _safe(xp, v, v > 0), xp.zeros_like(v))
            norm = f(1.0) / (f(6.0) * _safe(xp, rng, rng > 0))
            h = _select(
                xp,
                r == v,
                norm * (g - b),
                _select(xp, g == v, norm * (b - r) + f(2.0 / 6.0), norm * (r - g) + f(4.0 / 6.0)),
            )
            h = _select(xp, rng <= 0, xp.zeros_like(h), h)
            h = _select(xp, h < 0, h + f(1), h)
            s = xp.minimum(f(1.0), xp.maximum(f(0.0), s * scale))
            # ... and its hsv_to_rgb.
            c = s * v
            m = v - c
            dh = h * f(6)
            fmodu = _select(xp, dh <= 0, dh + f(2), dh)
            fmodu = fmodu - f(2) * xp.floor(fmodu / f(2))
            xc = c * (f(1) - xp.abs(fmodu - f(1)))
            zero = xp.zeros_like(c)
            sector = xp.clip(dh.astype(np.int32), 0, 6)
            out = []
            for channel in range(3):
                which = xp.take(xp.asarray(_SATURATION_RGB[:, channel]), sector)
                level = _select(xp, which == 0, c, _select(xp, which == 1, xc, zero))
                out.append(level + m)
            return out

        x = x.astype(f, copy=False)
        return (_per_pixel(xp, x, "AdjustSaturation", dtype, planes, 3),)

    return compute
