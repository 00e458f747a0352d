"""Segment reductions over xp: Segment*, UnsortedSegment*, SparseSegment* and the gradients of
the sparse mean/sqrt-n reductions, as TensorFlow's segment_reduction_ops compute them.

Rows of `data` are reduced into output rows chosen by `segment_ids`; every kernel flattens
the trailing dims so one scatter does the work. On the CPU, sums and products go row by row
in the data's own dtype, in TF's order: the segment and unsorted-segment kernels add (or
multiply) each row into its segment in row order, a sorted segment of one row is that row,
and the sparse-segment kernels sum a segment's first rows (2 to 9 of them, so that the rest
come in eights), then add each next eight's own sum (_sparse_rows). A GPU's sums accumulate
in float64 (half in float32) and round once, as atomics leave TF's order undefined there.
Empty segments hold 0 (sorted ops, sums, means), 1 (products), and for the unsorted max/min
the lowest/highest value of the dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]
_BFLOAT16 = np.dtype(dtypes.bfloat16.as_numpy_dtype)


def _accumulator(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Half-precision sums accumulate in float32, as TF's GPU kernels do."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _in_row_order(xp: Any, dtype: np.dtype[Any]) -> bool:
    """Whether float sums go row by row in the dtype itself (TF's CPU kernels), not in float64."""
    return u.is_numpy(xp) and (dtype.kind == "f" or dtype == _BFLOAT16)


def reduce_rows(
    xp: Any,
    kind: str,
    rows: Any,
    ids: Any,
    num: int,
    empty_zero: bool = False,
) -> tuple[Any, Any]:
    """(out [num, inner], count per segment) for rows [n, inner] and valid ids [n]."""
    dtype = rows.dtype
    if dtype.fields:  # quantized values reduce as their integers
        storage = next(iter(dtype.fields.values()))[0]
        out, count = reduce_rows(xp, kind, rows.view(storage), ids, num, empty_zero)
        return out.view(dtype), count
    inner = rows.shape[1]
    count = xp.bincount(ids, minlength=num)[:num] if ids.size else xp.zeros(num, np.int64)
    if kind in ("sum", "mean") and _in_row_order(xp, dtype):
        out = xp.zeros((num, inner), dtype=dtype)
        if ids.size:
            u.scatter_add(xp, out, ids, rows)  # each row in index order, as np.add.at
        if kind == "mean":  # Eigen's MeanReducer: the sum over the count, in the dtype
            out = out / xp.maximum(count, 1).astype(dtype)[:, None]
        return out, count
    if kind == "prod" and u.is_numpy(xp):
        out = xp.ones((num, inner), dtype=dtype)
        if ids.size:
            np.multiply.at(out, ids, rows)  # each row in index order, in the dtype
        return out, count
    if kind in ("sum", "mean", "sqrt_n"):
        if dtype.kind == "f":
            # Floats accumulate in float64 (TF sums half in float32, the rest in T).
            out = u.row_sums(xp, rows, ids, num) if ids.size else xp.zeros((num, inner))
        else:
            # Integers exactly (wrapping as TF's do), complex values as they are.
            acc = np.dtype(np.int64) if dtype.kind in "iub" else dtype
            out = xp.zeros((num, inner), dtype=acc)
            if ids.size:
                u.scatter_add(xp, out, ids, rows.astype(acc, copy=False))
        if kind == "mean":
            out = _divide(xp, out, xp.maximum(count, 1).astype(out.dtype)[:, None])
        elif kind == "sqrt_n":
            out = out / xp.sqrt(xp.maximum(count, 1).astype(out.dtype))[:, None]
        return out.astype(dtype, copy=False), count
    if kind in ("max", "min"):
        fill = u.lowest(dtype) if kind == "max" else u.highest(dtype)
        out = xp.full((num, inner), fill, dtype=dtype)
        if ids.size:
            (u.scatter_max if kind == "max" else u.scatter_min)(xp, out, ids, rows)
        if empty_zero:
            out[count == 0] = 0
        return out, count
    if kind == "prod":
        out = xp.ones((num, inner), dtype=dtype)
        if ids.size:
            order = xp.argsort(ids, kind="stable")
            sorted_ids = ids[order]
            scanned = u.segmented_products(xp, rows[order], sorted_ids)
            last = xp.concatenate([sorted_ids[1:] != sorted_ids[:-1], xp.ones(1, dtype=bool)])
            out[sorted_ids[last]] = scanned[last]
        return out, count
    raise ValueError(f"unknown segment reduction {kind}")


def _divide(xp: Any, total: Any, count: Any) -> Any:
    """TF's Eigen division: true division for floats, C++ (toward zero) for integers."""
    if total.dtype.kind in "fc":
        return total / count
    quotient = xp.abs(total) // count
    return xp.where(total < 0, -quotient, quotient)


def _as_rows(data: Any, lead: int) -> Any:
    # The row width from the trailing dims: -1 cannot be inferred when there are no rows.
    width = int(np.prod(data.shape[lead:], dtype=np.int64))
    return data.reshape((int(np.prod(data.shape[:lead], dtype=np.int64)), width))


def _check_sorted(xp: Any, ids: Any, what: str = "segment_ids") -> int:
    """The number of output rows of a sorted segment op (last id + 1); errors as TF's."""
    if ids.size == 0:
        return 0
    host_ids = u.host(ids)
    if host_ids[0] < 0 or bool(np.any(np.diff(host_ids) < 0)):
        bad = int(np.argmax(np.concatenate([[host_ids[0] < 0], np.diff(host_ids) < 0])))
        raise u.invalid(
            f"{what}[{bad}] = {int(host_ids[bad])} is out of order or negative: segment ids "
            "must be sorted and non-negative"
        )
    return int(host_ids[-1]) + 1


def _sorted_segment(kind: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            data, ids = ins
            if ids.ndim != 1:
                raise u.invalid(f"segment_ids should be a vector, got {u.shape_str(ids.shape)}")
            if data.ndim < 1 or data.shape[0] != ids.shape[0]:
                raise u.invalid(
                    "segment_ids should be the same size as dimension 0 of input: "
                    f"{ids.shape[0]} vs. data shape {u.shape_str(data.shape)}"
                )
            num = _check_sorted(xp, ids)
            rows, ids64 = _as_rows(data, 1), ids.astype(np.int64)
            out, count = reduce_rows(xp, kind, rows, ids64, num, empty_zero=True)
            if ids64.size:
                # A segment of one row is that row (Eigen reduces only longer ones): -0 stays.
                alone = count[ids64] == 1
                out[ids64[alone]] = rows[alone]
            return (out.reshape((num, *data.shape[1:])),)

        return compute

    return factory


for _kind in ("sum", "mean", "max", "min", "prod"):
    kernel(f"Segment{_kind.capitalize()}")(_sorted_segment(_kind))


def _unsorted_segment(kind: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            data, ids, num_t = ins
            num = u.host_int(num_t, "num_segments")
            if num < 0:
                raise u.invalid(f"Input num_segments == {num} must not be negative.")
            if tuple(data.shape[: ids.ndim]) != tuple(ids.shape):
                raise u.invalid(
                    f"data.shape = {u.shape_str(data.shape)} does not start with "
                    f"segment_ids.shape = {u.shape_str(ids.shape)}"
                )
            flat_ids = ids.reshape(-1).astype(np.int64)
            too_big = xp.nonzero(flat_ids >= num)[0]
            if too_big.size:
                i = int(too_big[0])
                raise u.invalid(f"segment_ids[{i}] = {int(flat_ids[i])} is out of range [0, {num})")
            rows = _as_rows(data, ids.ndim)
            if flat_ids.size and bool((flat_ids < 0).any()):
                keep = flat_ids >= 0  # negative ids are dropped, as in TF
                rows, flat_ids = rows[keep], flat_ids[keep]
            out, _ = reduce_rows(xp, kind, rows, flat_ids, num)
            return (out.reshape((num, *data.shape[ids.ndim :])),)

        return compute

    return factory


for _kind in ("sum", "max", "min", "prod"):
    kernel(f"UnsortedSegment{_kind.capitalize()}", host=(2,))(_unsorted_segment(_kind))


def _sparse_segment(kind: str, with_num: bool) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            data, indices, ids = ins[:3]
            if indices.ndim != 1 or ids.ndim != 1:
                raise u.invalid("indices and segment_ids should be vectors")
            if indices.shape[0] != ids.shape[0]:
                raise u.invalid(
                    f"segment_ids and indices should have same size: {ids.shape[0]} vs. "
                    f"{indices.shape[0]}"
                )
            if data.ndim < 1:
                raise u.invalid("data must be at least a vector")
            idx = indices.astype(np.int64)
            bad = xp.nonzero((idx < 0) | (idx >= data.shape[0]))[0]
            if bad.size:
                i = int(bad[0])
                raise u.invalid(
                    f"Bad: indices[{i}] == {int(idx[i])} out of range [0, {data.shape[0]})"
                )
            num = _check_sorted(xp, ids)
            if with_num:
                wanted = u.host_int(ins[3], "num_segments")
                if num > wanted:
                    raise u.invalid(f"segment ids must be < num_segments: {num - 1} >= {wanted}")
                num = wanted
            rows = _as_rows(data, 1)[idx]
            if _in_row_order(xp, rows.dtype):
                out = _sparse_rows(kind, rows, ids.astype(np.int64), num)
            else:
                out, _ = reduce_rows(xp, kind, rows, ids.astype(np.int64), num)
            return (out.reshape((num, *data.shape[1:])),)

        return compute

    return factory


def _head_length(n: np.ndarray) -> np.ndarray:
    """How many of a segment's n rows TF's sparse-segment kernel sums first: all of one row,
    else n % 8 rows (8 for a multiple of eight, 9 when n % 8 is 1), the rest in eights."""
    r = n % 8
    return np.where(n == 1, 1, np.where(r == 0, 8, np.where(r == 1, 9, r)))


def _sparse_rows(kind: str, rows: np.ndarray, ids: np.ndarray, num: int) -> np.ndarray:
    """SparseSegmentSum/Mean/SqrtN of the gathered rows [n, inner] (ids sorted) as TF 1.15's
    CPU kernel computes them in the rows' dtype: the head's rows summed in order (divided by
    the count, or its square root, when it is under 10), then each further eight rows summed
    in order and that sum added; a count of 10 or more divides at the end."""
    dtype = rows.dtype
    out = np.zeros((num, rows.shape[1]), dtype=dtype)
    if not ids.size:
        return out
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    lengths = np.diff(np.r_[starts, ids.size])
    segs = ids[starts]
    head = _head_length(lengths)
    acc = rows[starts].copy()
    for k in range(1, 9):
        more = head > k
        if more.any():
            acc[more] += rows[starts[more] + k]
    divisor = None
    if kind in ("mean", "sqrt_n"):
        size = lengths.astype(np.float64)
        divisor = (size if kind == "mean" else np.sqrt(size)).astype(dtype)[:, None]
        small = (lengths > 1) & (lengths < 10)
        acc[small] = acc[small] / divisor[small]
    out[segs] = acc
    grouped = lengths - head  # a multiple of 8 for every segment
    total = int(grouped.sum())
    if total:
        # Each segment's rows after its head, segment after segment.
        first = np.repeat(starts + head, grouped)
        rest = first + np.arange(total) - np.repeat(np.cumsum(grouped) - grouped, grouped)
        eights = rows[rest].reshape(-1, 8, rows.shape[1])
        sums = eights[:, 0].copy()
        for k in range(1, 8):
            sums += eights[:, k]
        owners = np.repeat(segs, grouped // 8)
        u.scatter_add(np, out, owners, sums)  # the eights in order within each segment
    if divisor is not None:
        large = lengths >= 10
        out[segs[large]] = out[segs[large]] / divisor[large]
    return out


for _kind, _name in (("sum", "Sum"), ("mean", "Mean"), ("sqrt_n", "SqrtN")):
    kernel(f"SparseSegment{_name}")(_sparse_segment(_kind, False))
    kernel(f"SparseSegment{_name}WithNumSegments", host=(3,))(_sparse_segment(_kind, True))


def _sparse_segment_grad(kind: str) -> Callable[[Any, Any], Compute]:
    """d(data) of SparseSegmentMean/SqrtN: each output row's gradient, scaled by 1/count
    (1/sqrt(count)), added into the data rows it read."""

    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            grad, indices, ids, dim0_t = ins
            dim0 = u.host_int(dim0_t, "output_dim0")
            ids64 = ids.astype(np.int64)
            idx = indices.astype(np.int64)
            rows = _as_rows(grad, 1)
            n_out = rows.shape[0]
            bad = xp.nonzero((ids64 < 0) | (ids64 >= n_out))[0]
            if bad.size:
                i = int(bad[0])
                raise u.invalid(f"Segment id {int(ids64[i])} out of range [0, {n_out})")
            bad = xp.nonzero((idx < 0) | (idx >= dim0))[0]
            if bad.size:
                i = int(bad[0])
                raise u.invalid(f"Index {int(idx[i])} out of range [0, {dim0})")
            count = xp.maximum(xp.bincount(ids64, minlength=n_out).astype(np.float64), 1.0)
            # TF's scales in double: 1 / count, or 1 / sqrt(count).
            scale = 1.0 / (xp.sqrt(count) if kind == "sqrt_n" else count)
            acc = _accumulator(rows.dtype)
            exact = _in_row_order(xp, rows.dtype)
            # On the CPU, a data row's first contribution is copied and later ones added, in
            # order: adding into -0 keeps every first value (a -0 too), and rows no segment
            # read are set to 0 after.
            out = xp.full((dim0, rows.shape[1]), -0.0 if exact else 0.0, dtype=acc)
            contrib = rows[ids64].astype(acc) * scale[ids64].astype(acc)[:, None]
            if idx.size:
                u.scatter_add(xp, out, idx, contrib)
            if exact:
                out[xp.bincount(idx, minlength=dim0)[:dim0] == 0] = 0.0
            return (out.astype(grad.dtype).reshape((dim0, *grad.shape[1:])),)

        return compute

    return factory


kernel("SparseSegmentMeanGrad", host=(3,))(_sparse_segment_grad("mean"))
kernel("SparseSegmentSqrtNGrad", host=(3,))(_sparse_segment_grad("sqrt_n"))
