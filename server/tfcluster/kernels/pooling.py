"""Pooling kernels over xp: max and average pooling in 2 and 3 spatial dims (NHWC and NCHW
forms) with their first and second order gradients, and max pooling with argmax.

Windows walk the kernel taps, each a strided slice of the padded input, so every step is one
array operation over a block of the batch; where windows tile a contiguous channels-last
input exactly (stride = window, no padding), max-pool gradients copy each block tap-major
first and work on contiguous slabs, or route by the first maxima that the pool itself kept
for them (kernels/_first_max.py, where the graph optimizer marked the pool). As TF on the
CPU: MaxPoolGrad gives a window's gradient to its first maximum in row-major tap order,
MaxPool3DGrad to every element equal to the maximum; average pools divide by the number of
real (unpadded) inputs in each window.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import _first_max
from tfcluster.kernels import pool_outer_dims as outer
from tfcluster.kernels._window import (
    BLOCKS_MULTIPLE,
    CACHE_BLOCK,
    SCRATCH,
    Window,
    block_items,
    check_rank,
    copy_runs,
    interior,
    lowest,
    over_batch,
    padded,
    padded_shape,
    shape_arg,
)
from tfcluster.kernels.common import Compute, host_array, invalid, typed
from tfcluster.kernels.registry import kernel
from tfcluster.runtime.kernel_fusion import KEEP_FIRST_MAX


def _tiles(win: Window, sizes: list[int], pads: list[tuple[int, int]]) -> bool:
    """Whether the windows tile the input exactly (a reshape gives them)."""
    assert win.ksize is not None
    return (
        win.strides == win.ksize
        and not any(a or b for a, b in pads)
        and all(s % k == 0 for s, k in zip(sizes, win.ksize))
    )


def _per_block(n: int) -> tuple[Any, ...]:
    """Index that gives a pooled (N, *outs, C) array the window axes of the input viewed as
    (N, o1, k1, o2, k2, ..., C) (windows that tile it)."""
    return (slice(None), *(v for _ in range(n) for v in (slice(None), None)), slice(None))


def _valid_counts(
    win: Window, sizes: list[int], outs: list[int], pads: list[tuple[int, int]]
) -> Any:
    """How many real inputs each output window covers: [1, *outs, 1] (host)."""
    assert win.ksize is not None
    counts = np.ones([1] * (win.n + 2), dtype=np.float64)
    for i, (size, k, s, o, (before, _)) in enumerate(
        zip(sizes, win.ksize, win.strides, outs, pads)
    ):
        starts = np.arange(o) * s - before
        c = np.minimum(starts + k, size) - np.maximum(starts, 0)
        shape = [1] * (win.n + 2)
        shape[1 + i] = o
        counts = counts * c.reshape(shape)
    return counts


def _pool_input(
    xp: Any, win: Window, x: Any
) -> tuple[Any, list[int], list[int], list[tuple[int, int]]]:
    check_rank(x, win.n + 2, "input", win.name)
    xl = win.to_last(xp, x)
    assert win.ksize is not None
    sizes = list(xl.shape[1:-1])
    outs, pads = win.plan(sizes, win.ksize)
    return xl, sizes, outs, pads


def _max_pool(xp: Any, win: Window, x: Any, keep_first_max: bool = False) -> Any:
    """keep_first_max: where the windows tile a contiguous channels-last x (on the CPU),
    each window's first maximum is kept for the MaxPoolGrad of this pool (_first_max)."""
    xl, sizes, outs, pads = _pool_input(xp, win, x)
    ksize = win.ksize
    assert ksize is not None
    out = xp.empty((xl.shape[0], *outs, xl.shape[-1]), x.dtype)
    if keep_first_max and _keeps_first_max(xp, win, xl, sizes, pads):
        return _max_pool_keeping_first_max(xp, win, x, xl, outs, out)
    if _pairs_of_pairs(xp, win, xl, sizes, pads):
        return win.from_last(xp, _max_pool_2x2(xp, xl, out))
    with padded(xp, xl, pads, lowest(x.dtype)) as src:

        def pool(rows: slice) -> None:
            part, dest = src[rows], out[rows]
            first = True
            for tap in win.taps(ksize):
                view = part[win.tap_slices(tap, outs)]
                if first:
                    xp.copyto(dest, view)
                    first = False
                else:
                    xp.maximum(dest, view, out=dest)

        over_batch(
            xp,
            xl.shape[0],
            xl.nbytes,
            pool,
            block_items(xp, xl.shape[0], xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE),
            blas=False,
        )
    return win.from_last(xp, out)


def _pairs_of_pairs(
    xp: Any, win: Window, xl: Any, sizes: list[int], pads: list[tuple[int, int]]
) -> bool:
    """Whether _max_pool_2x2 pools x: 2x2 windows that tile a contiguous channels-last x, on
    the CPU (numpy's maximum is known there to pick as the tap loop does, see there)."""
    return (
        xp is np
        and win.n == 2
        and win.ksize == [2, 2]
        and _tiles(win, sizes, pads)
        and bool(xl.size)
        and xl.flags.c_contiguous
    )


def _max_pool_2x2(xp: Any, xl: Any, out: Any) -> Any:
    """out = the 2x2 max pool of xl (windows that tile it), as each row's pair of taps, then
    the two rows: three maxima of the tap views in place of the tap loop's copy and three, and
    no copy of a tap (~20% less time for the conv net's first pool, one thread). The same
    bits: numpy's maximum keeps the first of two NaNs and the second of two equal numbers
    (+0 and -0 included), a choice by (NaN first, larger, later) that any grouping of taps in
    their order makes alike."""
    batch, h, w, c = xl.shape
    x6 = xl.reshape(batch, h // 2, 2, w // 2, 2, c)

    def pool(rows: slice) -> None:
        xs, dest = x6[rows], out[rows]
        lower = xp.maximum(xs[:, :, 1, :, 0], xs[:, :, 1, :, 1])
        xp.maximum(xs[:, :, 0, :, 0], xs[:, :, 0, :, 1], out=dest)
        xp.maximum(dest, lower, out=dest)

    over_batch(
        xp,
        batch,
        xl.nbytes,
        pool,
        block_items(xp, batch, xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE),
        blas=False,
    )
    return out


def _keeps_first_max(
    xp: Any, win: Window, xl: Any, sizes: list[int], pads: list[tuple[int, int]]
) -> bool:
    """Whether a max pool's first maxima are kept for its gradient: where the gradient takes
    _tiled_max_pool_grad (windows that tile a contiguous channels-last x), in 2-D (one
    first maximum per window), on the CPU."""
    return (
        xp is np
        and win.n == 2
        and _tiles(win, sizes, pads)
        and bool(xl.size)
        and xl.flags.c_contiguous
    )


def _first_max_key(win: Window, x: Any) -> tuple[Any, ...]:
    return (tuple(x.shape), x.dtype.str, tuple(win.ksize or ()), win.channels_first)


def _windows_as_axes(
    shape: tuple[int, ...], ksize: list[int], outs: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For windows that tile a channels-last x: (x's shape with its windows as axes, (N, o1,
    k1, o2, k2, ..., C); the transpose that shows a tap-major block (k1, .., kn, rows, o1,
    .., on, C) in that order)."""
    n = len(ksize)
    split = (shape[0], *(v for o, k in zip(outs, ksize) for v in (o, k)), shape[-1])
    to_split = (n, *(v for i in range(n) for v in (n + 1 + i, i)), 2 * n + 1)
    return split, to_split


def _max_pool_keeping_first_max(
    xp: Any, win: Window, x: Any, xl: Any, outs: list[int], out: Any
) -> Any:
    """_max_pool's result for windows that tile xl, each window's first maximum left in
    _first_max.KEPT for the gradient (tap-major, as _tiled_max_pool_grad routes). Each block
    is copied tap-major first (as the gradient does): the maxima and comparisons then run
    over contiguous slabs, where over x's strided tap views (inner runs of C numbers) the
    block took ~1.5x as long (the conv net's 2x2 pools, one thread)."""
    ksize = win.ksize
    assert ksize is not None
    taps = math.prod(ksize)
    batch = xl.shape[0]
    entry = _first_max.KEPT.start(xp, x, _first_max_key(win, x), (taps, *out.shape))
    first = entry.lent[1]
    split, to_split = _windows_as_axes(xl.shape, ksize, outs)
    x_split = xl.reshape(split)
    block = block_items(xp, batch, xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE)
    per_item = out[0].size

    def pool(rows: slice) -> None:
        count = rows.stop - rows.start
        with SCRATCH.lend(xp, (taps * block * per_item,), xl.dtype) as buf:
            xs = buf[: taps * count * per_item].reshape(*ksize, count, *outs, xl.shape[-1])
            copy_runs(xp, xs.transpose(to_split), x_split[rows])
            slabs = xs.reshape(taps, count, *out.shape[1:])
            _first_max.pool_block(xp, list(slabs), out[rows], first[:, rows])

    try:
        over_batch(xp, batch, xl.nbytes, pool, block, blas=False)
    except BaseException:
        _first_max.KEPT.discard(entry)
        raise
    y = win.from_last(xp, out)
    _first_max.KEPT.register(y, entry)
    return y


def _avg_pool(xp: Any, win: Window, x: Any) -> Any:
    xl, sizes, outs, pads = _pool_input(xp, win, x)
    ksize = win.ksize
    assert ksize is not None
    dtype = np.float32 if x.dtype == np.float16 else x.dtype
    total = xp.empty((xl.shape[0], *outs, xl.shape[-1]), dtype)
    with padded(xp, xl, pads) as src:

        def pool(rows: slice) -> None:
            part, dest = src[rows], total[rows]
            first = True
            for tap in win.taps(ksize):
                view = part[win.tap_slices(tap, outs)]
                if first:
                    xp.copyto(dest, view)
                    first = False
                else:
                    xp.add(dest, view, out=dest)

        over_batch(
            xp,
            xl.shape[0],
            xl.nbytes,
            pool,
            block_items(xp, xl.shape[0], xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE),
            blas=False,
        )
    counts = xp.asarray(_valid_counts(win, sizes, outs, pads).astype(dtype))
    return win.from_last(xp, (total / counts).astype(x.dtype, copy=False))


@kernel("MaxPool")
def max_pool(node: Any, xp: Any) -> Compute:
    win = Window(node, 2, "ksize", batch_depth=True)
    outer.refuse_batch(win)
    # Marked by the graph optimizer where this pool's MaxPoolGrad runs in the same step.
    keep = bool(node.attrs.get(KEEP_FIRST_MAX, False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        window = outer.depth_window(win, outer.channels(win, x))
        if window != 1:
            return (outer.depthwise_max(xp, win, x, window),)
        return (_max_pool(xp, win, x, keep),)

    return compute


@kernel("AvgPool")
def avg_pool(node: Any, xp: Any) -> Compute:
    win = Window(node, 2, "ksize", batch_depth=True)
    outer.refuse_batch(win)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if outer.depth_window(win, outer.channels(win, x)) != 1:
            raise errors.UnimplementedError(None, None, outer.DEPTH_AVG_POOL)
        return (_avg_pool(xp, win, x),)

    return compute


def _pool_3d_kernel(op: str, fn: Any) -> None:
    @kernel(op)
    def factory(node: Any, xp: Any) -> Compute:
        win = Window(node, 3, "ksize", batch_depth=True)
        outer.refuse_batch(win)
        outer.refuse_depth(win, outer.DEPTH_3D)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (fn(xp, win, xp.asarray(ins[0])),)

        return compute


_pool_3d_kernel("MaxPool3D", _max_pool)
_pool_3d_kernel("AvgPool3D", _avg_pool)


# ---- max pool gradients --------------------------------------------------------------------------
def _check_pooled(win: Window, y: Any, g: Any, want: tuple[int, ...]) -> None:
    if tuple(y.shape) != want or tuple(g.shape) != tuple(y.shape):
        raise invalid(
            f"{win.op}: orig_output {list(y.shape)} / grad {list(g.shape)} do not match the "
            f"pooled shape {list(want)} ({win.name})"
        )


def _max_pool_grad(
    xp: Any, win: Window, x: Any, y: Any, g: Any, first_only: bool, relu_mask: bool = False
) -> Any:
    """dx: each window's gradient at its first maximum (first_only), or at every maximum.
    relu_mask: the gradient is g * (y > 0) (a ReLU's gradient folded in: see
    fused_max_pool_grad_relu_grad), taken block by block where the windows tile x.

    A window's gradient goes to a tap as its bits multiplied (as integers) by 1 or 0: exact
    (NaN and infinities as they are, zeros elsewhere) and, unlike masked selection, as fast
    over the strided tap views as any plain array operation."""
    xl, sizes, outs, pads = _pool_input(xp, win, x)
    ksize = win.ksize
    assert ksize is not None
    yl, gl = win.to_last(xp, y), win.to_last(xp, g)
    _check_pooled(win, yl, gl, (xl.shape[0], *outs, xl.shape[-1]))
    bits = np.dtype(f"i{g.dtype.itemsize}")
    # Windows that tile the input write each input element once: no zeroed buffer to add to.
    tiles = _tiles(win, sizes, pads)
    if tiles and xl.size and xl.flags.c_contiguous:
        kept = _first_max.KEPT.take(x, y, _first_max_key(win, x)) if first_only else None
        try:
            dx_bits = _tiled_max_pool_grad(
                xp,
                xl,
                yl,
                gl,
                ksize,
                outs,
                first_only,
                relu_mask,
                None if kept is None else kept.lent[1],
            )
        finally:
            if kept is not None:
                _first_max.KEPT.give_back(kept)
        return win.from_last(xp, dx_bits.view(g.dtype))
    if relu_mask:
        gl = gl * (yl > 0)
    g_bits = xp.ascontiguousarray(gl).view(bits)
    dtype = np.float32 if g.dtype == np.float16 else g.dtype
    dx_padded = (
        xp.empty(xl.shape, g.dtype) if tiles else xp.zeros(padded_shape(xl.shape, pads), dtype)
    )
    with padded(xp, xl, pads, lowest(x.dtype)) as src:

        def scatter(rows: slice) -> None:
            part, dest, ys, gb = src[rows], dx_padded[rows], yl[rows], g_bits[rows]
            hit = xp.empty(ys.shape, bool)
            # Taps that already took their window's gradient (first_only).
            taken = xp.empty(ys.shape, bool) if first_only else None
            share = None if tiles else xp.empty(ys.shape, bits)
            taps = list(win.taps(ksize))
            for i, tap in enumerate(taps):
                sl = win.tap_slices(tap, outs)
                if taken is None:
                    chosen = xp.equal(part[sl], ys, out=hit)
                elif i == 0:
                    chosen = xp.equal(part[sl], ys, out=taken)
                else:
                    xp.equal(part[sl], ys, out=hit)
                    chosen = xp.greater(hit, taken, out=hit)  # a maximum, the window's first
                    if i < len(taps) - 1:
                        xp.logical_or(taken, hit, out=taken)
                # The gradient's bits times 1 or 0: exact, NaN and infinities as they are.
                if share is None:
                    xp.multiply(gb, chosen, out=dest[sl].view(bits))
                else:
                    xp.multiply(gb, chosen, out=share)
                    dest[sl] += share.view(g.dtype)

        over_batch(
            xp,
            xl.shape[0],
            xl.nbytes,
            scatter,
            block_items(xp, xl.shape[0], xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE),
            blas=False,
        )
    dx = dx_padded if tiles else dx_padded[interior(pads, sizes)]
    return win.from_last(xp, dx.astype(g.dtype, copy=False))


def _tiled_max_pool_grad(
    xp: Any,
    xl: Any,
    yl: Any,
    gl: Any,
    ksize: list[int],
    outs: list[int],
    first_only: bool,
    relu_mask: bool,
    kept: Any = None,
) -> Any:
    """_max_pool_grad's result (as integers of gl's size) for windows that tile a contiguous
    channels-last x: the same choices and the same bits, in fewer and longer array operations.
    relu_mask: each block's gradient is gl * (yl > 0), made as the block is routed (on every
    core, while the block is in the cache) rather than in a pass of its own beforehand.
    kept: the windows' first maxima [taps, N, *outs, C] that the forward kept
    (_first_max), used instead of being found again.

    Each block of the batch is copied tap-major, (*ksize, rows, *outs, C): every tap is then a
    contiguous slab the shape of the pooled arrays, so the comparisons with the window's
    maximum, the first-maximum choice and the masking of the gradient's bits run over whole
    contiguous arrays, and the block's result goes back into x's layout in one strided copy.
    Over the strided tap views of x and dx (inner runs of C numbers, one tap at a time) the
    same steps took 1.2-1.3x as long (conv net's 2x2 pools, one thread)."""
    batch, c = xl.shape[0], xl.shape[-1]
    split, to_split = _windows_as_axes(xl.shape, ksize, outs)
    x_split = xl.reshape(split)
    bits = np.dtype(f"i{gl.dtype.itemsize}")
    g_bits = None if relu_mask else xp.ascontiguousarray(gl).view(bits)
    dx = xp.empty(xl.shape, bits)
    dx_split = dx.reshape(split)
    taps = math.prod(ksize)

    def route(rows: slice) -> None:
        count = rows.stop - rows.start
        block = (*ksize, count, *outs, c)
        if kept is not None:
            hits = kept[:, rows].reshape(block)
        else:
            hits = _first_maxima(rows, block)
        if g_bits is None:  # the ReLU's gradient of this block: g * (y > 0)
            g_rows = xp.multiply(gl[rows], xp.greater(yl[rows], 0)).view(bits)
        else:
            g_rows = g_bits[rows]
        # The gradient's bits times 1 or 0: exact, NaN and infinities as they are.
        routed = xp.multiply(g_rows, hits, out=xp.empty(block, bits))
        copy_runs(xp, dx_split[rows], routed.transpose(to_split))

    def _first_maxima(rows: slice, block: tuple[int, ...]) -> Any:
        xs = xp.empty(block, xl.dtype)
        copy_runs(xp, xs.transpose(to_split), x_split[rows])
        hits = xp.equal(xs, yl[rows], out=xp.empty(block, bool))
        del xs
        if first_only and taps > 1:
            per_tap = hits.reshape(taps, -1)
            taken = per_tap[0].copy()
            for k in range(1, taps):
                xp.greater(per_tap[k], taken, out=per_tap[k])  # a maximum, the window's first
                if k < taps - 1:
                    xp.logical_or(taken, per_tap[k], out=taken)
        return hits

    over_batch(
        xp,
        batch,
        xl.nbytes,
        route,
        block_items(xp, batch, xl.nbytes, CACHE_BLOCK, BLOCKS_MULTIPLE),
        blas=False,
    )
    return dx


@kernel("_FusedMaxPoolGradReluGrad")
def fused_max_pool_grad_relu_grad(node: Any, xp: Any) -> Compute:
    """MaxPoolGrad -> ReluGrad of the pool's own input, as the graph optimizer fuses them
    (runtime/kernel_fusion.py). For windows that tile the input, ReluGrad's mask is taken
    on the pooled gradient (g * (max > 0)) before it is routed: it lands only where the
    input equals its window's maximum, so the result is the two kernels' bit for bit."""
    win = Window(node, 2, "ksize")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y, g = (xp.asarray(v) for v in ins)
        _, sizes, _, pads = _pool_input(xp, win, x)
        if _tiles(win, sizes, pads) and y.shape == g.shape:
            return (cast(_max_pool_grad(xp, win, x, y, g, True, relu_mask=True)),)
        dx = _max_pool_grad(xp, win, x, y, g, True)
        return (cast(dx * (x > 0)),)

    return compute


def _max_pool_grad_grad(xp: Any, win: Window, x: Any, y: Any, gg: Any, first_only: bool) -> Any:
    """The gradient (shaped as the pool's output) picked at each window's maximum."""
    xl, _, outs, pads = _pool_input(xp, win, x)
    ksize = win.ksize
    assert ksize is not None
    yl, ggl = win.to_last(xp, y), win.to_last(xp, gg)
    if tuple(ggl.shape) != tuple(xl.shape) or tuple(yl.shape) != (xl.shape[0], *outs, xl.shape[-1]):
        raise invalid(
            f"{win.op}: shapes of orig_input {list(x.shape)}, orig_output {list(y.shape)} and "
            f"grad {list(gg.shape)} do not match ({win.name})"
        )
    out = xp.zeros(yl.shape, gg.dtype)
    with padded(xp, xl, pads, lowest(x.dtype)) as xp_, padded(xp, ggl, pads) as gp:
        taken = xp.zeros(yl.shape, dtype=bool) if first_only else None
        for tap in win.taps(ksize):
            sl = win.tap_slices(tap, outs)
            hit = xp_[sl] == yl
            if taken is not None:
                hit &= ~taken
                taken |= hit
            out += xp.where(hit, gp[sl], 0)
    return win.from_last(xp, out)


def _grad_kernels(op: str, n: int, grad_grad: bool, first_only: bool) -> None:
    fn = _max_pool_grad_grad if grad_grad else _max_pool_grad

    @kernel(op)
    def factory(node: Any, xp: Any) -> Compute:
        if grad_grad:
            win = Window(node, n, "ksize")
        else:
            # TF's kernels refuse these when made, before the forward pool runs.
            win = Window(node, n, "ksize", batch_depth=True)
            outer.refuse_batch(win)
            outer.refuse_depth(win, outer.DEPTH_MAX_POOL_GRAD if n == 2 else outer.DEPTH_3D)
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, y, g = (xp.asarray(v) for v in ins)
            return (cast(fn(xp, win, x, y, g, first_only)),)

        return compute


_grad_kernels("MaxPoolGrad", 2, grad_grad=False, first_only=True)
_grad_kernels("MaxPoolGradGrad", 2, grad_grad=True, first_only=True)
_grad_kernels("MaxPool3DGrad", 3, grad_grad=False, first_only=False)
_grad_kernels("MaxPool3DGradGrad", 3, grad_grad=True, first_only=False)


# ---- average pool gradients ----------------------------------------------------------------
def _avg_pool_grad_kernel(op: str, n: int) -> None:
    @kernel(op, host=[0])
    def factory(node: Any, xp: Any) -> Compute:
        # The depth window is not read (TF's 2-D kernel routes the spatial window only;
        # the forward pool refuses depth windows when it runs).
        win = Window(node, n, "ksize", batch_depth=True)
        outer.refuse_batch(win)
        if n == 3:
            outer.refuse_depth(win, outer.DEPTH_3D)
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = shape_arg(ins[0], n + 2, "orig_input_shape", node.name)
            g = xp.asarray(ins[1])
            batch, sizes, c = win.sizes_from(shape)
            ksize = win.ksize
            assert ksize is not None
            outs, pads = win.plan(sizes, ksize)
            gl = win.to_last(xp, g)
            if tuple(gl.shape) != (batch, *outs, c):
                raise invalid(
                    f"{op}: grad shape {list(g.shape)} does not match the pooled shape of "
                    f"{list(shape)} ({node.name})"
                )
            dtype = np.float32 if g.dtype == np.float16 else g.dtype
            share = gl.astype(dtype) / xp.asarray(
                _valid_counts(win, sizes, outs, pads).astype(dtype)
            )
            if _tiles(win, sizes, pads):
                reps = [batch] + [v for o, k in zip(outs, ksize) for v in (o, k)] + [c]
                dx = xp.broadcast_to(share[_per_block(n)], reps)
                return (cast(win.from_last(xp, dx.reshape(batch, *sizes, c))),)
            dx_padded = xp.zeros(padded_shape((batch, *sizes, c), pads), dtype)
            for tap in win.taps(ksize):
                dx_padded[win.tap_slices(tap, outs)] += share
            return (cast(win.from_last(xp, dx_padded[interior(pads, sizes)])),)

        return compute


_avg_pool_grad_kernel("AvgPoolGrad", 2)
_avg_pool_grad_kernel("AvgPool3DGrad", 3)


# ---- argmax --------------------------------------------------------------------------------
def _argmax_window(node: Any) -> Window:
    # MaxPoolWithArgmax has no data_format attr: always NHWC.
    return Window(node, 2, "ksize")


@kernel("MaxPoolWithArgmax")
def max_pool_with_argmax(node: Any, xp: Any) -> Compute:
    win = _argmax_window(node)
    with_batch = bool(node.attrs.get("include_batch_in_index", False))
    index_dtype = np.dtype(node.attrs["Targmax"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        xl, sizes, outs, pads = _pool_input(xp, win, x)
        batch, (h, w), c = xl.shape[0], sizes, xl.shape[-1]
        (oh, ow), ((pt, _), (pl, _)) = outs, pads
        best = None
        best_idx = xp.zeros((batch, oh, ow, c), dtype=index_dtype)
        rows = xp.arange(oh).reshape(1, oh, 1, 1) * win.strides[0] - pt
        cols = xp.arange(ow).reshape(1, 1, ow, 1) * win.strides[1] - pl
        chan = xp.arange(c).reshape(1, 1, 1, c)
        with padded(xp, xl, pads, lowest(x.dtype)) as xp_:
            ksize = win.ksize
            assert ksize is not None
            for i, j in win.taps(ksize):
                src = xp_[win.tap_slices((i, j), outs)]
                idx = ((rows + i) * w + (cols + j)) * c + chan
                if best is None:
                    best = src.copy()
                    best_idx[...] = idx
                    continue
                better = src > best
                best = xp.where(better, src, best)
                best_idx = xp.where(better, idx, best_idx).astype(index_dtype, copy=False)
        if with_batch:
            offsets = xp.arange(batch, dtype=index_dtype).reshape(batch, 1, 1, 1) * (h * w * c)
            best_idx = best_idx + offsets
        return best, best_idx.astype(index_dtype, copy=False)

    return compute


def _flat_argmax(xp: Any, argmax: Any, x_shape: tuple[int, ...], with_batch: bool) -> Any:
    """argmax as indices into x.reshape(-1) (adding each batch's offset when TF left it out)."""
    per_batch = math.prod(x_shape[1:])
    flat = argmax.astype(np.int64).reshape(argmax.shape[0], -1)
    if not with_batch:
        flat = flat + xp.arange(argmax.shape[0], dtype=np.int64).reshape(-1, 1) * per_batch
    flat = flat.reshape(-1)
    total = math.prod(x_shape)
    if flat.size and bool(xp.any((flat < 0) | (flat >= total))):
        bad = host_array(flat)
        raise invalid(
            f"Invalid argmax {int(bad[(bad < 0) | (bad >= total)][0])}: outside the input of "
            f"{total} elements"
        )
    return flat


@kernel("MaxPoolGradWithArgmax")
def max_pool_grad_with_argmax(node: Any, xp: Any) -> Compute:
    with_batch = bool(node.attrs.get("include_batch_in_index", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, g, argmax = (xp.asarray(v) for v in ins)
        check_rank(x, 4, "input", node.name)
        if g.shape != argmax.shape:
            raise invalid(
                f"grad {list(g.shape)} and argmax {list(argmax.shape)} must have the same shape "
                f"({node.name})"
            )
        flat = _flat_argmax(xp, argmax, tuple(x.shape), with_batch)
        sums = xp.bincount(flat, weights=g.reshape(-1).astype(np.float64), minlength=x.size)
        return (cast(sums.reshape(x.shape)),)

    return compute


@kernel("MaxPoolGradGradWithArgmax")
def max_pool_grad_grad_with_argmax(node: Any, xp: Any) -> Compute:
    with_batch = bool(node.attrs.get("include_batch_in_index", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, gg, argmax = (xp.asarray(v) for v in ins)
        check_rank(x, 4, "input", node.name)
        if gg.shape != x.shape:
            raise invalid(
                f"grad {list(gg.shape)} must have the input's shape {list(x.shape)} ({node.name})"
            )
        flat = _flat_argmax(xp, argmax, tuple(x.shape), with_batch)
        return (cast(gg.reshape(-1)[flat].reshape(argmax.shape)),)

    return compute
