"""Window geometry that the convolution and pooling kernels share, over xp.

A node's window (strides, dilations, padding, kernel size, data format) is read once from its
attrs; per input it gives the output sizes and the padding before and after each spatial dim
(SAME, VALID or EXPLICIT, TF's GetWindowedOutputSize). Bodies work in channels-last layout
(N, *spatial, C): channels-first inputs are viewed that way and results moved back.
Patches are strided views of a padded copy, so im2col is one copy into a reused buffer.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels._cpu_gemm import single_thread_blas
from tfcluster.kernels.common import host_ints, invalid
from tfcluster.runtime import float_errors, thread_budget

_DEFAULT_FORMATS = {2: "NHWC", 3: "NDHWC"}
_FORMATS = {2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


class Window:
    """One conv/pool node's window; `n` spatial dims."""

    def __init__(
        self, node: Any, n: int, ksize_attr: str | None = None, batch_depth: bool = False
    ) -> None:
        """batch_depth: the pool kernels' windows, whose batch and depth entries are kept in
        `outer` ((batch, depth) per attr) for their own checks instead of refused here."""
        attrs = node.attrs
        self.outer: dict[str, tuple[int, int]] = {}
        self.name = node.name
        self.op = node.op
        self.n = n
        fmt = str(attrs.get("data_format", _DEFAULT_FORMATS[n]))
        if fmt not in _FORMATS[n]:
            raise invalid(f"{node.op}: invalid data_format {fmt!r} ({node.name})")
        self.channels_first = fmt.startswith("NC")
        spatial = list(range(2, n + 2)) if self.channels_first else list(range(1, n + 1))
        c = 1 if self.channels_first else n + 1
        self.padding = attrs["padding"]
        if self.padding not in ("SAME", "VALID", "EXPLICIT"):
            raise invalid(f"Unknown padding {self.padding!r} ({node.name})")

        def spatial_of(key: str, default: int) -> list[int]:
            values = [int(v) for v in attrs.get(key, [default] * (n + 2))]
            if batch_depth and len(values) == n + 2:
                self.outer[key] = (values[0], values[c])
            elif len(values) != n + 2 or values[0] != 1 or values[c] != 1:
                raise invalid(
                    f"Current implementation does not yet support {key} in the batch and depth "
                    f"dimensions ({node.name})"
                )
            if any(v < 1 for v in values):
                raise invalid(f"{key} must be positive, got {values} ({node.name})")
            return [values[a] for a in spatial]

        self.strides = spatial_of("strides", 1)
        self.dilations = spatial_of("dilations", 1) if "dilations" in attrs else [1] * n
        self.ksize = spatial_of(ksize_attr, 1) if ksize_attr else None
        self.explicit = [(0, 0)] * n
        if self.padding == "EXPLICIT":
            flat = [int(v) for v in attrs.get("explicit_paddings", [])]
            if len(flat) != 2 * (n + 2):
                raise invalid(f"explicit_paddings must have {2 * (n + 2)} values ({node.name})")
            self.explicit = [(flat[2 * a], flat[2 * a + 1]) for a in spatial]

    # ---- layout --------------------------------------------------------------------------------
    def to_last(self, xp: Any, x: Any) -> Any:
        """x viewed channels-last (no copy)."""
        return xp.moveaxis(x, 1, -1) if self.channels_first else x

    def from_last(self, xp: Any, y: Any) -> Any:
        """A channels-last result in the node's layout."""
        return xp.ascontiguousarray(xp.moveaxis(y, -1, 1)) if self.channels_first else y

    def sizes_from(self, shape: tuple[int, ...] | list[int]) -> tuple[int, list[int], int]:
        """(batch, spatial sizes, channels) of a shape given in the node's layout."""
        shape = list(shape)
        if self.channels_first:
            return shape[0], shape[2:], shape[1]
        return shape[0], shape[1:-1], shape[-1]

    def shape_in_layout(self, n: int, spatial: list[int], c: int) -> tuple[int, ...]:
        return (n, c, *spatial) if self.channels_first else (n, *spatial, c)

    # ---- geometry --------------------------------------------------------------------------------
    def plan(self, sizes: list[int], ksizes: list[int]) -> tuple[list[int], list[tuple[int, int]]]:
        """(output sizes, (before, after) padding per spatial dim)."""
        outs, pads = [], []
        for size, k, s, d, ex in zip(sizes, ksizes, self.strides, self.dilations, self.explicit):
            eff = (k - 1) * d + 1
            if self.padding == "EXPLICIT":
                total = size + ex[0] + ex[1]
                out = _truncating_div(total - eff + s, s)
                pad = ex
            else:
                out, before, after = windowed_output_size(size, k, s, d, self.padding)
                if self.padding == "VALID":
                    out = _truncating_div(size - eff + s, s)
                pad = (before, after)
            # A window one step larger than the input gives an empty output (as TF).
            if out < 0:
                raise invalid(
                    f"Computed output size would be negative: {out} [input_size: {size}, "
                    f"effective_filter_size: {eff}, stride: {s}]"
                )
            outs.append(out)
            pads.append(pad)
        return outs, pads

    def taps(self, ksizes: list[int]) -> Iterator[tuple[int, ...]]:
        return itertools.product(*(range(k) for k in ksizes))

    def tap_slices(self, tap: tuple[int, ...], outs: list[int]) -> tuple[slice, ...]:
        """The slices of a padded channels-last array that kernel tap `tap` reads."""
        return (
            slice(None),
            *(
                slice(i * d, i * d + s * (o - 1) + 1, s)
                for i, d, s, o in zip(tap, self.dilations, self.strides, outs)
            ),
            slice(None),
        )


@contextlib.contextmanager
def padded(xp: Any, x: Any, pads: list[tuple[int, int]], fill: Any = 0) -> Iterator[Any]:
    """x (channels-last) with `pads` around its spatial dims: x itself when there are none,
    else a lent buffer whose border holds `fill`."""
    if not any(a or b for a, b in pads):
        yield x
        return
    region = tuple(tuple(p) for p in pads)
    with SCRATCH.lend(xp, padded_shape(x.shape, pads), x.dtype, fill, region) as buf:
        inner = buf[interior(pads, list(x.shape[1:-1]))]

        def copy(rows: slice) -> None:
            copy_runs(xp, inner[rows], x[rows])

        over_batch(xp, x.shape[0], x.nbytes, copy)
        yield buf


def copy_patches(xp: Any, cols: Any, view: Any) -> None:
    """im2col: the patch view copied into cols (rows in batch-major order)."""
    dest = cols.reshape(view.shape)

    def copy(rows: slice) -> None:
        copy_runs(xp, dest[rows], view[rows])

    over_batch(xp, view.shape[0], cols.nbytes, copy)


# Runs of at most this many bytes go as one element each: numpy's own strided copy is as
# fast from about 64 floats on.
_RUN_BYTES = 128


def copy_runs(xp: Any, dest: Any, src: Any) -> None:
    """dest[...] = src for two arrays of one shape and dtype (strided views: tap-major and
    tile layouts, im2col rows). On the CPU, where the trailing axes form a short contiguous
    run in both (a channels-last run of 32 floats), each run is copied as one element of a
    void type that many bytes long: numpy's strided copy otherwise goes run by run through
    its iterator, where the void copy is one loop over the runs (1.2-1.6x faster for runs
    of 32 floats, 5x for runs of 4). The bytes are copied as they are (NaN payloads
    included)."""
    if xp is not np or src.shape != dest.shape or src.dtype != dest.dtype or not dest.ndim:
        xp.copyto(dest, src)
        return
    axes, size = _run(dest.shape, dest.strides, src.strides, dest.itemsize)
    if not axes or dest.dtype.hasobject:
        np.copyto(dest, src)
        return
    kind = _VOIDS.get(size)
    if kind is None:
        kind = _VOIDS[size] = np.dtype((np.void, size))
    if axes > 1:
        shape = (*dest.shape[: dest.ndim - axes], size // dest.itemsize)
        runs = dest.reshape(shape)  # a view: the merged axes are contiguous in dest
        if runs.flags.owndata:
            np.copyto(dest, src)
            return
        dest, src = runs, src.reshape(shape)
    np.copyto(dest.view(kind)[..., 0], src.view(kind)[..., 0])


_VOIDS: dict[int, Any] = {}


def _run(
    shape: tuple[int, ...], dest: tuple[int, ...], src: tuple[int, ...], itemsize: int
) -> tuple[int, int]:
    """(trailing axes, bytes) of the run that is contiguous in both arrays (strides dest
    and src), where it is of at most _RUN_BYTES and not the whole array; else (0, 0)."""
    axes, size = 0, itemsize
    for i in range(len(shape) - 1, -1, -1):
        extent = shape[i]
        if extent != 1 and (dest[i] != size or src[i] != size):
            break
        if size * extent > _RUN_BYTES:
            return 0, 0  # a long run: numpy's own copy goes along it
        axes, size = axes + 1, size * extent
    if axes == len(shape) or size in (0, itemsize):
        return 0, 0
    return axes, size


def _truncating_div(a: int, b: int) -> int:
    """C++ integer division (towards zero), as TF's window arithmetic."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def padded_shape(x_shape: tuple[int, ...], pads: list[tuple[int, int]]) -> tuple[int, ...]:
    return (x_shape[0], *(s + a + b for s, (a, b) in zip(x_shape[1:-1], pads)), x_shape[-1])


def interior(pads: list[tuple[int, int]], sizes: list[int]) -> tuple[slice, ...]:
    return (slice(None), *(slice(a, a + s) for (a, _), s in zip(pads, sizes)), slice(None))


def patches(
    xp: Any,
    padded: Any,
    outs: list[int],
    ksizes: list[int],
    win: Window,
    strides: list[int] | None = None,
) -> Any:
    """The (N, *outs, *ksizes, C) strided view of a padded channels-last array (with the
    node's strides, or the `strides` given)."""
    st = padded.strides
    n = len(outs)
    steps = win.strides if strides is None else strides
    shape = (padded.shape[0], *outs, *ksizes, padded.shape[-1])
    view_strides = (
        st[0],
        *(st[1 + i] * steps[i] for i in range(n)),
        *(st[1 + i] * win.dilations[i] for i in range(n)),
        st[-1],
    )
    dtype = padded.dtype
    if xp is np and padded.flags.c_contiguous and dtype.isbuiltin == 1 and not dtype.hasobject:
        # The same view through ndarray's constructor, which checks it stays inside the
        # array: as_strided's Python-level work took ~3-6 us of a batch of one's ~0.1 ms
        # convolution. (Not for dtypes that export no buffer: bfloat16's, objects.)
        return np.ndarray(shape, padded.dtype, buffer=padded, strides=view_strides)
    return xp.lib.stride_tricks.as_strided(padded, shape=shape, strides=view_strides)


def shape_arg(value: Any, rank: int, what: str, name: str) -> tuple[int, ...]:
    shape = tuple(host_ints(value))
    if len(shape) != rank:
        raise invalid(f"{what} must be a {rank}-element shape, got {list(shape)} ({name})")
    return shape


def check_rank(x: Any, rank: int, what: str, name: str) -> None:
    if x.ndim != rank:
        raise invalid(f"{what} must be {rank}-dimensional: {list(x.shape)} ({name})")


def lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ---- copies over the batch in parallel ------------------------------------------------------
_WORKERS: concurrent.futures.ThreadPoolExecutor | None = None
_WORKERS_LOCK = threading.Lock()
# Below this many bytes a copy is not worth handing to other threads.
_PARALLEL_BYTES = 4 << 20
# Nor below this many multiply-adds: from here a product over the batch (~0.2 ms of one
# core's BLAS) pays for the hand-off, however few bytes its patches take (a small batch's
# strided layer: 100M multiply-adds on 3 MB of patches).
PARALLEL_MACS = 1 << 24
# Blocks of about this many bytes of what a kernel touches stay in a core's cache (L2 and
# L3) from one of its operations to the next. Not smaller: while two threads take blocks,
# each numpy call's return waits for the GIL (tens of microseconds on a VM), and with 1 MB
# blocks the conv net's pooling took 15-25% more CPU on two threads than with 2 MB.
CACHE_BLOCK = 2 << 20
# A batch of one touching at least this many bytes (a 224x224 image's 3x3 patches of 64
# channels: ~1e9 multiply-adds) keeps BLAS's own threads; under it BLAS is held at one
# thread like every other unsplit work. Each product of a smaller one (a DQN's or a small
# ResNet's layers, 1e5-1e8 multiply-adds) took ~0.1 ms on one thread, but on two its second
# thread spins at OpenBLAS's barriers and after the call: under load (other processes on
# the cores) a batch-1 ResNet step took 120-240 ms instead of 7-15 (TF 1.15: 2).
ONE_ITEM_BLAS_THREADS_BYTES = 64 << 20
# Slices per runner where the caller sets no block size: a helper that can join only late
# (its core was running another kernel of the step) still finds shares left to take.
SHARES_PER_RUNNER = 4


def _workers() -> concurrent.futures.ThreadPoolExecutor | None:
    global _WORKERS
    # The runtime's intra-op budget (ConfigProto, affinity, cgroup quota), not the machine's.
    cores = thread_budget.current().intra
    if cores < 2:
        return None
    with _WORKERS_LOCK:
        if _WORKERS is None:
            _WORKERS = concurrent.futures.ThreadPoolExecutor(
                max_workers=cores,
                thread_name_prefix="tfcluster-conv",
                initializer=float_errors.silence_thread,
            )
        return _WORKERS


# Blocks that elementwise kernels (pooling) cut a batch in come in a multiple of this many,
# where the batch allows (block_items' `multiple`).
BLOCKS_MULTIPLE = 4


def block_items(xp: Any, batch: int, nbytes: int, block_bytes: int, multiple: int = 1) -> int:
    """How many batch entries make a block that touches at most about block_bytes of the
    nbytes the whole batch touches (all of them off the CPU). With `multiple`, blocks of
    down to half that size are tried for a number of blocks that is a multiple of it:
    over_batch's threads take blocks in turn, and of 13 blocks on 2 cores one thread runs
    7 while the other idles for a block at the end. Only for kernels whose results do not
    depend on the blocks (elementwise ones): a product's rows cut otherwise may round
    otherwise (BLAS's kernels for a piece's last rows), so convolutions keep their blocks."""
    if xp is not np or block_bytes <= 0 or nbytes <= block_bytes:
        return batch
    block = max(1, block_bytes * batch // nbytes)
    if multiple > 1:
        for smaller in range(block, max(1, block // 2) - 1, -1):
            if -(-batch // smaller) % multiple == 0:
                return smaller
    return block


def over_batch(
    xp: Any,
    batch: int,
    nbytes: int,
    fn: Callable[[slice], Any],
    block: int = 0,
    blas: bool = True,
    macs: int = 0,
) -> list[Any]:
    """[fn(rows)] for slices of the batch that together cover it, in order: on the CPU, large
    work (im2col copies and their products, scatters, pooling) runs on every core (numpy
    releases the GIL in its loops and BLAS calls); elsewhere one call. The slices are blocks
    of at most `block` entries (block_items: a block's data stays in the cache from one of
    fn's operations to the next, where strided views of a large array would bring all of it
    from memory once per operation), at least one per core (SHARES_PER_RUNNER per core with
    no block given); the calling thread and the
    workers take them in turn, so a core that another process holds delays one block, not a
    fixed share of the batch. Meanwhile BLAS is single-threaded: one call per core, rather
    than calls that each want every core (and whose threads spin at their barriers for cores
    that other processes hold). Helpers compute only on cores that no other kernel of the
    step is using (thread_budget.take_spare_core): two kernels running at once each go on
    their own thread, and a helper joins the one still running when the other ends. Work too
    small to split holds BLAS at one thread too (as _cpu_gemm does for small products),
    a batch of one included; only a batch of one of ONE_ITEM_BLAS_THREADS_BYTES or more
    keeps BLAS's threads. A caller whose fn makes no BLAS call passes blas=False: unsplit
    work then skips the hold (two changes of the pool's size, ~2.5 us). `macs`: the
    multiply-adds fn makes over the whole batch, where it makes products: from
    PARALLEL_MACS the work is split even when nbytes is small."""
    pool = _workers() if xp is np else None
    big = nbytes >= _PARALLEL_BYTES or macs >= PARALLEL_MACS
    parallel = pool is not None and big and batch >= 2
    runners = min(pool._max_workers, batch) if pool is not None and parallel else 1
    shares = block if block > 0 else -(-batch // (runners * SHARES_PER_RUNNER))
    per_block = min(shares, -(-batch // runners))
    slices = [slice(a, min(a + per_block, batch)) for a in range(0, batch, per_block)]
    if pool is None or runners < 2 or len(slices) < 2:
        if xp is np and blas and (batch >= 2 or nbytes < ONE_ITEM_BLAS_THREADS_BYTES):
            with single_thread_blas:
                return [fn(rows) for rows in slices]
        return [fn(rows) for rows in slices]
    results: list[Any] = [None] * len(slices)
    taken = [0]  # slices handed out so far
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                i = taken[0]
                if i >= len(slices):
                    return
                taken[0] = i + 1
            results[i] = fn(slices[i])

    def help_drain() -> None:
        # Only on a core no other kernel of the step is using (thread_budget.take_spare_core).
        if thread_budget.take_spare_core(lambda: taken[0] < len(slices)):
            try:
                drain()
            finally:
                thread_budget.give_back_core()

    with thread_budget.blas_threads(1):
        helpers = [pool.submit(help_drain) for _ in range(min(runners, len(slices)) - 1)]
        try:
            drain()
        finally:
            with lock:
                taken[0] = len(slices)  # after a failure too: a waiting helper starts nothing
            thread_budget.work_taken()
            # A helper not started yet (its thread not scheduled: the machine is loaded)
            # finds nothing left: cancelled rather than waited for, as _cpu_gemm does.
            failures = [None if f.cancel() else f.exception() for f in helpers]
    for failure in failures:
        if failure is not None:
            raise failure
    return results


# ---- scratch buffers ---------------------------------------------------------------------------
class Scratch:
    """Arrays that kernels reuse from call to call (padded inputs, im2col patches): lent for
    one call and taken back, so concurrent steps never share one; at most `keep_bytes` are
    kept idle, the rest left to the allocator. A lent buffer must not outlive the call (no
    output may be a view of it)."""

    def __init__(self, keep_bytes: int) -> None:
        self._free: dict[tuple[Any, ...], list[Any]] = {}
        self._lock = threading.Lock()
        self._kept = 0
        self._keep = keep_bytes

    @contextlib.contextmanager
    def lend(
        self, xp: Any, shape: tuple[int, ...], dtype: Any, fill: Any = None, region: Any = None
    ) -> Iterator[Any]:
        """A buffer of shape/dtype; one with a `fill` holds it outside `region`, the part its
        borrowers write (a padded copy's interior), so every borrower of one key must write
        the same region."""
        key, buf = self.take(xp, shape, dtype, fill, region)
        try:
            yield buf
        finally:
            self.give(key, buf)

    def take(
        self, xp: Any, shape: tuple[int, ...], dtype: Any, fill: Any = None, region: Any = None
    ) -> tuple[Any, Any]:
        """(key, buffer): lend's buffer for a borrower that gives it back itself, later."""
        fill_key = None if fill is None else float(fill)
        key = (id(xp), tuple(shape), np.dtype(dtype).str, fill_key, region)
        buf = None
        with self._lock:
            free = self._free.get(key)
            if free:
                buf = free.pop()
                self._kept -= buf.nbytes
        if buf is None:
            buf = xp.empty(shape, dtype) if fill is None else xp.full(shape, fill, dtype)
        return key, buf

    def give(self, key: Any, buf: Any) -> None:
        with self._lock:
            if self._kept + buf.nbytes <= self._keep:
                self._free.setdefault(key, []).append(buf)
                self._kept += buf.nbytes


# One pool for all convolution/pooling kernels of the process: what one step's largest
# layers need is kept, not one set per node.
SCRATCH = Scratch(keep_bytes=768 << 20)
