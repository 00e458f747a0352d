"""Winograd minimal filtering F(m x m, r x r) for stride-1 2-D convolutions on the CPU.

A convolution's output, cut in m x m tiles, is Y = A^T [ sum_c U_c * V_c ] A per tile, where
U = G g G^T is the filter transformed (once per call, in float64), V = B^T d B the input tile
of a = m + r - 1 rows and columns transformed, and * the element-wise product: the sum over
the channels is a^2 independent matrix products (tiles x C_in) @ (C_in x C_out), which do
a^2 / m^2 multiply-adds per output and channel pair where im2col does r^2 (F(4x4, 5x5): 4
instead of 25). The filter gradient goes through the same formula backwards:
dU = sum over tiles of V^T (A dY A^T), dg = G^T dU G; where both gradients are wanted
(a fused Conv2DBackpropFilter + Conv2DBackpropInput), the input gradient's tiles are
B [(A dY A^T) U^T] B^T from the same transformed dY, added where the tiles were read.

The transforms are Toom-Cook's: interpolation points 0, +-1, +-2, +-1/2 and infinity. A^T and
G follow from the points; B^T solves A^T[(G g) * (B^T d)] = correlate(d, g) for every g and d
(a linear system, solved in float64 at import and checked exact). With these points the
float32 error is a few 1e-6 of the output's magnitude (im2col's is about 2e-7; TF's tests
allow 1e-4 for float32 convolutions).

The input is worked in blocks of the batch: a block's tiles are copied into a buffer laid out
(row, column, tile, channel), so each transform is a matrix product whose long side is the
tiles and channels, and the block stays in the core's cache from one product to the next.
Blocks go to every core (over_batch), BLAS single-threaded in each. A forward convolution
that the graph optimizer marks keeps its input tiles V for the fused backprop of the same
input (KEPT), which then does not transform the input again.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from tfcluster.kernels._cpu_gemm import single_thread_blas
from tfcluster.kernels._kept_buffers import KeptBuffers, KeptEntry
from tfcluster.kernels._window import (
    SCRATCH,
    block_items,
    copy_runs,
    interior,
    over_batch,
    padded_shape,
)

# Interpolation points by tile size a = m + r - 1 (infinity is the last point of every set).
_POINTS: dict[int, tuple[float, ...]] = {
    4: (0, 1, -1),
    5: (0, 1, -1, 2),
    6: (0, 1, -1, 2, -2),
    7: (0, 1, -1, 2, -2, 0.5),
    8: (0, 1, -1, 2, -2, 0.5, -0.5),
}
# Output tile sizes tried per filter size (a <= 8: larger tiles lose float32 accuracy fast).
_TILES = {3: (2, 4), 5: (2, 3, 4)}
# A block's transformed tiles (a^2 x tiles x channels) of about this many bytes. Each block
# is some 15-25 numpy calls, and while two threads take blocks at once each call's return
# waits for the GIL (a sleep and a wake-up of the core, tens of microseconds on a VM): with
# 1 MB blocks (4 images of the conv net's second layer) its fused backprop took longer on
# two cores than on one (29-33 vs 26-27 ms, loaded machine); with 2 MB, 23-26 ms on two
# (27-28 on one), the forward 5-10% less on two.
_BLOCK_BYTES = 2 << 20
# Chunks of the batch whose filter gradients are summed separately (then in order).
_CHUNKS = 8


class Transforms:
    """F(m, r)'s matrices: A^T (m x a), G (a x r), B^T (a x a), float64."""

    def __init__(self, m: int, r: int) -> None:
        a = m + r - 1
        points = _POINTS[a]
        at = np.zeros((m, a))
        g = np.zeros((a, r))
        for j, p in enumerate(points):
            scale = math.prod(p - q for q in points if q != p)
            at[:, j] = [p**i for i in range(m)]
            g[j] = [p**k / scale for k in range(r)]
        at[m - 1, a - 1] = 1.0
        g[a - 1, r - 1] = 1.0
        self.m, self.r, self.a = m, r, a
        self.at, self.g = at, g
        self.bt = _solve_bt(at, g)
        self.at32 = at.astype(np.float32)
        self.a32 = np.ascontiguousarray(at.T).astype(np.float32)
        self.bt32 = self.bt.astype(np.float32)

    def filter(self, f: Any) -> Any:
        """U = G f G^T for a filter [r, r, ci, co]: [a * a, ci, co], float32.

        Two products with G over the filter's rows, then its columns, each sum over the r
        taps in order: the float64 sums np.einsum("xi,yj,ijck->xyck") makes, bit for bit
        (tests/unit/test_conv_winograd.py), without its transposed copies of the filter
        with inner runs of r numbers (1.0-1.9 ms for a 5x5x32x64 filter, 0.1 ms this way),
        which ran before any core could start on the tiles."""
        r, a = self.r, self.a
        rows = f.astype(np.float64).reshape(r, -1)
        # Small products: BLAS's own threads would only wake (and then spin) for them.
        with single_thread_blas:
            by_rows = np.matmul(self.g, rows).reshape(a, r, -1)  # [x, j, ci * co]
            u = np.matmul(self.g, by_rows)  # [x, y, ci * co]
        return u.reshape(a * a, *f.shape[2:]).astype(np.float32)

    def filter_grad(self, du: Any) -> Any:
        """dg = G^T dU G for dU [a * a, ci, co]: [r, r, ci, co], float64: two products with
        G^T, over dU's rows then its columns (as `filter`; einsum's took ~0.4 ms, these
        ~0.25, on the step's critical path after the tiles' sums)."""
        r, a = self.r, self.a
        rows = du.reshape(a, -1).astype(np.float64, copy=False)
        with single_thread_blas:
            by_rows = np.matmul(self.g.T, rows).reshape(r, a, -1)  # [i, y, ci * co]
            dg = np.matmul(self.g.T, by_rows)  # [i, j, ci * co]
        return dg.reshape(r, r, *du.shape[1:])


def _solve_bt(at: np.ndarray, g: np.ndarray) -> np.ndarray:
    """B^T with sum_j A^T[i, j] G[j, k] B^T[j, l] = [l == i + k] (correlation), its entries
    snapped to the small fractions they are; checked exact."""
    m, a = at.shape
    r = g.shape[1]
    rows, rhs = [], []
    for i in range(m):
        for k in range(r):
            for col in range(a):
                row = np.zeros((a, a))
                row[:, col] = at[i] * g[:, k]
                rows.append(row.ravel())
                rhs.append(1.0 if col == i + k else 0.0)
    system, want = np.array(rows), np.array(rhs)
    solution = np.linalg.lstsq(system, want, rcond=None)[0]
    bt = np.array([float(Fraction(v).limit_denominator(64)) for v in solution]).reshape(a, a)
    if np.abs(system @ bt.ravel() - want).max() > 1e-12:
        raise AssertionError(f"no exact Winograd input transform for F({m}, {r})")
    return bt


_CACHE: dict[tuple[int, int], Transforms] = {}
_CACHE_LOCK = threading.Lock()


def transforms(m: int, r: int) -> Transforms:
    with _CACHE_LOCK:
        t = _CACHE.get((m, r))
        if t is None:
            t = _CACHE[(m, r)] = Transforms(m, r)
        return t


def pick_tile(r: int, outs: list[int]) -> int | None:
    """The output tile size m that needs the fewest element products for these output sizes
    (None: no Winograd form for an r x r filter)."""
    best = None
    for m in _TILES.get(r, ()):
        a = m + r - 1
        cost = math.ceil(outs[0] / m) * math.ceil(outs[1] / m) * a * a
        if best is None or cost < best[0]:
            best = (cost, m)
    return None if best is None else best[1]


def applicable(
    ksizes: list[int],
    strides: list[int],
    dilations: list[int],
    outs: list[int],
    ci: int,
    co: int,
    batch: int,
) -> int | None:
    """The tile size for a convolution worth doing this way, else None: stride 1, no
    dilation, a square 3x3 or 5x5 filter, enough channels for the products to be real matrix
    products, and outputs at least a tile wide."""
    r = ksizes[0]
    if len(ksizes) != 2 or ksizes[1] != r or r not in _TILES:
        return None
    if any(s != 1 for s in strides) or any(d != 1 for d in dilations):
        return None
    if ci < 8 or co < 8 or min(outs) < 2 or batch * outs[0] * outs[1] < 128:
        return None
    return pick_tile(r, outs)


class _Once:
    """A value made by the first thread that wants it (the others wait for it): the
    filter's transform (0.07-0.1 ms for the conv net's second layer) is made while the
    other thread transforms its first block's tiles, not on one core before any block
    starts."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make: Callable[[], Any] | None = make
        self._value: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        if self._make is not None:
            with self._lock:
                if self._make is not None:
                    self._value = self._make()
                    self._make = None
        return self._value


class _Plan:
    """Geometry of one call: tiles per image, the padded input and the block size."""

    def __init__(
        self, t: Transforms, shape: tuple[int, ...], outs: list[int], pads: list[Any], width: int
    ) -> None:
        batch, h, w, _ = shape
        m, r = t.m, t.r
        self.th, self.tw = math.ceil(outs[0] / m), math.ceil(outs[1] / m)
        self.tiles = self.th * self.tw  # per image
        # Padding after each dim grows so that every tile's rows and columns exist (zeros).
        self.pads = [
            (pads[0][0], self.th * m + r - 1 - h - pads[0][0]),
            (pads[1][0], self.tw * m + r - 1 - w - pads[1][0]),
        ]
        self.outs = outs
        per_image = t.a * t.a * self.tiles * width * 4
        self.nbytes = batch * per_image
        self.block = block_items(np, batch, self.nbytes, _BLOCK_BYTES)


# Columns of a wide operand multiplied per call by a transform matrix on its left: OpenBLAS
# takes twice as long per column once that operand's panel passes ~512 KB (an A^T (4 x 8)
# times 8 x 32768 products took 61 us whole, 30 us in halves).
_PANEL_BYTES = 256 << 10


def _left_product(small: Any, wide: Any, out: Any) -> None:
    """out = small @ wide for a small transform matrix and a wide 2-D operand, in column
    panels of about _PANEL_BYTES."""
    cols = max(1, _PANEL_BYTES // (wide.shape[0] * wide.itemsize))
    n = wide.shape[1]
    if n <= cols:
        np.matmul(small, wide, out=out)
        return
    for j in range(0, n, cols):
        np.matmul(small, wide[:, j : j + cols], out=out[:, j : j + cols])


def _input_tiles(
    t: Transforms, plan: _Plan, block: Any, buf: tuple[Any, Any], out: Any = None
) -> Any:
    """V = B^T d B for every tile of `block` [nb, H, W, C] (some images of the input):
    [a * a, nb * tiles, C], in `out` (a flat buffer) or else buf[1] (buf[0] is used on the
    way)."""
    # Each block is padded by itself, on the thread that takes it and into a buffer still
    # in the cache when the transform reads it: a padded copy of the whole input (3.2 MB for
    # the conv net's second layer) ran on one core before any block could start, in the
    # forward and again in the backward.
    with _padded_block(block, plan.pads) as src:
        return _padded_input_tiles(t, plan, src, buf, out)


@contextlib.contextmanager
def _padded_block(block: Any, pads: list[tuple[int, int]]) -> Iterator[Any]:
    """`block` (a few images, channels last) with `pads` of zeros around its spatial dims, in
    a lent buffer: _window.padded's copy without its split over the batch (~5 us a block
    instead of ~15: the conv net's second layer pads 64 blocks a step)."""
    if not any(a or b for a, b in pads):
        yield block
        return
    region = tuple(tuple(p) for p in pads)
    with SCRATCH.lend(np, padded_shape(block.shape, pads), block.dtype, 0, region) as buf:
        copy_runs(np, buf[interior(pads, list(block.shape[1:-1]))], block)
        yield buf


def _padded_input_tiles(
    t: Transforms, plan: _Plan, src: Any, buf: tuple[Any, Any], out: Any
) -> Any:
    a, m = t.a, t.m
    src = np.ascontiguousarray(src)
    nb, wp, c = src.shape[0], src.shape[2], src.shape[3]
    sn, sh, _, sc = src.strides
    # B^T over each tile row's a input rows, whole rows at a time (before the columns are
    # cut in overlapping tiles): [nb, th, a, W' * C].
    rows = np.lib.stride_tricks.as_strided(src, (nb, plan.th, a, wp * c), (sn, m * sh, sh, sc))
    s1 = buf[1][: nb * plan.th * a * wp * c].reshape(nb, plan.th, a, wp * c)
    np.matmul(t.bt32, rows, out=s1)
    # The tiles' columns, laid out (row, column, tile, channel), then B^T over the columns.
    q = s1.reshape(nb, plan.th, a, wp, c)
    qn, qt, qa, qw, qc = q.strides
    view = np.lib.stride_tricks.as_strided(
        q, (a, a, nb, plan.th, plan.tw, c), (qa, qw, qn, qt, m * qw, qc)
    )
    size = a * a * nb * plan.tiles * c
    x = buf[0][:size].reshape(a, a, nb, plan.th, plan.tw, c)
    copy_runs(np, x, view)
    v = (buf[1] if out is None else out)[:size].reshape(a, a, -1)
    np.matmul(t.bt32, x.reshape(a, a, -1), out=v)
    return v.reshape(a * a, nb * plan.tiles, c)


class _Kept(KeptEntry):
    """One forward call's input tiles V, kept for the backward of the same input."""

    def __init__(self, x: Any, key: tuple[Any, ...], lent: tuple[Any, Any]) -> None:
        super().__init__(x, key, lent)  # lent: (SCRATCH key, [blocks, a * a * block * tiles * C])
        self.ref: Any = None
        self.blocks: dict[int, int] = {}  # first image of a stored block -> its end


class KeptTiles(KeptBuffers[_Kept]):
    """Input tiles that a forward convolution leaves for the fused backprop of the same
    input in the same step (kernel_fusion marks such forwards): the backward then skips
    transforming the input again (2.3 of its ~15 ms for the conv net's second layer, one
    core; reading them back costs next to nothing). An entry is found by the input array
    itself (held weakly: it goes, and its buffer back to SCRATCH, with the array), for the
    same geometry; the backward takes it out. A step's own values are never written in
    place, so the same array holds the same numbers; a read-only one may be a variable's,
    which sparse updates write in place: its tiles count only while no variable has been
    written in place since (in_place.write_epoch)."""

    def start(self, x: Any, key: tuple[Any, ...], shape: tuple[int, ...]) -> _Kept:
        """An entry for x to fill (its buffer lent from SCRATCH), registered once filled."""
        entry = _Kept(x, key, SCRATCH.take(np, shape, np.float32))
        entry.ref = self.watch(x, entry)
        return entry

    def register(self, x: Any, entry: _Kept) -> None:
        self.put(x, entry)

    def take(self, x: Any, key: tuple[Any, ...]) -> _Kept | None:
        """x's entry for this geometry, taken out (the caller gives its buffer back)."""
        entry = self.pop(x)
        if entry is None:
            return None
        if entry.ref() is x and entry.key == key and entry.fresh(x):
            return entry
        self.give_back(entry)
        return None


KEPT = KeptTiles()


def _kept_key(plan: _Plan, shape: tuple[int, ...], t: Transforms) -> tuple[Any, ...]:
    return (tuple(shape), t.m, t.r, tuple(tuple(p) for p in plan.pads), plan.block)


def forward(
    xl: Any,
    f: Any,
    outs: list[int],
    pads: list[Any],
    m: int,
    epilogue: Callable[[Any], None] | None = None,
    keep: Any = None,
) -> Any:
    """The stride-1 correlation of xl [N, H, W, C] (float32, channels last) with f
    [r, r, C, K] and these (before, after) pads: [N, *outs, K]; `epilogue` (a fused bias
    and activation, elementwise along the last axis) applied in place to each block's
    output tiles before they are placed. With `keep` (the input as the kernel got it), the
    input tiles stay in KEPT for backward()."""
    r = f.shape[0]
    t = transforms(m, r)
    batch, c, k = xl.shape[0], xl.shape[-1], f.shape[-1]
    plan = _Plan(t, xl.shape, outs, pads, max(c, k))
    u = _Once(lambda: t.filter(f))
    out = np.empty((batch, *outs, k), np.float32)
    a, tiles = t.a, plan.tiles
    crop = plan.th * m != outs[0] or plan.tw * m != outs[1]
    big = a * a * plan.block * tiles * max(c, k)
    kept = None
    if keep is not None:
        blocks = -(-batch // plan.block)
        shape = (blocks, a * a * plan.block * tiles * c)
        kept = KEPT.start(keep, _kept_key(plan, xl.shape, t), shape)

    def part(b: slice) -> None:
        start, stop, _ = b.indices(batch)
        nb = stop - start
        # A block the backward's blocks will be (they start at multiples of plan.block).
        whole = start % plan.block == 0 and (nb == plan.block or stop == batch)
        with (
            SCRATCH.lend(np, (big,), np.float32) as b0,
            SCRATCH.lend(np, (big,), np.float32) as b1,
        ):
            if kept is not None and whole:
                v = _input_tiles(t, plan, xl[b], (b0, b1), kept.lent[1][start // plan.block])
                kept.blocks[start] = stop
            else:
                v = _input_tiles(t, plan, xl[b], (b0, b1))
            prods = b0[: a * a * nb * tiles * k].reshape(a * a, nb * tiles, k)
            np.matmul(v, u.get(), out=prods)
            # Y = A^T M A: over the tile's rows, then its columns.
            o1 = b1[: m * a * nb * tiles * k].reshape(m, -1)
            _left_product(t.at32, prods.reshape(a, -1), o1)
            o2 = b0[: m * m * nb * tiles * k].reshape(m, m, -1)
            np.matmul(t.at32, o1.reshape(m, a, -1), out=o2)
            y = o2.reshape(m, m, nb, plan.th, plan.tw, k)
            if epilogue is not None:
                # On the products' own buffer, contiguous and in the cache, before the
                # tiles are placed (the tiles' rows beyond the output are dropped then).
                epilogue(y)
            if crop:
                full = b1[: nb * plan.th * m * plan.tw * m * k]
                full = full.reshape(nb, plan.th, m, plan.tw, m, k)
                copy_runs(np, full.transpose(2, 4, 0, 1, 3, 5), y)
                full = full.reshape(nb, plan.th * m, plan.tw * m, k)
                copy_runs(np, out[b], full[:, : outs[0], : outs[1]])
            else:
                dest = out[b].reshape(nb, plan.th, m, plan.tw, m, k)
                copy_runs(np, dest.transpose(2, 4, 0, 1, 3, 5), y)

    try:
        over_batch(np, batch, plan.nbytes, part, plan.block)
    except BaseException:
        if kept is not None:
            KEPT.discard(kept)
        raise
    if kept is not None:
        KEPT.register(keep, kept)
    return out


def filter_grad(xl: Any, dy: Any, r: int, pads: list[Any], m: int) -> Any:
    """The filter gradient [r, r, C, K] (float64) of the stride-1 correlation of xl
    [N, H, W, C] with these pads, given dy [N, oh, ow, K]."""
    t = transforms(m, r)
    batch, c, k = xl.shape[0], xl.shape[-1], dy.shape[-1]
    outs = list(dy.shape[1:3])
    plan = _Plan(t, xl.shape, outs, pads, max(c, k))
    a, tiles = t.a, plan.tiles
    big = a * a * plan.block * tiles * max(c, k)

    def block_sum(start: int, stop: int, bufs: tuple[Any, Any, Any], out: Any) -> None:
        b0, b1, b2 = bufs
        v = _input_tiles(t, plan, xl[start:stop], (b0, b1))
        e = _output_grad_tiles(t, plan, dy[start:stop], k, (b0, b2))
        np.matmul(v.transpose(0, 2, 1), e, out=out)

    return _summed_over_batch(t, plan, batch, (c, k), big, block_sum)


def _output_grad_tiles(t: Transforms, plan: _Plan, block: Any, k: int, buf: tuple[Any, Any]) -> Any:
    """E = A dY A^T for every m x m tile of a block [nb, oh, ow, K] of the output gradient:
    [a * a, nb * tiles, K], in buf[0] (buf[1] is used on the way). The block is grown to
    whole tiles (zeros) by itself, on the thread that takes it (as _input_tiles pads)."""
    grow = [(0, plan.th * t.m - plan.outs[0]), (0, plan.tw * t.m - plan.outs[1])]
    with _padded_block(block, grow) as g:
        return _grown_output_grad_tiles(t, plan, g, k, buf)


def _grown_output_grad_tiles(
    t: Transforms, plan: _Plan, g: Any, k: int, buf: tuple[Any, Any]
) -> Any:
    a, m = t.a, t.m
    nb = g.shape[0]
    size = nb * plan.tiles * k
    sn, sh, sw, sk = g.strides
    view = np.lib.stride_tricks.as_strided(
        g, (m, m, nb, plan.th, plan.tw, k), (sh, sw, sn, m * sh, m * sw, sk)
    )
    gt = buf[0][: m * m * size].reshape(m, m, nb, plan.th, plan.tw, k)
    copy_runs(np, gt, view)
    e1 = buf[1][: a * m * size].reshape(a, -1)
    np.matmul(t.a32, gt.reshape(m, -1), out=e1)
    e2 = buf[0][: a * a * size].reshape(a, a, -1)
    np.matmul(t.a32, e1.reshape(a, m, -1), out=e2)
    return e2.reshape(a * a, nb * plan.tiles, k)


def _summed_over_batch(
    t: Transforms,
    plan: _Plan,
    batch: int,
    channels: tuple[int, int],
    big: int,
    block_sum: Callable[[int, int, tuple[Any, Any, Any], Any], None],
) -> Any:
    """The filter gradient [r, r, C, K] (float64) from block_sum(start, stop, buffers, out),
    which writes a block's V^T E [a * a, C, K] into out. The batch goes in a fixed number of
    chunks (each some blocks, on every core), whose float32 sums are added in order in
    float64: the same result whichever thread takes which chunk. Every sum is written into
    buffers lent for the call: a new array per block (512 KB for the conv net's second
    layer) cost its pages' first touch again on the threads' malloc arenas, ~1300 faults
    and ~4 ms of system time per call."""
    a, (c, k) = t.a, channels
    chunk = max(plan.block, math.ceil(math.ceil(batch / _CHUNKS) / plan.block) * plan.block)
    count = math.ceil(batch / chunk)
    if count == 0:
        return np.zeros((t.r, t.r, c, k))
    shape = (a * a, c, k)
    with SCRATCH.lend(np, (count, *shape), np.float32) as sums:

        def chunks(which: slice) -> None:
            with (
                SCRATCH.lend(np, (big,), np.float32) as b0,
                SCRATCH.lend(np, (big,), np.float32) as b1,
                SCRATCH.lend(np, (big,), np.float32) as b2,
                SCRATCH.lend(np, shape, np.float32) as one,
            ):
                for i in range(*which.indices(count)):
                    start, stop = i * chunk, min(i * chunk + chunk, batch)
                    for first in range(start, stop, plan.block):
                        end = min(first + plan.block, stop)
                        if first == start:
                            block_sum(first, end, (b0, b1, b2), sums[i])
                        else:
                            block_sum(first, end, (b0, b1, b2), one)
                            sums[i] += one

        over_batch(np, count, plan.nbytes, chunks, 1)
        total64 = _chunk_sums_in_order(sums)
    return t.filter_grad(total64)


# Column ranges the chunks' sums are added over, each on whichever thread takes it.
_SUM_PARTS = 4


def _chunk_sums_in_order(sums: Any) -> Any:
    """sums [count, ...] (float32) added in order, in float64: every element the same
    additions in the same order as one pass over the whole, but in column ranges on every
    core (the conv net's second layer: 8 sums of 512 KB, ~0.25 ms on one core while the
    other had nothing to do, before the step's input gradient could go on)."""
    count = sums.shape[0]
    flat = sums.reshape(count, -1)
    total = np.empty(flat.shape[1], np.float64)
    width = -(-flat.shape[1] // _SUM_PARTS)

    def add(parts: slice) -> None:
        cols = slice(parts.start * width, min(parts.stop * width, flat.shape[1]))
        part = total[cols]
        part[...] = flat[0, cols]
        for i in range(1, count):
            np.add(part, flat[i, cols], out=part)

    over_batch(np, _SUM_PARTS, flat.nbytes + total.nbytes, add, 1, blas=False)
    return total.reshape(sums.shape[1:])


def backward(
    xl: Any, dy: Any, f: Any, pads: list[Any], m: int, kept_by: Any = None
) -> tuple[Any, Any]:
    """Both gradients of the stride-1 correlation of xl [N, H, W, C] (float32) with f
    [r, r, C, K] and these pads, given dy [N, oh, ow, K]: (dx [N, H, W, C] float32, the
    filter gradient [r, r, C, K] float64), sharing dY's transform E = A dY A^T.

    The filter gradient is filter_grad's, the same sums in the same order. The input
    gradient is the forward pass's transpose: dV = E U^T (U = G f G^T, the forward's filter
    transform), each tile's D = B dV B^T added where the forward read the tile (tiles
    overlap by r - 1 rows and columns), the padding dropped. Computed as the correlation of
    dy with the flipped filter (Conv2DBackpropInput alone), it would transform dy a second
    time, with input tiles of K channels (a^2 / m^2 as many numbers as dy): a third of its
    time for the conv net's second layer. The input tiles that a forward call with
    keep=kept_by left in KEPT are used instead of being transformed again."""
    r = f.shape[0]
    t = transforms(m, r)
    batch, c, k = xl.shape[0], xl.shape[-1], dy.shape[-1]
    outs = list(dy.shape[1:3])
    plan = _Plan(t, xl.shape, outs, pads, max(c, k))
    a, tiles, th, tw = t.a, plan.tiles, plan.th, plan.tw
    u_t = _Once(lambda: np.ascontiguousarray(t.filter(f).transpose(0, 2, 1)))  # [a * a, K, C]
    b32 = np.ascontiguousarray(t.bt32.T)
    big = a * a * plan.block * tiles * max(c, k)
    # Tiles span `over` blocks of m rows (columns) of the padded input (_spread).
    over = math.ceil(a / m)
    th2, tw2 = th + over - 1, tw + over - 1
    dx = np.empty(xl.shape, np.float32)
    (top, _), (left, _) = plan.pads
    h, w = xl.shape[1], xl.shape[2]
    block = plan.block
    # One lent buffer per block, cut in those of _spread (rows, then columns), of its
    # products, and of the padded block.
    sizes = (
        m * a * block * th2 * tw * c,
        m * m * block * th2 * tw2 * c,
        a * max(a * block * tiles * c, m * block * th2 * tw * c),
        block * th2 * m * tw2 * m * c,
    )
    starts = list(itertools.accumulate(sizes, initial=0))

    kept = KEPT.take(kept_by, _kept_key(plan, xl.shape, t)) if kept_by is not None else None

    def block_sum(start: int, stop: int, bufs: tuple[Any, Any, Any], out: Any) -> None:
        b0, b1, b2 = bufs
        nb = stop - start
        if kept is not None and kept.blocks.get(start) == stop:
            v = kept.lent[1][start // block][: a * a * nb * tiles * c].reshape(a * a, -1, c)
        else:
            v = _input_tiles(t, plan, xl[start:stop], (b0, b1))
        e = _output_grad_tiles(t, plan, dy[start:stop], k, (b0, b2))
        np.matmul(v.transpose(0, 2, 1), e, out=out)
        dv = b1[: a * a * nb * tiles * c].reshape(a * a, nb * tiles, c)
        np.matmul(e, u_t.get(), out=dv)
        with SCRATCH.lend(np, (starts[-1],), np.float32) as whole:
            lent = [whole[i:j] for i, j in itertools.pairwise(starts)]
            # D = B dV B^T, each tile's D added where the forward read the tile: over the
            # tiles' rows (th tile rows -> th2 blocks of m rows), then their columns.
            rows = lent[0][: m * a * nb * th2 * tw * c].reshape(1, m, a * nb, th2, tw * c)
            _spread(b32, m, dv.reshape(1, a, a * nb, th, tw * c), rows, lent[2])
            grid = lent[1][: m * m * nb * th2 * tw2 * c].reshape(m, m, nb * th2, tw2, c)
            _spread(b32, m, rows.reshape(m, a, nb * th2, tw, c), grid, lent[2])
            # The blocks (row in block, column in block, image, block row, block column,
            # channel) into the padded input's layout, then its interior into dx.
            full = lent[3][: nb * th2 * m * tw2 * m * c].reshape(nb, th2, m, tw2, m, c)
            copy_runs(np, full.transpose(2, 4, 0, 1, 3, 5), grid.reshape(m, m, nb, th2, tw2, c))
            full = full.reshape(nb, th2 * m, tw2 * m, c)
            copy_runs(np, dx[start:stop], full[:, top : top + h, left : left + w])

    try:
        dw = _summed_over_batch(t, plan, batch, (c, k), big, block_sum)
    finally:
        if kept is not None:
            KEPT.give_back(kept)
    return dx, dw


def _spread(b: Any, m: int, src: Any, dest: Any, temp: Any) -> None:
    """One axis of D = B dV B^T for a row (column) of tiles, each tile's rows added where
    the forward read them: src [n, a, lead, count, tail] holds `count` tiles' a rows (along
    one tile axis) for n batches; dest [n, m, lead, count + over - 1, tail] gets B's rows
    p * m on (piece p) of tile q on block q + p. One product B @ src for all tiles, its
    pieces added in runs of a whole tile row (`count` x `tail` numbers) rather than tile by
    tile in runs of channels (that scatter took 2.3 ms of the conv net's second layer's
    17 ms, this 1.1)."""
    n, a, lead, count, tail = src.shape
    prod = temp[: n * a * lead * count * tail].reshape(n, a, -1)
    np.matmul(b, src.reshape(n, a, -1), out=prod)
    parts = [
        prod[:, p : p + m].reshape(n, min(m, a - p), lead, count, tail) for p in range(0, a, m)
    ]
    if len(parts) == 2 and a == 2 * m:
        # Block q holds tile q's first piece and tile q - 1's second: one pass.
        first, second = parts
        dest[:, :, :, 0] = first[:, :, :, 0]
        np.add(first[:, :, :, 1:], second[:, :, :, :-1], out=dest[:, :, :, 1:count])
        dest[:, :, :, count] = second[:, :, :, count - 1]
        return
    dest[:, :, :, :count] = parts[0]  # the first piece covers every row of its blocks
    dest[:, :, :, count:] = 0
    for p, part in enumerate(parts[1:], 1):
        dest[:, : part.shape[1], :, p : p + count] += part
