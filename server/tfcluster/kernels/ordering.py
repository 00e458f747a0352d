"""Kernels that order values, over xp: TopKV2 (largest k along the last axis, ties to the
lower index as TF breaks them; on CPU, with sorted=False or a NaN in the input, in the order
TF's bounded heap gives them, unsorted_top_k.py), InTopKV2, and LowerBound/UpperBound
(tf.searchsorted)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.unsorted_top_k import heap_top_k_indices

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def descending_order(xp: Any, x: Any) -> Any:
    """Indices that sort the last axis from largest to smallest, equal values by ascending
    index: a stable ascending sort of the reversed axis, read backwards."""
    n = x.shape[-1]
    order = xp.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order


def top_k_indices(xp: Any, x: Any, k: int) -> Any:
    """The indices of the k largest entries of each row (last axis), largest first, equal
    values by ascending index. For k much smaller than the row a partition finds the k-th
    largest value in linear time and only k entries per row are sorted."""
    n = x.shape[-1]
    if 4 * k >= n or (x.dtype.kind == "f" and bool(xp.isnan(x).any())):
        return descending_order(xp, x)[..., :k]
    rows = x.reshape(-1, n)
    kth = xp.partition(rows, n - k, axis=-1)[:, n - k : n - k + 1]
    greater = rows > kth
    # Of the entries equal to the k-th largest, the lowest-indexed ones fill the k slots.
    room = k - greater.sum(axis=-1, keepdims=True)
    equal = rows == kth
    chosen = greater | (equal & (xp.cumsum(equal, axis=-1) <= room))
    picked = xp.nonzero(chosen)[1].reshape(-1, k)
    values = xp.take_along_axis(rows, picked, axis=-1)
    order = descending_order(xp, values)
    return xp.take_along_axis(picked, order, axis=-1).reshape((*x.shape[:-1], k))


def _has_nan(x: np.ndarray) -> bool:
    return x.dtype.kind == "f" and bool(np.isnan(x).any())


@kernel("TopKV2", host=(1,))
def top_k(node: Any, xp: Any) -> Compute:
    in_order = bool(node.attrs.get("sorted", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, k_t = ins
        k = u.host_int(k_t, "k")
        if k < 0:
            raise u.invalid(f"Need k >= 0, got {k}")
        if x.ndim < 1:
            raise u.invalid(f"input must be >= 1-D, got shape {u.shape_str(x.shape)}")
        if x.shape[-1] < k:
            raise u.invalid(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
        if k == 0 or x.size == 0:
            shape = (*x.shape[:-1], k)
            return (xp.zeros(shape, dtype=x.dtype), xp.zeros(shape, dtype=np.int32))
        if xp is np and 1 < k < x.shape[-1] and (not in_order or _has_nan(x)):
            order = heap_top_k_indices(x, k, in_order)
        else:
            order = top_k_indices(xp, x, k)
        values = xp.take_along_axis(x, order, axis=-1)
        return (values, order.astype(np.int32))

    return compute


@kernel("InTopKV2", host=(2,))
def in_top_k(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        predictions, targets, k_t = ins
        k = u.host_int(k_t, "k")
        if predictions.ndim != 2:
            raise u.invalid(
                f"predictions must be 2-dimensional, got {u.shape_str(predictions.shape)}"
            )
        if targets.ndim != 1:
            raise u.invalid(f"targets must be 1-dimensional, got {u.shape_str(targets.shape)}")
        if predictions.shape[0] != targets.shape[0]:
            raise u.invalid(
                "First dimension of predictions "
                f"{predictions.shape[0]} must match length of targets {targets.shape[0]}"
            )
        classes = predictions.shape[1]
        valid = (targets >= 0) & (targets < classes)
        safe = xp.where(valid, targets, 0).astype(np.int64)
        target_value = xp.take_along_axis(predictions, safe[:, None], axis=1)[:, 0]
        # A row with a non-finite prediction, or a target out of range, is never in the top k.
        finite = xp.all(xp.isfinite(predictions), axis=1)
        larger = xp.sum(predictions > target_value[:, None], axis=1)
        return (valid & finite & (larger < k),)

    return compute


def _bound(side: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        out_type = u.np_dtype(node, "out_type")

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            seq, values = ins
            if seq.ndim != 2 or values.ndim != 2 or seq.shape[0] != values.shape[0]:
                raise u.invalid(
                    "Leading dim_size of both tensors must match and both must be 2-D: "
                    f"sorted_inputs {u.shape_str(seq.shape)}, values {u.shape_str(values.shape)}"
                )
            rows, n = seq.shape
            m = values.shape[1]
            if rows == 0 or m == 0:
                return (xp.zeros(values.shape, dtype=out_type),)
            # Merge each row's sequence and queries in one stable order keyed by (row, value,
            # side): a query's position in its merged row, less the queries before it, is
            # how many sequence values precede it. Three stable sorts, least key first.
            merged = xp.concatenate([seq, values.astype(seq.dtype, copy=False)], axis=1)
            is_query = xp.concatenate(
                [xp.zeros((rows, n), np.int8), xp.ones((rows, m), np.int8)], axis=1
            ).reshape(-1)
            # 'left' puts queries before equal sequence values, 'right' after them.
            tie = is_query if side == "right" else 1 - is_query
            row = xp.repeat(xp.arange(rows), n + m)
            order = xp.argsort(tie, kind="stable")
            order = order[xp.argsort(merged.reshape(-1)[order], kind="stable")]
            order = order[xp.argsort(row[order], kind="stable")]
            flat_query = is_query[order].astype(np.int64)
            position = xp.arange(order.size) - xp.repeat(xp.arange(rows) * (n + m), n + m)
            queries_before = xp.cumsum(flat_query) - flat_query
            queries_before = queries_before - xp.repeat(xp.arange(rows) * m, n + m)
            result = xp.zeros(rows * (n + m), dtype=np.int64)
            result[order] = position - queries_before
            out = result.reshape(rows, n + m)[:, n:]
            return (out.astype(out_type),)

        return compute

    return factory


kernel("LowerBound")(_bound("left"))
kernel("UpperBound")(_bound("right"))
