"""Image resizing kernels over xp: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
ResizeArea and the gradients of the first three, as TF 1.15's CPU kernels compute them.

Where each output pixel samples the input (indices, lerp and cubic weights) is host arithmetic
in float32, exactly TF's (its scalers, rounding and bounds), cached per geometry. The pixels
themselves move in a few whole-array steps: gathers of rows and columns for bilinear, nearest
and bicubic (combined in TF's order of float32 operations), the area resize's cells added one
term at a time in TF's order, and two small matrix products for every gradient (the transposed
sampling as a weight matrix per axis).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_ints, invalid, shape_of
from tfcluster.kernels.registry import kernel

F32 = np.float32
TABLE_SIZE = 1024


# ---- geometry (host) -----------------------------------------------------------------------
def resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's CalculateResizeScale, in float32."""
    if align_corners and out_size > 1:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(in_size) / F32(out_size)


def _flags(node: Any) -> tuple[bool, bool]:
    align = bool(node.attrs.get("align_corners", False))
    half = bool(node.attrs.get("half_pixel_centers", False))
    if half and align:
        raise invalid("If half_pixel_centers is True, align_corners must be False.")
    return align, half


def _out_size(value: Any) -> tuple[int, int]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid(f"shape_t must be 1-dimensional{list(arr.shape)}")
    if arr.size != 2:
        raise invalid(f"shape_t must have two elements{list(arr.shape)}")
    h, w = host_ints(arr)
    return h, w


def _check_image(shape: tuple[int, ...], out_h: int, out_w: int) -> None:
    if len(shape) != 4:
        raise invalid(f"input must be 4-dimensional{list(shape)}")
    if out_h <= 0 or out_w <= 0:
        raise invalid("output dimensions must be positive")
    if shape[3] <= 0:
        raise invalid("image must have at least one channel")
    if shape[1] <= 0 or shape[2] <= 0:
        raise invalid("input image must be of non-zero size")


@functools.lru_cache(maxsize=256)
def bilinear_axis(
    out_size: int, in_size: int, align: bool, half: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower, upper, lerp) per output position: TF's compute_interpolation_weights."""
    scale = resize_scale(in_size, out_size, align)
    pos = np.arange(out_size, dtype=F32)
    src = (pos + F32(0.5)) * scale - F32(0.5) if half else pos * scale
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(F32)


@functools.lru_cache(maxsize=256)
def nearest_axis(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    """The input index each output position copies (TF's compute_indices)."""
    scale = resize_scale(in_size, out_size, align)
    pos = np.arange(out_size, dtype=F32)
    src = (pos + F32(0.5)) * scale if half else pos * scale
    # roundf rounds halves away from zero; every position here is >= 0.
    index = np.floor(src + F32(0.5)) if align else np.floor(src)
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half else index


@functools.cache
def _cubic_table(a: float) -> np.ndarray:
    """TF's table of cubic convolution weights: [(i, 0) near, (i, 1) far] for i in 0..1024."""
    x = (np.arange(TABLE_SIZE + 1) * 1.0 / TABLE_SIZE).astype(F32).astype(np.float64)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = (x.astype(F32) + F32(1.0)).astype(np.float64)
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(F32)


@functools.lru_cache(maxsize=256)
def bicubic_axis(
    out_size: int, in_size: int, align: bool, half: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(indices [out, 4], weights [out, 4]): TF's GetWeightsAndIndices, Keys' cubic (a=-0.5,
    out-of-image taps dropped and renormalised) with half-pixel centers, else a=-0.75."""
    scale = resize_scale(in_size, out_size, align)
    pos = np.arange(out_size, dtype=F32)
    src = (pos + F32(0.5)) * scale - F32(0.5) if half else pos * scale
    base = np.floor(src).astype(np.int64)
    delta = (src - base.astype(F32)).astype(F32)
    offset = np.rint(delta * F32(TABLE_SIZE)).astype(np.int64)
    table = _cubic_table(-0.5 if half else -0.75)
    weights = np.stack(
        [
            table[offset, 1],
            table[offset, 0],
            table[TABLE_SIZE - offset, 0],
            table[TABLE_SIZE - offset, 1],
        ],
        axis=1,
    )
    wanted = base[:, None] + np.arange(-1, 3)[None, :]
    indices = np.clip(wanted, 0, in_size - 1)
    if half:
        weights = np.where(indices == wanted, weights, F32(0))
        total = ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]
        ok = np.abs(total) >= F32(1000.0) * np.finfo(F32).tiny
        inv = np.where(ok, F32(1.0) / np.where(ok, total, F32(1)), F32(1))
        weights = np.where(ok[:, None], weights * inv[:, None], weights)
    return indices, weights.astype(F32)


def _sampling_matrix(indices: np.ndarray, weights: np.ndarray, in_size: int) -> np.ndarray:
    """[out, in]: row o holds the weights with which output o samples each input position."""
    out = np.zeros((indices.shape[0], in_size), np.float64)
    rows = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
    np.add.at(out, (rows, indices.reshape(-1)), weights.reshape(-1))
    return out


@functools.lru_cache(maxsize=256)
def bilinear_matrix(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    lower, upper, lerp = bilinear_axis(out_size, in_size, align, half)
    weights = np.stack([F32(1) - lerp, lerp], axis=1)
    return _sampling_matrix(np.stack([lower, upper], axis=1), weights, in_size)


@functools.lru_cache(maxsize=256)
def nearest_matrix(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    index = nearest_axis(out_size, in_size, align, half)
    return _sampling_matrix(index[:, None], np.ones((out_size, 1)), in_size)


@functools.lru_cache(maxsize=256)
def bicubic_matrix(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    return _sampling_matrix(*bicubic_axis(out_size, in_size, align, half), in_size)


@functools.lru_cache(maxsize=256)
def area_terms(out_size: int, in_size: int, align: bool) -> tuple[np.ndarray, np.ndarray]:
    """ResizeArea's cells along one axis, as TF's kernel adds them: [terms, out] input indices
    (bounded to the edge) and float32 weights, in order: the first cell times its share, the
    inner cells as they are (weight 1), the last cell times its share; weight 0 pads an output
    with fewer terms (those adds are left out)."""
    scale = resize_scale(in_size, out_size, align)
    spans = []
    for o in range(out_size):  # host geometry only
        lo = F32(o) * scale
        hi = F32(o + 1) * scale
        spans.append((int(np.floor(lo)), int(np.ceil(hi)), lo, hi))
    count = max(end - start for start, end, _, _ in spans)
    index = np.zeros((count, out_size), np.int64)
    weight = np.zeros((count, out_size), F32)
    for o, (start, end, lo, hi) in enumerate(spans):
        for k, i in enumerate(range(start, end)):
            if i < lo:
                share = scale if i + 1 > hi else F32(i + 1) - lo
            else:
                share = hi - F32(i) if i + 1 > hi else F32(1.0)
            index[k, o] = min(max(i, 0), in_size - 1)
            weight[k, o] = share
    return index, weight


def _area_pass(xp: Any, x: Any, terms: tuple[np.ndarray, np.ndarray], axis: int) -> Any:
    """Sums along `axis` term by term in float32: sum = x[first] * w0, then += x[i] * w."""
    index, weight = terms
    shape = [1] * x.ndim
    shape[axis] = index.shape[1]
    total = None
    for k in range(index.shape[0]):
        cells = _take(xp, x, index[k], axis)
        w = weight[k].reshape(shape)
        term = cells * xp.asarray(w) if k == 0 or np.any(w != 1) else cells
        if k:
            # An output with fewer cells adds nothing here (not even a zero times inf).
            term = xp.where(xp.asarray(w != 0), term, F32(0))
        total = term if total is None else total + term
    return total


def sample_rows_cols(xp: Any, x: Any, rows: np.ndarray, cols: np.ndarray, dtype: Any) -> Any:
    """x [B, H, W, C] -> [B, out_h, out_w, C] with rows [out_h, H] and cols [out_w, W]: two
    matrix products (BLAS), in float64 for double images and float32 otherwise."""
    b, h, w, c = x.shape
    t = xp.matmul(xp.asarray(rows.astype(dtype)), x.reshape(b, h, w * c))
    t = t.reshape(b, rows.shape[0], w, c)
    out = xp.tensordot(t, xp.asarray(cols.astype(dtype)), axes=([2], [1]))
    return out.transpose(0, 1, 3, 2)


def _compute_dtype(x_dtype: Any) -> Any:
    return np.float64 if np.dtype(x_dtype) == np.float64 else F32


# ---- forward kernels -----------------------------------------------------------------------
def _resize_setup(ins: list[Any]) -> tuple[int, int, int, int]:
    out_h, out_w = _out_size(ins[1])
    shape = shape_of(ins[0])
    _check_image(shape, out_h, out_w)
    return out_h, out_w, shape[1], shape[2]


def _take(xp: Any, x: Any, index: np.ndarray, axis: int) -> Any:
    return xp.take(x, xp.asarray(index), axis=axis)


def _used_rows(*indices: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The input rows some output reads, and each index array renumbered into them."""
    used = np.unique(np.concatenate(indices))
    return used, [np.searchsorted(used, i) for i in indices]


@kernel("ResizeBilinear", host=(1,))
def resize_bilinear(node: Any, xp: Any) -> Compute:
    align, half = _flags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out_h, out_w, in_h, in_w = _resize_setup(ins)
        y0, y1, ly = bilinear_axis(out_h, in_h, align, half)
        x0, x1, lx = bilinear_axis(out_w, in_w, align, half)
        img = xp.asarray(ins[0])
        weight_x = _per_column(xp, lx, img.shape[3])

        def across(rows: Any) -> Any:
            # TF's top/bottom values: across each row first, the same float operations.
            rows = rows.astype(F32, copy=False)
            left = _take(xp, rows, x0, 2)
            out = _take(xp, rows, x1, 2)
            out -= left
            _scale_columns(out, weight_x)
            out += left
            return out

        used, (r0, r1) = _used_rows(y0, y1)
        if used.size <= 2 * out_h:  # each input row read once
            rows = across(img if used.size == in_h else _take(xp, img, used, 1))
            top, out = _take(xp, rows, r0, 1), _take(xp, rows, r1, 1)
        else:  # shrinking: only the two rows each output row reads
            top, out = across(_take(xp, img, y0, 1)), across(_take(xp, img, y1, 1))
        out -= top
        out *= xp.asarray(ly).reshape(1, -1, 1, 1)
        out += top
        return (out,)

    return compute


@kernel("ResizeNearestNeighbor", host=(1,))
def resize_nearest(node: Any, xp: Any) -> Compute:
    align, half = _flags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out_h, out_w, in_h, in_w = _resize_setup(ins)
        if in_h >= 1 << 24 or in_w >= 1 << 24:
            raise invalid("nearest neighbor requires max height & width of 2^24")
        rows = nearest_axis(out_h, in_h, align, half)
        cols = nearest_axis(out_w, in_w, align, half)
        return (_take(xp, _take(xp, xp.asarray(ins[0]), rows, 1), cols, 2),)

    return compute


def _per_column(xp: Any, weights: np.ndarray, channels: int) -> Any:
    """Column weights repeated for every channel, as a row [1, 1, width * channels]: scaling
    [B, H, width, C] by a weight broadcast over C would run numpy's loop C values at a time."""
    return xp.asarray(np.repeat(weights, channels)).reshape(1, 1, -1)


def _scale_columns(x: Any, weights: Any) -> None:
    """x [B, H, W, C] *= per-column weights from _per_column, in place."""
    b, h, w, c = x.shape
    flat = x.reshape(b, h, w * c)
    flat *= weights


def _weighted(values: list[Any], weights: list[Any]) -> Any:
    """v0 * w0 + v1 * w1 + v2 * w2 + v3 * w3, left to right as TF's Interpolate1D (the
    values are fresh arrays: they are scaled in place; row weights are [1, H, 1, 1], column
    weights rows from _per_column)."""

    def scale(v: Any, w: Any) -> None:
        if w.ndim == 3:
            _scale_columns(v, w)
        else:
            v *= w

    out = values[0]
    scale(out, weights[0])
    for v, w in zip(values[1:], weights[1:]):
        scale(v, w)
        out += v
    return out


@kernel("ResizeBicubic", host=(1,))
def resize_bicubic(node: Any, xp: Any) -> Compute:
    align, half = _flags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out_h, out_w, in_h, in_w = _resize_setup(ins)
        yi, yw = bicubic_axis(out_h, in_h, align, half)
        xi, xw = bicubic_axis(out_w, in_w, align, half)
        img = xp.asarray(ins[0])
        # TF interpolates down each input column first (the value at a column is the same
        # whichever output reads it), then across: so down every column once, then gather.
        down = _weighted(
            [_take(xp, img, yi[:, k], 1).astype(F32) for k in range(4)],
            [xp.asarray(yw[:, k]).reshape(1, -1, 1, 1) for k in range(4)],
        )
        return (
            _weighted(
                [_take(xp, down, xi[:, k], 2) for k in range(4)],
                [_per_column(xp, xw[:, k], img.shape[3]) for k in range(4)],
            ),
        )

    return compute


@kernel("ResizeArea", host=(1,))
def resize_area(node: Any, xp: Any) -> Compute:
    align = bool(node.attrs.get("align_corners", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out_h, out_w, in_h, in_w = _resize_setup(ins)
        # 1.0 / (height_scale * width_scale): a float32 product, divided in double, rounded.
        cell = resize_scale(in_h, out_h, align) * resize_scale(in_w, out_w, align)
        scale = F32(1.0 / float(cell))
        img = xp.asarray(ins[0]).astype(F32)
        # TF's order: each row's cells summed along x first, then the rows weighted and summed.
        along_x = _area_pass(xp, img, area_terms(out_w, in_w, align), 2)
        rows_index, rows_weight = area_terms(out_h, in_h, align)
        total = xp.zeros((img.shape[0], out_h, out_w, img.shape[3]), F32)
        for k in range(rows_index.shape[0]):
            w = rows_weight[k].reshape(1, -1, 1, 1)
            term = _take(xp, along_x, rows_index[k], 1) * xp.asarray(w)
            total = total + xp.where(xp.asarray(w != 0), term, F32(0))
        return (total * scale,)

    return compute


# ---- gradients -----------------------------------------------------------------------------
def _grad_setup(ins: list[Any], what: str) -> tuple[int, int, int, int]:
    grad_shape = shape_of(ins[0])
    if len(grad_shape) != 4:
        raise invalid(f"{what} must be 4-dimensional{list(grad_shape)}")
    orig_shape = shape_of(ins[1])
    if len(orig_shape) != 4:
        raise invalid(f"original_image must be 4-dimensional{list(orig_shape)}")
    return grad_shape[1], grad_shape[2], orig_shape[1], orig_shape[2]


def _scatter_back(xp: Any, grad: Any, rows: np.ndarray, cols: np.ndarray, dtype: Any) -> Any:
    """The transpose of sampling with rows [out_h, H] and cols [out_w, W]: [B, H, W, C]."""
    cdt = _compute_dtype(dtype)
    out = sample_rows_cols(xp, xp.asarray(grad).astype(cdt), rows.T, cols.T, cdt)
    return out.astype(dtype)


def _resize_grad(op: str, matrix: Any) -> None:
    @kernel(op)
    def factory(node: Any, xp: Any) -> Compute:
        align, half = _flags(node)
        dtype = np.dtype(node.attrs["T"].as_numpy_dtype)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            grad = xp.asarray(ins[0])
            if grad.ndim == 4 and grad.dtype != F32:
                raise invalid(f"input_grad must be of type float{grad.dtype}")
            rh, rw, oh, ow = _grad_setup(ins, "input_grad")
            rows = matrix(rh, oh, align, half)
            cols = matrix(rw, ow, align, half)
            return (_scatter_back(xp, grad, rows, cols, dtype),)

        return compute


_resize_grad("ResizeBilinearGrad", bilinear_matrix)
_resize_grad("ResizeBicubicGrad", bicubic_matrix)


def _integer_factor(grad_size: int, out_size: int, align: bool, half: bool) -> int:
    """f when each output index takes the gradient's positions f*i .. f*i+f-1 (an integer
    upsampling, UpSampling2D's), else 0."""
    if out_size <= 0 or grad_size % out_size:
        return 0
    f = grad_size // out_size
    index = nearest_axis(grad_size, out_size, align, half)
    return f if np.array_equal(index, np.arange(grad_size) // f) else 0


def _upsampling_grad(xp: Any, grad: Any, oh: int, ow: int, align: bool, half: bool) -> Any:
    """The gradient of an integer nearest upsampling as TF's kernel sums it: each output
    adds its f x f positions in the kernel's loop order (rows, then columns), by strided
    slices, instead of products with sampling matrices. None where it does not apply."""
    _, gh, gw, _ = grad.shape
    fy, fx = _integer_factor(gh, oh, align, half), _integer_factor(gw, ow, align, half)
    if not fy or not fx or grad.dtype != F32:
        return None
    out = None
    for dy in range(fy):
        for dx in range(fx):
            part = grad[:, dy::fy, dx::fx, :]
            if out is None:
                out = part + F32(0)  # TF's zeroed output plus the first term
            else:
                out += part
    return out


@kernel("ResizeNearestNeighborGrad", host=(1,))
def resize_nearest_grad(node: Any, xp: Any) -> Compute:
    align, half = _flags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grad = xp.asarray(ins[0])
        if grad.ndim != 4:
            raise invalid(f"input must be 4-dimensional{list(grad.shape)}")
        oh, ow = _out_size(ins[1])
        if oh <= 0 or ow <= 0:
            raise invalid("shape_t's elements must be positive")
        _, rh, rw, _ = grad.shape
        summed = _upsampling_grad(xp, grad, oh, ow, align, half)
        if summed is not None:
            return (summed,)
        rows = nearest_matrix(rh, oh, align, half)
        cols = nearest_matrix(rw, ow, align, half)
        return (_scatter_back(xp, grad, rows, cols, grad.dtype),)

    return compute
