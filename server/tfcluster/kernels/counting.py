"""Counting kernels over xp: Bincount, UniqueWithCounts, ListDiff (tf.setdiff1d) and
HistogramFixedWidth, each one vectorised pass (sorts and bincounts, no per-element loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("Bincount", host=(1,))
def bincount(node: Any, xp: Any) -> Compute:
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        arr, size_t, weights = ins
        size = u.host_int(size_t, "size")
        if size < 0:
            raise u.invalid(f"size ({size}) must be non-negative")
        flat = arr.reshape(-1).astype(np.int64)
        if flat.size and int(flat.min()) < 0:
            raise u.invalid("Input arr must be non-negative!")
        has_weights = weights.size > 0
        if has_weights and tuple(weights.shape) != tuple(arr.shape):
            raise u.invalid(
                f"Weights and arr must have the same shape: {u.shape_str(weights.shape)} vs. "
                f"{u.shape_str(arr.shape)}"
            )
        keep = flat < size  # values past the end are not counted, as in TF
        w = weights.reshape(-1)[keep].astype(np.float64) if has_weights else None
        counts = xp.bincount(flat[keep], weights=w, minlength=size)[:size]
        return (counts.astype(dtype),)

    return compute


def first_occurrence_unique(xp: Any, x: Any) -> tuple[Any, Any, Any]:
    """(unique values in order of first appearance, index of each element's value, counts)."""
    values, first, inverse, counts = xp.unique(
        x, return_index=True, return_inverse=True, return_counts=True
    )
    order = xp.argsort(first, kind="stable")
    rank_of = xp.empty_like(order)
    rank_of[order] = xp.arange(order.size)
    return values[order], rank_of[inverse.reshape(-1)], counts[order]


@kernel("UniqueWithCounts")
def unique_with_counts(node: Any, xp: Any) -> Compute:
    idx_dtype = u.np_dtype(node, "out_idx")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        if x.ndim != 1:
            raise u.invalid(f"unique expects a 1D vector, got shape {u.shape_str(x.shape)}")
        y, idx, count = first_occurrence_unique(xp, x)
        return (y, idx.astype(idx_dtype), count.astype(idx_dtype))

    return compute


@kernel("ListDiff")
def list_diff(node: Any, xp: Any) -> Compute:
    idx_dtype = u.np_dtype(node, "out_idx")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y = ins
        if x.ndim != 1 or y.ndim != 1:
            raise u.invalid(
                f"x and y must be 1-D, got shapes {u.shape_str(x.shape)} and {u.shape_str(y.shape)}"
            )
        keep = ~xp.isin(x, y)
        positions = xp.nonzero(keep)[0]
        return (x[positions], positions.astype(idx_dtype))

    return compute


@kernel("HistogramFixedWidth", host=(2,))
def histogram_fixed_width(node: Any, xp: Any) -> Compute:
    dtype = u.np_dtype(node, "dtype")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        values, value_range, nbins_t = ins
        nbins = u.host_int(nbins_t, "nbins")
        if nbins <= 0:
            raise u.invalid(f"nbins should be a positive number, but got '{nbins}'")
        if value_range.shape != (2,):
            raise u.invalid(
                "value_range should be a vector of 2 elements, got "
                f"{u.shape_str(value_range.shape)}"
            )
        lo, hi = (float(v) for v in u.host(value_range))
        if not lo < hi:
            raise u.invalid(
                f"value_range should satisfy value_range[0] < value_range[1], "
                f"but got '[{lo}, {hi}]'"
            )
        # TF's bins: (max(v, lo) - lo) / step in double precision, capped at the last bin.
        step = (hi - lo) / nbins
        shifted = (xp.maximum(values, value_range[0]) - value_range[0]).astype(np.float64)
        index = xp.minimum(shifted / step, nbins - 1).astype(np.int64).reshape(-1)
        return (xp.bincount(index, minlength=nbins)[:nbins].astype(dtype),)

    return compute
