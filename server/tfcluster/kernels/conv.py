"""Convolution kernels over xp: Conv2D/Conv3D (NHWC and NCHW forms, dilations, SAME, VALID
and EXPLICIT padding) with their input and filter backprops, and the depthwise convolution.

A convolution is im2col (the strided patch view of the padded input copied once into a
reused buffer) and one matrix product (BLAS on the CPU, cuBLAS on a GPU). The filter
backprop is the transposed product; the input backprop is the product with the transposed
filter, scattered back over the kernel taps (one array operation per tap, over the whole
batch). Depthwise convolutions walk the taps, each one broadcast product over the batch.
Half-precision products run in float32 (numpy has no half BLAS) and are cast back.
"""

from __future__ import annotations

import collections
import math
import threading
from typing import Any

import numpy as np

from tfcluster.kernels._window import (
    SCRATCH,
    Window,
    check_rank,
    copy_patches,
    over_batch,
    interior,
    padded,
    padded_shape,
    patches,
    shape_arg,
)
from tfcluster.kernels.common import Compute, invalid, typed
from tfcluster.kernels.registry import kernel


class _PatchCache:
    """The im2col patches of recent convolution inputs. A training step's filter backprop
    needs the very patches its forward convolution copied: the forward leaves them here and
    the backprop takes them, so they are copied once. An entry is found only for the same
    input object (held, so its id stays its own) and window, and is taken once; at most
    `limit` entries are kept, the oldest going back to the scratch pool."""

    def __init__(self, limit: int) -> None:
        self._entries: collections.OrderedDict[tuple[Any, ...], tuple[Any, Any, Any]] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()
        self._limit = limit

    def put(self, key: tuple[Any, ...], x: Any, scratch_key: Any, cols: Any) -> None:
        evicted = []
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                evicted.append(old)
            self._entries[key] = (x, scratch_key, cols)
            while len(self._entries) > self._limit:
                evicted.append(self._entries.popitem(last=False)[1])
        for _, skey, buf in evicted:
            SCRATCH.give(skey, buf)

    def take(self, key: tuple[Any, ...], x: Any) -> tuple[Any, Any] | None:
        """(scratch key, cols) of x's patches, or None; the caller gives them back."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] is not x:
                return None
            del self._entries[key]
        return entry[1], entry[2]


PATCHES = _PatchCache(limit=8)


def _patch_key(x: Any, win: Window, ksizes: list[int], pads: Any, ctype: Any) -> tuple[Any, ...]:
    return (
        id(x),
        tuple(x.shape),
        tuple(x.strides),
        np.dtype(x.dtype).str,
        np.dtype(ctype).str,
        tuple(ksizes),
        tuple(map(tuple, pads)),
        tuple(win.strides),
        tuple(win.dilations),
        win.channels_first,
    )


# A filter gradient this small is a product with a tiny result and a huge inner dimension;
# BLAS splits such a product badly over its threads (seconds, on a busy machine, for what
# takes milliseconds): it is summed over row blocks instead.
_SMALL_FILTER = 4096
_ROW_BLOCK = 8192


def _reduce_rows(cols: Any, dy_mat: Any) -> Any:
    """cols.T @ dy_mat, in row blocks when the result is small."""
    if cols.shape[1] * dy_mat.shape[1] > _SMALL_FILTER or cols.shape[0] <= 2 * _ROW_BLOCK:
        return cols.T @ dy_mat
    total = None
    for start in range(0, cols.shape[0], _ROW_BLOCK):
        part = cols[start : start + _ROW_BLOCK].T @ dy_mat[start : start + _ROW_BLOCK]
        total = part if total is None else total + part
    return total


def _compute_dtype(dtype: Any) -> Any:
    return np.float32 if np.dtype(dtype) == np.float16 else dtype


def _conv_forward(xp: Any, win: Window, x: Any, f: Any) -> Any:
    """The convolution of x (node layout) with filter f [*k, ci, co], in the node's layout."""
    n = win.n
    check_rank(x, n + 2, "input", win.name)
    check_rank(f, n + 2, "filter", win.name)
    xl = win.to_last(xp, x)
    ksizes, ci, co = list(f.shape[:n]), f.shape[n], f.shape[n + 1]
    if xl.shape[-1] != ci:
        raise invalid(
            f"input depth must be evenly divisible by filter depth: {xl.shape[-1]} vs {ci} "
            f"({win.name})"
        )
    batch, sizes = xl.shape[0], list(xl.shape[1:-1])
    outs, pads = win.plan(sizes, ksizes)
    ctype = _compute_dtype(x.dtype)
    wmat = f.reshape(-1, co).astype(ctype, copy=False)
    rows = batch * math.prod(outs)
    if (
        all(k == 1 for k in ksizes)
        and all(s == 1 for s in win.strides)
        and not any(a or b for a, b in pads)
    ):
        # A 1x1 convolution is a plain product over the channels.
        out = xl.reshape(rows, ci).astype(ctype, copy=False) @ wmat
    else:
        skey, cols = SCRATCH.take(xp, (rows, math.prod(ksizes) * ci), ctype)
        with padded(xp, xl, pads) as xp_:
            view = patches(xp, xp_, outs, ksizes, win)
            copy_patches(xp, cols, view)
        out = cols @ wmat
        PATCHES.put(_patch_key(x, win, ksizes, pads, ctype), x, skey, cols)
    out = out.reshape(batch, *outs, co)
    return win.from_last(xp, out.astype(x.dtype, copy=False))


def _conv_backprop_input(xp: Any, win: Window, sizes_arg: Any, f: Any, dy: Any) -> Any:
    n = win.n
    shape = shape_arg(sizes_arg, n + 2, "input_sizes", win.name)
    check_rank(f, n + 2, "filter", win.name)
    check_rank(dy, n + 2, "out_backprop", win.name)
    batch, sizes, c = win.sizes_from(shape)
    ksizes, ci, co = list(f.shape[:n]), f.shape[n], f.shape[n + 1]
    outs, pads = win.plan(sizes, ksizes)
    dyl = win.to_last(xp, dy)
    if ci != c or tuple(dyl.shape) != (batch, *outs, co):
        raise invalid(
            f"{win.op}: out_backprop shape {list(dy.shape)} and filter shape {list(f.shape)} "
            f"do not match input sizes {list(shape)} ({win.name})"
        )
    ctype = _compute_dtype(dy.dtype)
    dy_mat = dyl.reshape(-1, co).astype(ctype, copy=False)
    w_t = f.reshape(-1, co).astype(ctype, copy=False).T
    if (
        all(k == 1 for k in ksizes)
        and all(s == 1 for s in win.strides)
        and not any(a or b for a, b in pads)
    ):
        dx = (dy_mat @ w_t).reshape(batch, *sizes, c)
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    full = _full_correlation_pads(win, sizes, ksizes, outs, pads, (co, ci))
    if full is not None:
        dx = _backprop_input_as_correlation(xp, win, dyl, f, sizes, ksizes, full, ctype)
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    with SCRATCH.lend(xp, (dy_mat.shape[0], w_t.shape[1]), ctype) as dcols:
        xp.matmul(dy_mat, w_t, out=dcols)
        taps = dcols.reshape(batch, *outs, *ksizes, c)
        dx_padded = xp.zeros(padded_shape((batch, *sizes, c), pads), ctype)

        def scatter(rows: slice) -> None:
            for tap in win.taps(ksizes):
                sl = win.tap_slices(tap, outs)
                dx_padded[(rows, *sl[1:])] += taps[(rows,) + (slice(None),) * n + tap]

        over_batch(xp, batch, dcols.nbytes, scatter)
    dx = dx_padded[interior(pads, sizes)]
    return win.from_last(xp, dx.astype(dy.dtype, copy=False))


def _full_correlation_pads(
    win: Window,
    sizes: list[int],
    ksizes: list[int],
    outs: list[int],
    pads: list[tuple[int, int]],
    channels: tuple[int, int],
) -> list[tuple[int, int]] | None:
    """With stride 1, the input gradient is the correlation of out_backprop, padded by these
    (before, after) amounts, with the flipped filter; None where that does not hold."""
    if any(s != 1 for s in win.strides):
        return None
    # The correlation copies out_backprop's patches (co channels per tap) and multiplies
    # into ci columns; the scatter copies ci channels per tap three times over (read, add,
    # write). With few input channels (a first layer) the scatter is far cheaper.
    co, ci = channels
    if ci < 16 or co >= 3 * ci:
        return None
    out = []
    for size, k, d, o, (before, _) in zip(sizes, ksizes, win.dilations, outs, pads):
        left = (k - 1) * d - before
        right = size + (k - 1) * d - left - o
        if left < 0 or right < 0:
            return None
        out.append((left, right))
    return out


def _backprop_input_as_correlation(
    xp: Any,
    win: Window,
    dyl: Any,
    f: Any,
    sizes: list[int],
    ksizes: list[int],
    pads: list[tuple[int, int]],
    ctype: Any,
) -> Any:
    """dx = correlate(pad(dy), flip(f) with in/out channels swapped): im2col of the padded
    out_backprop and one product (no scatter over the taps)."""
    n = win.n
    co, ci = f.shape[n + 1], f.shape[n]
    flipped = f[(slice(None, None, -1),) * n]
    w_flip = (
        xp.ascontiguousarray(xp.swapaxes(flipped, -1, -2)).reshape(-1, ci).astype(ctype, copy=False)
    )
    batch = dyl.shape[0]
    rows = batch * math.prod(sizes)
    with (
        padded(xp, dyl.astype(ctype, copy=False), pads) as dyp,
        SCRATCH.lend(xp, (rows, math.prod(ksizes) * co), ctype) as cols,
    ):
        view = patches(xp, dyp, sizes, ksizes, win, strides=[1] * n)
        copy_patches(xp, cols, view)
        dx = cols @ w_flip
    return dx.reshape(batch, *sizes, ci)


def _conv_backprop_filter(xp: Any, win: Window, x: Any, sizes_arg: Any, dy: Any) -> Any:
    n = win.n
    fshape = shape_arg(sizes_arg, n + 2, "filter_sizes", win.name)
    check_rank(x, n + 2, "input", win.name)
    check_rank(dy, n + 2, "out_backprop", win.name)
    xl = win.to_last(xp, x)
    dyl = win.to_last(xp, dy)
    ksizes, ci, co = list(fshape[:n]), fshape[n], fshape[n + 1]
    batch, sizes = xl.shape[0], list(xl.shape[1:-1])
    outs, pads = win.plan(sizes, ksizes)
    if ci != xl.shape[-1] or tuple(dyl.shape) != (batch, *outs, co):
        raise invalid(
            f"{win.op}: out_backprop shape {list(dy.shape)} does not match input "
            f"{list(x.shape)} and filter sizes {list(fshape)} ({win.name})"
        )
    ctype = _compute_dtype(x.dtype)
    dy_mat = dyl.reshape(-1, co).astype(ctype, copy=False)
    rows = dy_mat.shape[0]
    cached = PATCHES.take(_patch_key(x, win, ksizes, pads, ctype), x)
    if cached is not None:
        skey, cols = cached
    else:
        skey, cols = SCRATCH.take(xp, (rows, math.prod(ksizes) * ci), ctype)
        with padded(xp, xl, pads) as xp_:
            view = patches(xp, xp_, outs, ksizes, win)
            copy_patches(xp, cols, view)
    try:
        dw = _reduce_rows(cols, dy_mat)
    finally:
        SCRATCH.give(skey, cols)
    return dw.reshape(fshape).astype(x.dtype, copy=False)


def _conv_kernels(prefix: str, n: int, input_op: str, filter_op: str) -> None:
    @kernel(prefix)
    def forward(node: Any, xp: Any) -> Compute:
        win = Window(node, n)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (_conv_forward(xp, win, xp.asarray(ins[0]), xp.asarray(ins[1])),)

        return compute

    @kernel(input_op, host=[0])
    def backprop_input(node: Any, xp: Any) -> Compute:
        win = Window(node, n)
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            dx = _conv_backprop_input(xp, win, ins[0], xp.asarray(ins[1]), xp.asarray(ins[2]))
            return (cast(dx),)

        return compute

    @kernel(filter_op, host=[1])
    def backprop_filter(node: Any, xp: Any) -> Compute:
        win = Window(node, n)
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            dw = _conv_backprop_filter(xp, win, xp.asarray(ins[0]), ins[1], xp.asarray(ins[2]))
            return (cast(dw),)

        return compute


_conv_kernels("Conv2D", 2, "Conv2DBackpropInput", "Conv2DBackpropFilter")
_conv_kernels("Conv3D", 3, "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")


# ---- depthwise -----------------------------------------------------------------------------------
def _depthwise_check(win: Window, xl_shape: tuple[int, ...], fshape: tuple[int, ...]) -> None:
    if len(fshape) != 4:
        raise invalid(f"filter must be 4-dimensional: {list(fshape)} ({win.name})")
    if xl_shape[-1] != fshape[2]:
        raise invalid(
            f"input and filter must have the same depth: {xl_shape[-1]} vs {fshape[2]} ({win.name})"
        )


@kernel("DepthwiseConv2dNative")
def depthwise_conv2d(node: Any, xp: Any) -> Compute:
    win = Window(node, 2)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, f = xp.asarray(ins[0]), xp.asarray(ins[1])
        check_rank(x, 4, "input", node.name)
        xl = win.to_last(xp, x)
        _depthwise_check(win, xl.shape, f.shape)
        kh, kw, c, m = f.shape
        outs, pads = win.plan(list(xl.shape[1:3]), [kh, kw])
        ctype = _compute_dtype(x.dtype)
        fc = f.astype(ctype, copy=False)
        out = xp.zeros((xl.shape[0], *outs, c, m), ctype)
        with padded(xp, xl.astype(ctype, copy=False), pads) as xp_:
            for tap in win.taps([kh, kw]):
                src = xp_[win.tap_slices(tap, outs)]
                out += src[..., None] * fc[tap]
        out = out.reshape(xl.shape[0], *outs, c * m).astype(x.dtype, copy=False)
        return (win.from_last(xp, out),)

    return compute


@kernel("DepthwiseConv2dNativeBackpropInput", host=[0])
def depthwise_conv2d_backprop_input(node: Any, xp: Any) -> Compute:
    win = Window(node, 2)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = shape_arg(ins[0], 4, "input_sizes", node.name)
        f, dy = xp.asarray(ins[1]), xp.asarray(ins[2])
        check_rank(dy, 4, "out_backprop", node.name)
        batch, sizes, c = win.sizes_from(shape)
        _depthwise_check(win, (batch, *sizes, c), f.shape)
        kh, kw, _, m = f.shape
        outs, pads = win.plan(sizes, [kh, kw])
        dyl = win.to_last(xp, dy)
        if tuple(dyl.shape) != (batch, *outs, c * m):
            raise invalid(
                f"out_backprop shape {list(dy.shape)} does not match input sizes "
                f"{list(shape)} and filter {list(f.shape)} ({node.name})"
            )
        ctype = _compute_dtype(dy.dtype)
        g = dyl.astype(ctype, copy=False).reshape(batch, *outs, c, m)
        fc = f.astype(ctype, copy=False)
        dx_padded = xp.zeros(padded_shape((batch, *sizes, c), pads), ctype)
        for tap in win.taps([kh, kw]):
            dx_padded[win.tap_slices(tap, outs)] += (g * fc[tap]).sum(axis=-1)
        dx = dx_padded[interior(pads, sizes)]
        return (cast(win.from_last(xp, dx)),)

    return compute


@kernel("DepthwiseConv2dNativeBackpropFilter", host=[1])
def depthwise_conv2d_backprop_filter(node: Any, xp: Any) -> Compute:
    win = Window(node, 2)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        fshape = shape_arg(ins[1], 4, "filter_sizes", node.name)
        dy = xp.asarray(ins[2])
        check_rank(x, 4, "input", node.name)
        check_rank(dy, 4, "out_backprop", node.name)
        xl = win.to_last(xp, x)
        _depthwise_check(win, xl.shape, fshape)
        kh, kw, c, m = fshape
        outs, pads = win.plan(list(xl.shape[1:3]), [kh, kw])
        dyl = win.to_last(xp, dy)
        if tuple(dyl.shape) != (xl.shape[0], *outs, c * m):
            raise invalid(
                f"out_backprop shape {list(dy.shape)} does not match input {list(x.shape)} "
                f"and filter sizes {list(fshape)} ({node.name})"
            )
        ctype = _compute_dtype(x.dtype)
        g = dyl.astype(ctype, copy=False).reshape(-1, c, m)
        dw = xp.empty((kh, kw, c, m), ctype)
        with padded(xp, xl.astype(ctype, copy=False), pads) as xp_:
            for tap in win.taps([kh, kw]):
                src = xp_[win.tap_slices(tap, outs)].reshape(-1, c)
                dw[tap] = (src[:, :, None] * g).sum(axis=0)
        return (cast(dw),)

    return compute
