"""Convolution kernels over xp: Conv2D/Conv3D (NHWC and NCHW forms, dilations, SAME, VALID
and EXPLICIT padding) with their input and filter backprops, and the depthwise convolution.

A convolution is im2col (the strided patch view of the padded input) and a matrix product
(BLAS on the CPU, cuBLAS on a GPU). On the CPU the batch is split in one part per core, and
each part goes in blocks of about 2 MB of patches: a block is copied into a buffer the part
reuses and multiplied while it is still in the core's cache (single-threaded BLAS per part);
a float32 filter of 1 to 8 output channels and up to 64 taps x input channels is summed in TF
1.15's sgemm order instead (_mkldnn_sgemm.narrow_into), where BLAS's differs in the last bit;
and an input backprop to 1 to 8 channels from at most 64 goes as TF's kernel (its product, then
Col2im's patch-by-patch sums: _backprop_input_as_col2im).
The filter backprop is the transposed product, summed over the blocks; the input backprop is
either the correlation of the padded out_backprop with the flipped filter (stride 1, enough
input channels) or the product with the transposed filter scattered back over the kernel
taps, or, where the stride divides the filter's size, one product per phase of the stride
(kernels/_conv_phases.py). Depthwise convolutions walk the taps, each one broadcast product
over the batch.
Half-precision products run in float32 (numpy has no half BLAS) and are cast back.
On the CPU, stride-1 3x3 and 5x5 float32 convolutions with enough channels (forward, input
and filter gradients) go by Winograd's tiles instead (kernels/_winograd.py: 4 multiply-adds
per output and channel pair instead of 25 for 5x5); a convolution's two gradients fused by
the graph optimizer (_FusedConv2DBackprop) share the out_backprop's Winograd transform.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _conv_phases, _mkldnn_sgemm, _winograd
from tfcluster.kernels._cpu_gemm import SPLIT_FROM, single_thread_blas
from tfcluster.kernels._window import (
    SCRATCH,
    Window,
    block_items,
    check_rank,
    copy_runs,
    interior,
    over_batch,
    padded,
    padded_shape,
    patches,
    shape_arg,
)
from tfcluster.kernels.common import Compute, invalid, typed
from tfcluster.kernels.registry import kernel
from tfcluster.runtime.kernel_fusion import KEEP_INPUT_TILES

# im2col blocks of about this many bytes: copied, then multiplied while still in the cache.
_BLOCK = 2 << 20


def _rows(b: slice, batch: int, per: int) -> slice:
    """The rows of an (N * per, ...) matrix that hold the batch entries b."""
    start, stop, _ = b.indices(batch)
    return slice(start * per, stop * per)


def _compute_dtype(dtype: Any) -> Any:
    return np.float32 if np.dtype(dtype) == np.float16 else dtype


def _patch_products(
    xp: Any,
    view: Any,
    ctype: Any,
    product: Callable[[slice, slice, Any], Any],
    block_bytes: int,
    macs: int = 0,
) -> list[Any]:
    """[product(b, rows, cols)] for blocks b of the batch: cols holds the block's patches
    (im2col of the (N, *outs, *ksizes, C) view, its `rows` of the whole matrix), copied into
    a buffer the block's part of the batch reuses, so they are still in the cache when the
    product reads them. macs: the products' multiply-adds over the batch (over_batch)."""
    batch = view.shape[0]
    n = (view.ndim - 2) // 2
    per = math.prod(view.shape[1 : 1 + n])
    width = math.prod(view.shape[1 + n :])
    nbytes = batch * per * width * np.dtype(ctype).itemsize
    block = block_items(xp, batch, nbytes, block_bytes)

    def part(b: slice) -> Any:
        start, stop, _ = b.indices(batch)
        with SCRATCH.lend(xp, (block * per, width), ctype) as buf:
            cols = buf[: (stop - start) * per]
            copy_runs(xp, cols.reshape((stop - start, *view.shape[1:])), view[b])
            return product(b, _rows(b, batch, per), cols)

    return over_batch(xp, batch, nbytes, part, block, macs=macs)


def _tap_major_products(
    xp: Any,
    view: Any,
    ctype: Any,
    product: Callable[[slice, slice, Any], Any],
    block_bytes: int,
) -> list[Any]:
    """_patch_products for an input of one channel, its patches laid out tap by tap:
    product(b, rows, cols_t) with cols_t [taps, rows] (the transposed im2col matrix). Each tap
    is one copy of a whole (block, *outs) slice: im2col's rows of one channel are runs of
    kw numbers (inner loops of 5 for a 5x5 filter), this layout's are runs of a whole
    output row."""
    batch = view.shape[0]
    n = (view.ndim - 2) // 2
    outs = view.shape[1 : 1 + n]
    per = math.prod(outs)
    ksizes = view.shape[1 + n : 1 + 2 * n]
    taps = list(itertools.product(*(range(k) for k in ksizes)))
    nbytes = batch * per * len(taps) * np.dtype(ctype).itemsize
    block = block_items(xp, batch, nbytes, block_bytes)

    def part(b: slice) -> Any:
        start, stop, _ = b.indices(batch)
        with SCRATCH.lend(xp, (len(taps), block * per), ctype) as buf:
            cols_t = buf[:, : (stop - start) * per]
            if cols_t.flags.c_contiguous:
                # Every tap in one copy: one call (the GIL let go once) instead of one per tap.
                dest = cols_t.reshape(*ksizes, stop - start, *outs)
                src = xp.moveaxis(view[b][..., 0], tuple(range(1 + n, 1 + 2 * n)), tuple(range(n)))
                copy_runs(xp, dest, src)
            else:
                dest = cols_t.reshape(len(taps), stop - start, *outs)
                for t, tap in enumerate(taps):
                    copy_runs(xp, dest[t], view[(b, *([slice(None)] * n), *tap, 0)])
            return product(b, _rows(b, batch, per), cols_t)

    return over_batch(xp, batch, nbytes, part, block)


# OpenBLAS's small-matrix kernels (SkylakeX and later cores) take products of at most this
# many multiply-adds without packing either operand: the one-channel layer's products, in
# pieces this size, run at ~120 GMAC/s where the whole block's (12544 x 25 x 32) runs at
# ~80, and its filter gradient's (25 x 12544 x 32) at ~65 (one thread; on cores without
# those kernels the pieces cost ~5% more).
_SMALL_PRODUCT = 1_000_000


def _rows_product(xp: Any, a: Any, b: Any, out: Any) -> Any:
    """out = a @ b, in pieces of rows of a small-matrix kernel's size (on the CPU)."""
    rows = max(1, _SMALL_PRODUCT // max(1, a.shape[1] * b.shape[1]))
    if xp is not np or a.shape[0] <= rows:
        return xp.matmul(a, b, out=out)
    for i in range(0, a.shape[0], rows):
        np.matmul(a[i : i + rows], b, out=out[i : i + rows])
    return out


def _blas_product(xp: Any, a: Any, b: Any, out: Any) -> Any:
    return xp.matmul(a, b, out=out)


def _filter_product(
    xp: Any, cols: Any, wmat: Any, out: Any, blas: Callable[[Any, Any, Any, Any], Any]
) -> Any:
    """out = cols @ wmat, an im2col block against the filter: on the CPU, a float32 filter of
    a few output channels sums as TF 1.15's sgemm does (one running fused multiply-add per
    output, _mkldnn_sgemm.narrow_into), where BLAS's order differs in the last bit; else
    blas(xp, cols, wmat, out)."""
    if xp is np and _mkldnn_sgemm.narrow_into(cols, wmat, out):
        return out
    return blas(xp, cols, wmat, out)


def _inner_product(xp: Any, a: Any, b: Any) -> Any:
    """a @ b, over pieces of the inner dimension of a small-matrix kernel's size (on the
    CPU), their products added in order."""
    depth = max(1, _SMALL_PRODUCT // max(1, a.shape[0] * b.shape[1]))
    if xp is not np or a.shape[1] <= depth:
        return a @ b
    total = a[:, :depth] @ b[:depth]
    for k in range(depth, a.shape[1], depth):
        total += a[:, k : k + depth] @ b[k : k + depth]
    return total


def _pointwise(xp: Any, a: Any, b: Any) -> Any:
    """a @ b for a 1x1 convolution: on the CPU with BLAS held at one thread below
    SPLIT_FROM multiply-adds (as _cpu_gemm.matmul does, in one call of the same shape):
    BLAS's second thread would spin at its barriers for a product of ~0.1 ms."""
    if xp is np and a.shape[0] * a.shape[1] * b.shape[1] < SPLIT_FROM:
        with single_thread_blas:
            return a @ b
    return a @ b


def _one_channel(xp: Any, ci: int) -> bool:
    """Whether a convolution's patches go tap by tap (_tap_major_products)."""
    return xp is np and ci == 1


def _is_pointwise(win: Window, ksizes: list[int], pads: list[tuple[int, int]]) -> bool:
    return (
        all(k == 1 for k in ksizes)
        and all(s == 1 for s in win.strides)
        and not any(a or b for a, b in pads)
    )


def _winograd_tile(
    xp: Any,
    win: Window,
    dtype: Any,
    ksizes: list[int],
    outs: list[int],
    channels: tuple[int, int],
    batch: int,
) -> int | None:
    """The Winograd tile size for this convolution on the CPU, else None (im2col)."""
    if xp is not np or win.n != 2 or np.dtype(dtype) != np.float32:
        return None
    return _winograd.applicable(ksizes, win.strides, win.dilations, outs, *channels, batch)


def _then(result: Any, epilogue: Callable[[Any], None] | None) -> Any:
    if epilogue is not None:
        epilogue(result)
    return result


def _conv_forward(
    xp: Any,
    win: Window,
    x: Any,
    f: Any,
    epilogue: Callable[[Any], None] | None = None,
    keep_tiles: bool = False,
) -> Any:
    """The convolution of x (node layout) with filter f [*k, ci, co], in the node's layout.
    `epilogue` (a fused bias and activation) is applied in place to each block of the
    channels-last output as soon as it is made (float32/float64 only: it sees the output
    in the compute type). keep_tiles: a Winograd forward leaves its input tiles for the
    fused backprop of the same input (_winograd.KEPT)."""
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
    tile = _winograd_tile(xp, win, x.dtype, ksizes, outs, (ci, co), batch)
    if _is_pointwise(win, ksizes, pads):
        # A 1x1 convolution is a plain product over the channels.
        out = _then(_pointwise(xp, xl.reshape(rows, ci).astype(ctype, copy=False), wmat), epilogue)
    elif tile is not None and f.dtype == np.float32:
        out = _winograd.forward(xl, f, outs, pads, tile, epilogue, x if keep_tiles else None)
    elif _one_channel(xp, ci):
        out = xp.empty((rows, co), ctype)
        with padded(xp, xl, pads) as xp_:
            _tap_major_products(
                xp,
                patches(xp, xp_, outs, ksizes, win),
                ctype,
                lambda b, r, cols_t: _then(
                    _filter_product(xp, cols_t.T, wmat, out[r], _rows_product), epilogue
                ),
                _BLOCK,
            )
    else:
        out = xp.empty((rows, co), ctype)
        with padded(xp, xl, pads) as xp_:
            _patch_products(
                xp,
                patches(xp, xp_, outs, ksizes, win),
                ctype,
                lambda b, r, cols: _then(
                    _filter_product(xp, cols, wmat, out[r], _blas_product), epilogue
                ),
                _BLOCK,
                rows * wmat.size,
            )
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
    if _col2im_in_tf_order(xp, win, ctype, c, co):
        dx = _backprop_input_as_col2im(win, dy_mat, w_t, batch, sizes, outs, ksizes, pads)
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    if _is_pointwise(win, ksizes, pads):
        dx = _pointwise(xp, dy_mat, w_t).reshape(batch, *sizes, c)
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    full = _full_correlation_pads(win, sizes, ksizes, outs, pads)
    tile = _winograd_tile(xp, win, dy.dtype, ksizes, sizes, (co, ci), batch)
    if full is not None and tile is not None and f.dtype == np.float32:
        # The correlation with the flipped filter, by Winograd's tiles.
        flipped = xp.swapaxes(f[::-1, ::-1], -1, -2)
        dx = _winograd.forward(dyl, flipped, sizes, full, tile)
        return win.from_last(xp, dx)
    if full is not None and _correlation_pays(co, ci):
        dx = _backprop_input_as_correlation(xp, win, dyl, f, sizes, ksizes, full, ctype)
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    if _conv_phases.applicable(win, ksizes, ci):
        dx = _conv_phases.backprop_input(
            xp, win, dyl, f, sizes, pads, ctype, _patch_products, _BLOCK
        )
        return win.from_last(xp, dx.astype(dy.dtype, copy=False))
    per = math.prod(outs)
    dx_padded = xp.zeros(padded_shape((batch, *sizes, c), pads), ctype)
    nbytes = dy_mat.shape[0] * w_t.shape[1] * np.dtype(ctype).itemsize
    block = block_items(xp, batch, nbytes, _BLOCK)

    # Each block of the batch: its rows of the product (each tap's share of every input),
    # then each tap's share added to the inputs it read.
    def scatter(b: slice) -> None:
        start, stop, _ = b.indices(batch)
        with SCRATCH.lend(xp, (block * per, w_t.shape[1]), ctype) as buf:
            dcols = buf[: (stop - start) * per]
            xp.matmul(dy_mat[_rows(b, batch, per)], w_t, out=dcols)
            taps = dcols.reshape(stop - start, *outs, *ksizes, c)
            dest = dx_padded[b]
            for tap in win.taps(ksizes):
                sl = win.tap_slices(tap, outs)
                dest[sl] += taps[(slice(None),) * (n + 1) + tap]

    over_batch(xp, batch, nbytes, scatter, block, macs=dy_mat.shape[0] * w_t.size)
    dx = dx_padded[interior(pads, sizes)]
    return win.from_last(xp, dx.astype(dy.dtype, copy=False))


def _col2im_in_tf_order(xp: Any, win: Window, ctype: Any, c: int, co: int) -> bool:
    """Whether an input backprop goes as TF 1.15's CPU kernel rounds it
    (_backprop_input_as_col2im): float32 on the CPU, 2-D without dilation, inputs of 1 to
    NARROW_WIDTH channels (a generator's image layer, whose transposed convolution this is)
    and an out_backprop of at most UNSHARDED_DEPTH channels (the product's terms)."""
    return (
        xp is np
        and np.dtype(ctype) == np.float32
        and win.n == 2
        and all(d == 1 for d in win.dilations)
        and 1 <= c <= _mkldnn_sgemm.NARROW_WIDTH
        and co <= _mkldnn_sgemm.UNSHARDED_DEPTH
    )


def _backprop_input_as_col2im(
    win: Window,
    dy_mat: np.ndarray,
    w_t: np.ndarray,
    batch: int,
    sizes: list[int],
    outs: list[int],
    ksizes: list[int],
    pads: list[tuple[int, int]],
) -> np.ndarray:
    """TF 1.15's Conv2DCustomBackpropInputOp: each patch's share of the inputs, out_backprop
    times the transposed filter in its sgemm's order (_mkldnn_sgemm.running_into), added
    into zeros patch after patch (Col2im, patches in row-major order): each input sums its
    shares from the last kernel tap to the first. Channels-last float32 result."""
    c = w_t.shape[1] // math.prod(ksizes)
    dcols = np.empty((dy_mat.shape[0], w_t.shape[1]), np.float32)
    _mkldnn_sgemm.running_into(dy_mat, w_t, dcols)
    taps = dcols.reshape(batch, *outs, *ksizes, c)
    dx_padded = np.zeros(padded_shape((batch, *sizes, c), pads), np.float32)
    for tap in reversed(list(win.taps(ksizes))):
        dx_padded[win.tap_slices(tap, outs)] += taps[(slice(None),) * 3 + tap]
    return dx_padded[interior(pads, sizes)]


def _full_correlation_pads(
    win: Window,
    sizes: list[int],
    ksizes: list[int],
    outs: list[int],
    pads: list[tuple[int, int]],
) -> list[tuple[int, int]] | None:
    """With stride 1, the input gradient is the correlation of out_backprop, padded by these
    (before, after) amounts, with the flipped filter; None where that does not hold."""
    if any(s != 1 for s in win.strides):
        return None
    out = []
    for size, k, d, o, (before, _) in zip(sizes, ksizes, win.dilations, outs, pads):
        left = (k - 1) * d - before
        right = size + (k - 1) * d - left - o
        if left < 0 or right < 0:
            return None
        out.append((left, right))
    return out


def _correlation_pays(co: int, ci: int) -> bool:
    """Whether im2col of out_backprop beats the scatter over the taps: the correlation
    copies out_backprop's patches (co channels per tap) and multiplies into ci columns; the
    scatter copies ci channels per tap three times over (read, add, write). With few input
    channels (a first layer) the scatter is far cheaper."""
    return ci >= 16 and co < 3 * ci


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
    ci = f.shape[n]
    flipped = f[(slice(None, None, -1),) * n]
    w_flip = (
        xp.ascontiguousarray(xp.swapaxes(flipped, -1, -2)).reshape(-1, ci).astype(ctype, copy=False)
    )
    batch = dyl.shape[0]
    dx = xp.empty((batch * math.prod(sizes), ci), ctype)
    with padded(xp, dyl.astype(ctype, copy=False), pads) as dyp:
        _patch_products(
            xp,
            patches(xp, dyp, sizes, ksizes, win, strides=[1] * n),
            ctype,
            lambda b, r, cols: xp.matmul(cols, w_flip, out=dx[r]),
            _BLOCK,
            dx.shape[0] * w_flip.size,
        )
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
    tile = _winograd_tile(xp, win, x.dtype, ksizes, outs, (ci, co), batch)
    if tile is not None and dy.dtype == np.float32:
        dw = _winograd.filter_grad(xl, dyl, ksizes[0], pads, tile)
        return dw.reshape(fshape).astype(x.dtype)
    ctype = _compute_dtype(x.dtype)
    dy_mat = dyl.reshape(-1, co).astype(ctype, copy=False)
    # Each block of the batch: its patches, then its share of the product; shares summed.
    one_channel = _one_channel(xp, ci)
    with padded(xp, xl, pads) as xp_:
        if one_channel:
            shares = _tap_major_products(
                xp,
                patches(xp, xp_, outs, ksizes, win),
                ctype,
                lambda b, r, cols_t: _inner_product(xp, cols_t, dy_mat[r]),
                _BLOCK,
            )
        else:
            shares = _patch_products(
                xp,
                patches(xp, xp_, outs, ksizes, win),
                ctype,
                lambda b, r, cols: cols.T @ dy_mat[r],
                _BLOCK,
                dy_mat.size * math.prod(ksizes) * ci,
            )
    dw = shares[0]
    for share in shares[1:]:
        dw += share
    return dw.reshape(fshape).astype(x.dtype, copy=False)


def _conv_backprops(
    xp: Any, win: Window, x: Any, fsizes: Any, f: Any, isizes: Any, dy: Any
) -> tuple[Any, Any]:
    """(input gradient, filter gradient) of a 2-D convolution: by Winograd's tiles at once
    where the filter gradient goes that way (_winograd.backward: dY's transform shared),
    else the two kernels' computations one after the other."""
    n = win.n
    fshape = shape_arg(fsizes, n + 2, "filter_sizes", win.name)
    check_rank(x, n + 2, "input", win.name)
    check_rank(dy, n + 2, "out_backprop", win.name)
    xl = win.to_last(xp, x)
    ksizes, ci, co = list(fshape[:n]), fshape[n], fshape[n + 1]
    batch, sizes = xl.shape[0], list(xl.shape[1:-1])
    outs, pads = win.plan(sizes, ksizes)
    tile = _winograd_tile(xp, win, x.dtype, ksizes, outs, (ci, co), batch)
    same = (
        tuple(shape_arg(isizes, n + 2, "input_sizes", win.name)) == tuple(x.shape)
        and tuple(f.shape) == tuple(fshape)
        and tuple(win.to_last(xp, dy).shape) == (batch, *outs, co)
        and ci == xl.shape[-1]
    )
    if tile is None or not same or f.dtype != np.float32 or dy.dtype != np.float32:
        return (
            _conv_backprop_input(xp, win, isizes, f, dy),
            _conv_backprop_filter(xp, win, x, fsizes, dy),
        )
    dx, dw = _winograd.backward(xl, win.to_last(xp, dy), f, pads, tile, kept_by=x)
    return win.from_last(xp, dx), dw.reshape(fshape).astype(x.dtype)


def _keeps_tiles(node: Any) -> bool:
    """Whether the graph optimizer marked this forward convolution's input tiles for the
    fused backprop of the same input (runtime/kernel_fusion.py)."""
    return bool(node.attrs.get(KEEP_INPUT_TILES, False))


def _conv_kernels(prefix: str, n: int, input_op: str, filter_op: str) -> None:
    @kernel(prefix)
    def forward(node: Any, xp: Any) -> Compute:
        win = Window(node, n)
        keep = _keeps_tiles(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, f = xp.asarray(ins[0]), xp.asarray(ins[1])
            return (_conv_forward(xp, win, x, f, keep_tiles=keep),)

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


@kernel("_FusedConv2DBackprop", host=[1, 3])
def fused_conv2d_backprop(node: Any, xp: Any) -> Compute:
    """Conv2DBackpropFilter and Conv2DBackpropInput of one out_backprop, as the graph
    optimizer fuses them (runtime/kernel_fusion.py): inputs (input, filter_sizes,
    out_backprop, input_sizes, filter), outputs (filter gradient, input gradient)."""
    win = Window(node, 2)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, fsizes, dy, isizes, f = ins
        dx, dw = _conv_backprops(
            xp, win, xp.asarray(x), fsizes, xp.asarray(f), isizes, xp.asarray(dy)
        )
        return (cast(dw), cast(dx))

    return compute


@kernel("_FusedConv2D")
def fused_conv2d(node: Any, xp: Any) -> Compute:
    """Conv2D -> BiasAdd [-> Relu] as the graph optimizer fuses them
    (runtime/kernel_fusion.py): the bias and ReLU applied to each block of the output while
    it is in the cache, by the very operations the BiasAdd and Relu kernels do."""
    win = Window(node, 2)
    fused = [v.decode() if isinstance(v, bytes) else str(v) for v in node.attrs["fused_ops"]]
    if fused not in (["BiasAdd"], ["BiasAdd", "Relu"]):
        raise invalid(f"_FusedConv2D: unsupported fused_ops {fused} ({node.name})")
    relu = fused[-1] == "Relu"
    keep = _keeps_tiles(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, f, b = (xp.asarray(v) for v in ins[:3])
        if b.ndim != 1:
            raise invalid(f"Biases must be 1D: {list(b.shape)}")
        if f.ndim == 4 and f.shape[-1] != b.shape[0]:
            raise invalid(
                "Must provide as many biases as the channel dimension of the input tensor: "
                f"{list(b.shape)} vs. {[*x.shape[:-1], f.shape[-1]]}"
            )

        return (_conv_forward(xp, win, x, f, _bias_epilogue(xp, b, relu), keep),)

    return compute


# A fused bias goes along runs of about this many numbers of a block's flattened output.
_BIAS_RUN = 2048


def _bias_epilogue(xp: Any, b: Any, relu: bool) -> Callable[[Any], None]:
    """The in-place bias (and ReLU) for blocks of a channels-last output. A contiguous block
    is flattened and cut in rows of `run` numbers, the bias repeated along each row and the
    ReLU's zero a row of zeros: numpy's inner loop against a broadcast bias is one row of
    channels long (32 numbers for 32 channels), and np.maximum against a scalar 0 takes
    about 3.5x as long per element as against an array of zeros. The same sums and maxima
    (NaN and -0.0 alike)."""
    c = b.shape[0]
    reps = max(1, _BIAS_RUN // max(1, c))
    run = reps * c
    # The bias repeated along a run (as xp.tile, whose Python-level work took ~7 us of a batch
    # of one's ~0.15 ms convolution; this takes ~1.5).
    along = xp.empty(run, b.dtype)
    along.reshape(reps, c)[...] = b
    zeros = xp.zeros(run, along.dtype)

    def apply(rows: Any, bias: Any, zero: Any) -> None:
        xp.add(rows, bias, out=rows)
        if relu:
            xp.maximum(rows, zero, out=rows)

    def epilogue(block: Any) -> None:
        if not (block.flags.c_contiguous and block.ndim and block.shape[-1] == c):
            apply(block, b, zeros[:c])
            return
        flat = block.reshape(-1)
        whole = flat.size - flat.size % run
        if whole:
            apply(flat[:whole].reshape(-1, run), along, zeros)
        if whole < flat.size:
            apply(flat[whole:].reshape(-1, c), b, zeros[:c])

    return epilogue


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
        if m == 1:
            # One output channel per input channel (the usual multiplier): each tap's product
            # into one scratch array, added where the tap reads (the same sums, no copies).
            g1 = g[..., 0]
            product = xp.empty(g1.shape, ctype)
            for tap in win.taps([kh, kw]):
                xp.multiply(g1, fc[tap][:, 0], out=product)
                dx_padded[win.tap_slices(tap, outs)] += product
        else:
            for tap in win.taps([kh, kw]):
                dx_padded[win.tap_slices(tap, outs)] += (g * fc[tap]).sum(axis=-1)
        dx = dx_padded[interior(pads, sizes)]
        return (cast(win.from_last(xp, dx)),)

    return compute


# Products a block of the depthwise filter gradient holds (all taps, a few output rows).
_DEPTHWISE_BLOCK = 1 << 16


def _depthwise_filter_sums(win: Window, xpad: Any, g: Any, taps: list[tuple[int, ...]]) -> Any:
    """Every tap's sum over the output positions of input times gradient, per channel (a
    multiplier of 1), position after position as one sum over all positions adds them: block
    by block of output rows, the taps side by side in one scratch array (numpy's sum over its
    rows then runs taps x channels wide), whose first row carries the sums so far."""
    batch, oh, ow, c = g.shape
    rows = max(1, _DEPTHWISE_BLOCK // (ow * len(taps) * c))
    scratch = np.empty((1 + rows * ow, len(taps), c), g.dtype)
    (sr, sc), (dr, dc) = win.strides, win.dilations
    sums = None
    for b in range(batch):
        for i0 in range(0, oh, rows):
            i1 = min(oh, i0 + rows)
            n = (i1 - i0) * ow
            products = scratch[1 : 1 + n].reshape(i1 - i0, ow, len(taps), c)
            for t, (r, q) in enumerate(taps):
                rows_read = slice(r * dr + sr * i0, r * dr + sr * (i1 - 1) + 1, sr)
                cols_read = slice(q * dc, q * dc + sc * (ow - 1) + 1, sc)
                np.multiply(xpad[b, rows_read, cols_read], g[b, i0:i1], out=products[:, :, t])
            if sums is None:
                sums = np.add.reduce(scratch[1 : 1 + n], axis=0)
            else:
                scratch[0] = sums
                sums = np.add.reduce(scratch[: 1 + n], axis=0)
    return sums


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
        taps = list(win.taps([kh, kw]))
        with padded(xp, xl.astype(ctype, copy=False), pads) as xp_:
            if m == 1 and xp is np and g.shape[0]:
                sums = _depthwise_filter_sums(win, xp_, g.reshape(-1, *outs, c), taps)
                dw.reshape(kh * kw, c)[...] = sums
            else:
                for tap in taps:
                    src = xp_[win.tap_slices(tap, outs)].reshape(-1, c)
                    dw[tap] = (src[:, :, None] * g).sum(axis=0)
        return (cast(dw),)

    return compute
