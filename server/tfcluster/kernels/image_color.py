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


def _rgb_channels(x: Any, op: str, rank: int = 1) -> tuple[Any, Any, Any]:
    if x.ndim < rank:
        raise invalid(f"input must be at least {rank}-D, got shape{list(x.shape)}")
    if x.shape[-1] != 3:
        raise invalid(f"input must have 3 channels but input only has {x.shape[-1]} channels.")
    return x[..., 0], x[..., 1], x[..., 2]


def _safe(xp: Any, value: Any, ok: Any) -> Any:
    """value where ok, else 1 (a harmless divisor for the branch a select discards)."""
    return xp.where(ok, value, xp.ones_like(value))


@kernel("RGBToHSV")
def rgb_to_hsv(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    one, two, four, six = (dtype.type(v) for v in (1, 2, 4, 6))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        r, g, b = _rgb_channels(x, "RGBToHSV")
        v = xp.maximum(xp.maximum(r, g), b)
        rng = v - xp.minimum(xp.minimum(r, g), b)
        s = xp.where(v > 0, rng / _safe(xp, v, v > 0), xp.zeros_like(v))
        norm = (one / _safe(xp, rng, rng > 0)) * (one / six)
        h = xp.where(
            r == v,
            norm * (g - b),
            xp.where(g == v, norm * (b - r) + two / six, norm * (r - g) + four / six),
        )
        h = xp.where(rng > 0, h, xp.zeros_like(h))
        h = xp.where(h < 0, h + one, h)
        return (xp.stack([h, s, v], axis=-1).astype(dtype),)

    return compute


@kernel("HSVToRGB")
def hsv_to_rgb(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    c1, c2, c3, c4, c6 = (dtype.type(v) for v in (1, 2, 3, 4, 6))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        h, s, v = _rgb_channels(x, "HSVToRGB")
        dh = h * c6
        dr = xp.clip(xp.abs(dh - c3) - c1, 0, 1)
        dg = xp.clip(-xp.abs(dh - c2) + c2, 0, 1)
        db = xp.clip(-xp.abs(dh - c4) + c2, 0, 1)
        one_s = -s + c1
        out = [(one_s + s * d) * v for d in (dr, dg, db)]
        return (xp.stack(out, axis=-1).astype(dtype),)

    return compute


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
        work = x.astype(np.float32)
        mean = xp.mean(work.astype(np.float64), axis=(-3, -2), keepdims=True).astype(np.float32)
        out = (work - mean) * factor.astype(np.float32) + mean
        return (out.astype(dtype),)

    return compute


def _hv_range(xp: Any, r: Any, g: Any, b: Any) -> tuple[Any, Any, Any]:
    """TF's rgb_to_hv_range: hue in [0, 6) and the value range, by the order of r, g, b."""
    r_lt_g = r < g
    # (max, mid, min, category) in each of TF's six orderings.
    cases = [
        (r_lt_g & (b < r), (g, r, b, 1)),
        (r_lt_g & ~(b < r) & (b > g), (b, g, r, 3)),
        (r_lt_g & ~(b < r) & ~(b > g), (g, b, r, 2)),
        (~r_lt_g & (b < g), (r, g, b, 0)),
        (~r_lt_g & ~(b < g) & (b > r), (b, r, g, 4)),
        (~r_lt_g & ~(b < g) & ~(b > r), (r, b, g, 5)),
    ]
    v_max, v_mid, v_min = xp.zeros_like(r), xp.zeros_like(r), xp.zeros_like(r)
    category = xp.zeros(r.shape, np.int32)
    for cond, (hi, mid, lo, cat) in cases:
        v_max = xp.where(cond, hi, v_max)
        v_mid = xp.where(cond, mid, v_mid)
        v_min = xp.where(cond, lo, v_min)
        category = xp.where(cond, cat, category)
    span = v_max - v_min
    flat = span == 0
    ratio = (v_mid - v_min) / _safe(xp, span, ~flat)
    increase = (category % 2) == 0
    h = category.astype(np.float32) + xp.where(increase, ratio, np.float32(1) - ratio)
    return xp.where(flat, xp.zeros_like(h), h), v_min, v_max


def _hv_range_to_rgb(xp: Any, h: Any, v_min: Any, v_max: Any) -> Any:
    category = h.astype(np.int32)
    ratio = h - category.astype(np.float32)
    ratio = xp.where((category % 2) == 0, ratio, np.float32(1) - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    # (r, g, b) per category 0..5 (anything else is 5, as TF's default branch).
    table = [
        (v_max, v_mid, v_min),
        (v_mid, v_max, v_min),
        (v_min, v_max, v_mid),
        (v_min, v_mid, v_max),
        (v_mid, v_min, v_max),
    ]
    r, g, b = v_max, v_min, v_mid
    for cat, (cr, cg, cb) in enumerate(table):
        hit = category == cat
        r, g, b = xp.where(hit, cr, r), xp.where(hit, cg, g), xp.where(hit, cb, b)
    return xp.stack([r, g, b], axis=-1)


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
        r, g, b = _rgb_channels(x.astype(np.float32), "AdjustHue", 3)
        h, v_min, v_max = _hv_range(xp, r, g, b)
        h = h + delta * np.float32(6)
        for _ in range(2):  # back into [0, 6), as TF's loops (|delta| <= 1 needs two steps)
            h = xp.where(h < 0, h + np.float32(6), h)
        for _ in range(2):
            h = xp.where(h >= 6, h - np.float32(6), h)
        return (_hv_range_to_rgb(xp, h, v_min, v_max).astype(dtype),)

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
        r, g, b = _rgb_channels(x.astype(f), "AdjustSaturation", 3)
        # TF's rgb_to_hsv of adjust_saturation_op.cc (hue in [0, 1)).
        v = xp.maximum(r, xp.maximum(g, b))
        rng = v - xp.minimum(r, xp.minimum(g, b))
        s = xp.where(v > 0, rng / _safe(xp, v, v > 0), xp.zeros_like(v))
        norm = f(1.0) / (f(6.0) * _safe(xp, rng, rng > 0))
        h = xp.where(
            r == v,
            norm * (g - b),
            xp.where(g == v, norm * (b - r) + f(2.0 / 6.0), norm * (r - g) + f(4.0 / 6.0)),
        )
        h = xp.where(rng <= 0, xp.zeros_like(h), h)
        h = xp.where(h < 0, h + f(1), h)
        s = xp.minimum(f(1.0), xp.maximum(f(0.0), s * scale))
        # ... and its hsv_to_rgb.
        c = s * v
        m = v - c
        dh = h * f(6)
        category = dh.astype(np.int32)
        fmodu = xp.where(dh <= 0, dh + f(2), dh)
        fmodu = fmodu - f(2) * xp.floor(fmodu / f(2))
        xc = c * (f(1) - xp.abs(fmodu - f(1)))
        zero = xp.zeros_like(c)
        table = [(c, xc, zero), (xc, c, zero), (zero, c, xc), (zero, xc, c), (xc, zero, c)]
        rr, gg, bb = xp.where(category == 5, c, zero), zero, xp.where(category == 5, xc, zero)
        for cat, (cr, cg, cb) in enumerate(table):
            hit = category == cat
            rr, gg, bb = xp.where(hit, cr, rr), xp.where(hit, cg, gg), xp.where(hit, cb, bb)
        return (xp.stack([rr + m, gg + m, bb + m], axis=-1).astype(dtype),)

    return compute
