"""FractionalMaxPool / FractionalAvgPool and their gradients, as TF's kernels compute them:
windows between consecutive entries of the row and column pooling sequences (one more
row/column each when overlapping), the max taken first in row-major order for the gradient.

The windows of a dimension are at most a few elements wide: each reduction takes one gather
per window slot along one axis at a time (columns, then rows), over the whole batch. CPU only,
as in TF."""

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


def _check_deterministic_seeds(node: Any) -> None:
    if not bool(node.attrs.get("deterministic", False)) and (
        int(node.attrs.get("seed", 0)) or int(node.attrs.get("seed2", 0))
    ):
        raise invalid("Both seed and seed2 should be 0 if deterministic is false.")


def _reduce_axis(xp: Any, x: Any, idx: np.ndarray, ok: np.ndarray, axis: int, op: str) -> Any:
    """max or sum over each window of one axis: one gather per slot of the widest window
    (windows are a few elements wide). For a max, a slot past a narrower window reads the
    window's first element again; for a sum it is masked."""
    if op == "max":
        best, _ = _first_max_axis(xp, x, idx, ok, axis)
        return best
    shape = [1, 1, 1, 1]
    shape[axis] = idx.shape[0]
    out = None
    for k in range(idx.shape[1]):
        part = xp.take(x, xp.asarray(idx[:, k]), axis=axis)
        if not ok[:, k].all():
            part = xp.where(xp.asarray(ok[:, k]).reshape(shape), part, 0)
        out = part if out is None else out + part
    return out


def _first_max_axis(xp: Any, x: Any, idx: np.ndarray, ok: np.ndarray, axis: int) -> tuple[Any, Any]:
    """Each window's max along one axis and the first slot holding it (a later slot wins
    only when strictly greater, as TF's scan)."""
    safe = np.where(ok, idx, idx[:, :1])
    best = xp.take(x, xp.asarray(safe[:, 0]), axis=axis)
    which = xp.zeros(best.shape, dtype=xp.int32)
    for k in range(1, safe.shape[1]):
        part = xp.take(x, xp.asarray(safe[:, k]), axis=axis)
        better = part > best
        best = xp.where(better, part, best)
        which = xp.where(better, k, which)
    return best, which


def _lowest(dtype: Any) -> Any:
    kind = np.dtype(dtype)
    return np.finfo(kind).min if kind.kind == "f" else np.iinfo(kind).min


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
        best = _reduce_axis(xp, _reduce_axis(xp, x, r_idx, r_ok, 1, "max"), c_idx, c_ok, 2, "max")
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
        total = _reduce_axis(xp, _reduce_axis(xp, x, r_idx, r_ok, 1, "sum"), c_idx, c_ok, 2, "sum")
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
        # Row-major first max of each window: the first column slot of each image row's
        # window, then the first row whose best equals the window's max.
        by_col, col_slot = _first_max_axis(xp, x, c_idx, c_ok, 2)  # [b, h, ow, d]
        _, row_slot = _first_max_axis(xp, by_col, r_idx, r_ok, 1)  # [b, oh, ow, d]
        b, h, w, d = shape
        oh, ow = r_idx.shape[0], c_idx.shape[0]
        row = xp.asarray(r_idx)[xp.arange(oh)[None, :, None, None], row_slot]
        slot = xp.take_along_axis(col_slot, row, axis=1)
        safe_c = np.where(c_ok, c_idx, c_idx[:, :1])
        col = xp.asarray(safe_c)[xp.arange(ow)[None, None, :, None], slot]
        batch = xp.arange(b)[:, None, None, None]
        depth = xp.arange(d)[None, None, None, :]
        target = ((batch * h + row) * w + col) * d + depth
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
