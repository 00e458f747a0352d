"""FractionalMaxPool / FractionalAvgPool and their gradients, as TF's kernels compute them:
windows between consecutive entries of the row and column pooling sequences (one more
row/column each when overlapping), the max taken first in row-major order for the gradient.

The windows of a dimension are at most a few wide, so each output gathers its window through
padded index arrays (invalid slots masked) and reduces it in one vectorised pass."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.kernels import fractional_sequences
from tfcluster.kernels.common import Compute, host_array, host_ints, invalid, shape_str, typed
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _output_sizes(node: Any, shape: tuple[int, ...]) -> list[int]:
    ratio = [float(r) for r in node.attrs["pooling_ratio"]]
    if len(shape) != 4:
        raise invalid(f"input must be 4-dimensional, got shape {shape_str(shape)}")
    out = []
    for i, (size, r) in enumerate(zip(shape, ratio)):
        n = math.floor(size / r)
        if n <= 0:
            raise invalid(f"Output size of dimension {i} must be positive, got {n}")
        out.append(n)
    return out


def _windows(cum: np.ndarray, size: int, overlapping: bool) -> tuple[np.ndarray, np.ndarray]:
    """(index [out, width], valid [out, width]) of each window of one dimension."""
    starts = cum[:-1]
    ends = np.minimum(cum[1:] + (1 if overlapping else 0), size)  # exclusive
    width = max(int((ends - starts).max()), 1) if starts.size else 1
    offsets = np.arange(width)
    index = starts[:, None] + offsets[None, :]
    valid = index < ends[:, None]
    return np.minimum(index, size - 1), valid


def _check_sequence(cum: np.ndarray, size: int, what: str) -> None:
    if cum.ndim != 1 or cum.size < 2 or cum[0] != 0 or cum[-1] != size or np.any(np.diff(cum) < 1):
        raise invalid(
            f"{what} must start at 0, increase and end at the input size {size}, got {cum.tolist()}"
        )


def _gather(xp: Any, x: Any, rows: np.ndarray, cols: np.ndarray) -> Any:
    """x's windows: [batch, out_rows, row_width, out_cols, col_width, depth]."""
    r = xp.asarray(rows)[:, :, None, None]
    c = xp.asarray(cols)[None, None, :, :]
    return x[:, r, c, :]


def _mask(xp: Any, rows_ok: np.ndarray, cols_ok: np.ndarray) -> Any:
    ok = rows_ok[:, :, None, None] & cols_ok[None, None, :, :]
    return xp.asarray(ok)[None, :, :, :, :, None]


def _sequences(node: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    out = _output_sizes(node, shape)
    gen = fractional_sequences.generator(
        int(node.attrs.get("seed", 0)),
        int(node.attrs.get("seed2", 0)),
        bool(node.attrs.get("deterministic", False)),
    )
    pseudo = bool(node.attrs.get("pseudo_random", False))
    rows = fractional_sequences.pooling_sequence(shape[1], out[1], gen, pseudo)
    cols = fractional_sequences.pooling_sequence(shape[2], out[2], gen, pseudo)
    return rows, cols


def _first_max(xp: Any, windows: Any, ok: Any) -> tuple[Any, Any]:
    """Each window's max and the (row-major) position of its first occurrence."""
    b, oh, wh, ow, ww, d = windows.shape
    lowest = (
        np.finfo(np.dtype(windows.dtype)).min
        if windows.dtype.kind == "f"
        else np.iinfo(np.dtype(windows.dtype)).min
    )
    masked = xp.where(ok, windows, lowest)
    flat = xp.transpose(masked, (0, 1, 3, 5, 2, 4)).reshape(b, oh, ow, d, wh * ww)
    pos = xp.argmax(flat, axis=-1)
    best = xp.take_along_axis(flat, pos[..., None], axis=-1)[..., 0]
    return best, pos


def _check_deterministic_seeds(node: Any) -> None:
    if not bool(node.attrs.get("deterministic", False)) and (
        int(node.attrs.get("seed", 0)) or int(node.attrs.get("seed2", 0))
    ):
        raise invalid("Both seed and seed2 should be 0 if deterministic is false.")


@kernel("FractionalMaxPool", devices=CPU_ONLY)
def fractional_max_pool(node: Any, xp: Any) -> Compute:
    overlapping = bool(node.attrs.get("overlapping", False))
    cast = typed(node, xp)
    _check_deterministic_seeds(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        shape = tuple(int(d) for d in x.shape)
        rows, cols = _sequences(node, shape)
        r_idx, r_ok = _windows(rows, shape[1], overlapping)
        c_idx, c_ok = _windows(cols, shape[2], overlapping)
        best, _ = _first_max(xp, _gather(xp, x, r_idx, c_idx), _mask(xp, r_ok, c_ok))
        return cast(best), rows, cols

    return compute


@kernel("FractionalAvgPool", devices=CPU_ONLY)
def fractional_avg_pool(node: Any, xp: Any) -> Compute:
    overlapping = bool(node.attrs.get("overlapping", False))
    cast = typed(node, xp)
    _check_deterministic_seeds(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        shape = tuple(int(d) for d in x.shape)
        rows, cols = _sequences(node, shape)
        r_idx, r_ok = _windows(rows, shape[1], overlapping)
        c_idx, c_ok = _windows(cols, shape[2], overlapping)
        windows = _gather(xp, x, r_idx, c_idx)
        ok = _mask(xp, r_ok, c_ok)
        total = xp.sum(xp.where(ok, windows, 0), axis=(2, 4))
        count = xp.asarray(r_ok.sum(1)[:, None] * c_ok.sum(1)[None, :])[None, :, :, None]
        return cast(total / count.astype(total.dtype)), rows, cols

    return compute


def _scatter_add(xp: Any, flat_index: Any, values: Any, size: int) -> Any:
    """sum of values into a flat array at flat_index (bincount: numpy and cupy both have it)."""
    return xp.bincount(flat_index.reshape(-1), weights=values.reshape(-1), minlength=size)


def _flat_positions(shape: tuple[int, ...], r_idx: np.ndarray, c_idx: np.ndarray) -> np.ndarray:
    """Flat input index of each window slot: [batch, out_rows, row_width, out_cols, col_width,
    depth]."""
    b, h, w, d = shape
    bi = np.arange(b)[:, None, None, None, None, None]
    ri = r_idx[None, :, :, None, None, None]
    ci = c_idx[None, None, None, :, :, None]
    di = np.arange(d)[None, None, None, None, None, :]
    return ((bi * h + ri) * w + ci) * d + di


@kernel("FractionalMaxPoolGrad", devices=CPU_ONLY)
def fractional_max_pool_grad(node: Any, xp: Any) -> Compute:
    overlapping = bool(node.attrs.get("overlapping", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, _, grad = (xp.asarray(v) for v in ins[:3])
        rows, cols = (np.asarray(host_array(v), dtype=np.int64) for v in ins[3:5])
        shape = tuple(int(d) for d in x.shape)
        _check_sequence(rows, shape[1], "row_pooling_sequence")
        _check_sequence(cols, shape[2], "col_pooling_sequence")
        r_idx, r_ok = _windows(rows, shape[1], overlapping)
        c_idx, c_ok = _windows(cols, shape[2], overlapping)
        want = (shape[0], rows.size - 1, cols.size - 1, shape[3])
        if tuple(grad.shape) != want:
            raise invalid(
                f"out_backprop must have shape {shape_str(want)}, got {shape_str(grad.shape)}"
            )
        _, pos = _first_max(xp, _gather(xp, x, r_idx, c_idx), _mask(xp, r_ok, c_ok))
        flat = _flat_positions(shape, r_idx, c_idx)  # [b, oh, wh, ow, ww, d]
        b, oh, wh, ow, ww, d = flat.shape
        slots = xp.asarray(np.transpose(flat, (0, 1, 3, 5, 2, 4)).reshape(b, oh, ow, d, wh * ww))
        target = xp.take_along_axis(slots, pos[..., None], axis=-1)[..., 0]
        size = int(np.prod(shape))
        out = _scatter_add(xp, target, grad.astype(xp.float64), size)
        return (cast(out.reshape(shape)),)

    return compute


@kernel("FractionalAvgPoolGrad", devices=CPU_ONLY)
def fractional_avg_pool_grad(node: Any, xp: Any) -> Compute:
    overlapping = bool(node.attrs.get("overlapping", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = tuple(host_ints(ins[0]))
        if len(shape) != 4:
            raise invalid(f"orig_input_tensor_shape must be 4 values, got {list(shape)}")
        grad = xp.asarray(ins[1])
        rows, cols = (np.asarray(host_array(v), dtype=np.int64) for v in ins[2:4])
        _check_sequence(rows, shape[1], "row_pooling_sequence")
        _check_sequence(cols, shape[2], "col_pooling_sequence")
        r_idx, r_ok = _windows(rows, shape[1], overlapping)
        c_idx, c_ok = _windows(cols, shape[2], overlapping)
        count = (r_ok.sum(1)[:, None] * c_ok.sum(1)[None, :]).astype(np.float64)
        share = grad.astype(xp.float64) / xp.asarray(count)[None, :, :, None]
        ok = _mask(xp, r_ok, c_ok)
        spread = xp.where(ok, share[:, :, None, :, None, :], 0.0)
        flat = xp.asarray(_flat_positions(shape, r_idx, c_idx))
        spread = xp.broadcast_to(spread, flat.shape)
        out = _scatter_add(xp, flat, spread, int(np.prod(shape)))
        return (cast(out.reshape(shape)),)

    return compute
