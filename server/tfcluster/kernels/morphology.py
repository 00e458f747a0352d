"""Grayscale morphological dilation (Dilation2D) and its two gradients, as TF's
dilation_ops compute them: out[b, y, x, c] = max over the filter taps (dy, dx) of
input[b, y*sh + dy*rh - pad_top, x*sw + dx*rw - pad_left, c] + filter[dy, dx, c], taps
outside the image skipped; the gradient goes to the first tap (row-major) reaching the max.

One pass per filter tap over strided views of the whole batch (taps are few, pixels many)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels.common import Compute, invalid, shape_str, typed
from tfcluster.kernels.registry import kernel


class _Geometry:
    def __init__(self, node: Any, in_shape: tuple[int, ...], f_shape: tuple[int, ...]) -> None:
        strides = [int(s) for s in node.attrs["strides"]]
        rates = [int(r) for r in node.attrs["rates"]]
        padding = node.attrs["padding"]
        padding = padding.decode() if isinstance(padding, bytes) else str(padding)
        if len(in_shape) != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(in_shape)}")
        if len(f_shape) != 3:
            raise invalid(f"filter must be 3-dimensional: {shape_str(f_shape)}")
        if f_shape[2] != in_shape[3]:
            raise invalid(
                f"input and filter must have the same depth: {in_shape[3]} vs {f_shape[2]}"
            )
        self.batch, self.in_h, self.in_w, self.depth = in_shape
        self.f_h, self.f_w = f_shape[0], f_shape[1]
        self.s_h, self.s_w = strides[1], strides[2]
        self.r_h, self.r_w = rates[1], rates[2]
        self.out_h, self.pad_top, _ = windowed_output_size(
            self.in_h, self.f_h, self.s_h, self.r_h, padding
        )
        self.out_w, self.pad_left, _ = windowed_output_size(
            self.in_w, self.f_w, self.s_w, self.r_w, padding
        )
        if self.out_h < 0 or self.out_w < 0:
            raise invalid(
                f"Computed output size would be negative: {min(self.out_h, self.out_w)} "
                f"[input_size: {min(self.in_h, self.in_w)}, effective_filter_size: "
                f"{max((self.f_h - 1) * self.r_h + 1, (self.f_w - 1) * self.r_w + 1)}, "
                f"stride: {self.s_h}]"
            )

    def padded_size(self) -> tuple[int, int]:
        """Rows and columns of the image framed so every tap of every output is inside."""
        rows = max(self.in_h, (self.out_h - 1) * self.s_h + (self.f_h - 1) * self.r_h + 1)
        cols = max(self.in_w, (self.out_w - 1) * self.s_w + (self.f_w - 1) * self.r_w + 1)
        return rows + self.pad_top, cols + self.pad_left

    def tap_view(self, dy: int, dx: int) -> tuple[slice, slice]:
        y0, x0 = dy * self.r_h, dx * self.r_w
        return (
            slice(y0, y0 + (self.out_h - 1) * self.s_h + 1, self.s_h),
            slice(x0, x0 + (self.out_w - 1) * self.s_w + 1, self.s_w),
        )


def _framed(xp: Any, g: _Geometry, image: Any) -> tuple[Any, Any]:
    """The image inside a frame, and where the image is (framed positions never count)."""
    rows, cols = g.padded_size()
    out = xp.zeros((g.batch, rows, cols, g.depth), dtype=image.dtype)
    inside = xp.zeros((1, rows, cols, 1), dtype=bool)
    out[:, g.pad_top : g.pad_top + g.in_h, g.pad_left : g.pad_left + g.in_w, :] = image
    inside[:, g.pad_top : g.pad_top + g.in_h, g.pad_left : g.pad_left + g.in_w, :] = True
    return out, inside


def _lowest(dtype: Any) -> Any:
    kind = np.dtype(dtype)
    return np.finfo(kind).min if kind.kind == "f" else np.iinfo(kind).min


def _max_and_tap(xp: Any, g: _Geometry, image: Any, filt: Any) -> tuple[Any, Any]:
    """Each output's max and the index of the first tap that reaches it (TF starts from the
    dtype's lowest value and takes a tap only when strictly greater)."""
    best = xp.full((g.batch, g.out_h, g.out_w, g.depth), _lowest(image.dtype), dtype=image.dtype)
    which = xp.full(best.shape, -1, dtype=xp.int32)
    if np.dtype(image.dtype).kind == "f":
        # Framed with -inf: a tap outside the image never beats the lowest value.
        rows_n, cols_n = g.padded_size()
        framed = xp.full((g.batch, rows_n, cols_n, g.depth), -np.inf, dtype=image.dtype)
        framed[:, g.pad_top : g.pad_top + g.in_h, g.pad_left : g.pad_left + g.in_w, :] = image
        for dy in range(g.f_h):
            for dx in range(g.f_w):
                rows, cols = g.tap_view(dy, dx)
                val = framed[:, rows, cols, :] + filt[dy, dx, :]
                better = val > best
                xp.fmax(best, val, out=best)  # fmax: a NaN tap never wins, as in TF
                which[better] = dy * g.f_w + dx
        return best, which
    framed, inside = _framed(xp, g, image)
    for dy in range(g.f_h):
        for dx in range(g.f_w):
            rows, cols = g.tap_view(dy, dx)
            val = framed[:, rows, cols, :] + filt[dy, dx, :]
            better = inside[:, rows, cols, :] & (val > best)
            best = xp.where(better, val, best)
            which = xp.where(better, dy * g.f_w + dx, which)
    return best, which


def _max_only(xp: Any, g: _Geometry, image: Any, filt: Any) -> Any:
    """The forward max alone: float images framed with -inf need no mask and no argmax."""
    if np.dtype(image.dtype).kind != "f":
        return _max_and_tap(xp, g, image, filt)[0]
    rows, cols = g.padded_size()
    framed = xp.full((g.batch, rows, cols, g.depth), -np.inf, dtype=image.dtype)
    framed[:, g.pad_top : g.pad_top + g.in_h, g.pad_left : g.pad_left + g.in_w, :] = image
    best = xp.full((g.batch, g.out_h, g.out_w, g.depth), -np.inf, dtype=image.dtype)
    for dy in range(g.f_h):
        for dx in range(g.f_w):
            r, c = g.tap_view(dy, dx)
            # fmax: a NaN tap never wins, as TF's strict comparison makes it.
            xp.fmax(best, framed[:, r, c, :] + filt[dy, dx, :], out=best)
    # No tap inside the image (or only -inf ones): TF leaves the dtype's lowest value.
    return xp.where(best == -np.inf, _lowest(image.dtype), best)


@kernel("Dilation2D")
def dilation2d(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        image, filt = xp.asarray(ins[0]), xp.asarray(ins[1])
        g = _Geometry(node, tuple(image.shape), tuple(filt.shape))
        return (cast(_max_only(xp, g, image, filt)),)

    return compute


def _check_backprop(g: _Geometry, grad: Any) -> None:
    want = (g.batch, g.out_h, g.out_w, g.depth)
    if tuple(grad.shape) != want:
        raise invalid(
            f"out_backprop has incompatible size: {shape_str(grad.shape)} vs {shape_str(want)}"
        )


@kernel("Dilation2DBackpropInput")
def dilation2d_backprop_input(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        image, filt, grad = (xp.asarray(v) for v in ins)
        g = _Geometry(node, tuple(image.shape), tuple(filt.shape))
        _check_backprop(g, grad)
        _, which = _max_and_tap(xp, g, image, filt)
        rows, cols = g.padded_size()
        framed = xp.zeros((g.batch, rows, cols, g.depth), dtype=grad.dtype)
        for dy in range(g.f_h):
            for dx in range(g.f_w):
                r, c = g.tap_view(dy, dx)
                # One tap's outputs read distinct pixels: a strided add has no collisions.
                framed[:, r, c, :] += xp.where(which == dy * g.f_w + dx, grad, 0)
        inside = framed[:, g.pad_top : g.pad_top + g.in_h, g.pad_left : g.pad_left + g.in_w, :]
        return (cast(inside),)

    return compute


@kernel("Dilation2DBackpropFilter")
def dilation2d_backprop_filter(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        image, filt, grad = (xp.asarray(v) for v in ins)
        g = _Geometry(node, tuple(image.shape), tuple(filt.shape))
        _check_backprop(g, grad)
        _, which = _max_and_tap(xp, g, image, filt)
        sums = xp.stack(
            [xp.sum(xp.where(which == k, grad, 0), axis=(0, 1, 2)) for k in range(g.f_h * g.f_w)]
        )
        return (cast(sums.reshape(g.f_h, g.f_w, g.depth)),)

    return compute
