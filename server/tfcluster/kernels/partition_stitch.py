"""DynamicPartition, DynamicStitch and ParallelDynamicStitch over xp: splitting the rows of a
tensor by a partition number, and interleaving rows of several tensors by index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("DynamicPartition")
def dynamic_partition(node: Any, xp: Any) -> Compute:
    num = int(node.attrs["num_partitions"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data, partitions = ins
        if tuple(data.shape[: partitions.ndim]) != tuple(partitions.shape):
            raise u.invalid(
                f"data.shape must start with partitions.shape, got data.shape = "
                f"{u.shape_str(data.shape)}, partitions.shape = {u.shape_str(partitions.shape)}"
            )
        flat = partitions.reshape(-1)
        counts = _host_counts(flat, num) if xp is np else None
        if counts is None:
            # Two reductions check the common case; the first bad entry is found only for
            # the error.
            if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= num):
                i = int(xp.nonzero((flat < 0) | (flat >= num))[0][0])
                raise u.invalid(f"partitions[{i}] = {int(flat[i])} is not in [0, {num})")
            counts = u.host(xp.bincount(flat.astype(np.int64), minlength=num)).tolist()
        rows = data.reshape((flat.shape[0], *data.shape[partitions.ndim :]))
        # One stable sort groups the rows by partition, keeping their order within each.
        grouped = rows[xp.argsort(flat, kind="stable")]
        out = []
        start = 0
        for count in counts:
            out.append(grouped[start : start + count])
            start += count
        return tuple(out)

    return compute


def _host_counts(flat: np.ndarray, num: int) -> list[int] | None:
    """Rows per partition of int32 partitions, checked by one reduction (viewed as unsigned, a
    negative entry is above any count) instead of a min and a max: a word2vec step partitions
    its ids a few times, 128 at a time, where each reduction costs about as much as the
    count. None where an entry is outside [0, num) (or not int32)."""
    if flat.dtype != np.int32:
        return None
    if flat.size and int(flat.view(np.uint32).max()) >= num:
        return None
    counts: list[int] = np.bincount(flat, minlength=num).tolist()
    return counts


@kernel("DynamicStitch")
@kernel("ParallelDynamicStitch")
def dynamic_stitch(node: Any, xp: Any) -> Compute:
    """Both ops compute the same: TF only leaves the winner of a repeated index unspecified
    for the parallel one."""
    n = int(node.attrs["N"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, data = ins[:n], ins[n:]
        tail = tuple(data[0].shape[indices[0].ndim :])
        flat_idx, rows = [], []
        for i, (idx, d) in enumerate(zip(indices, data)):
            if tuple(d.shape) != tuple(idx.shape) + tail:
                raise u.invalid(
                    f"data[{i}].shape = {u.shape_str(d.shape)} does not start with "
                    f"indices[{i}].shape = {u.shape_str(idx.shape)} followed by "
                    f"{u.shape_str(tail)}"
                )
            flat_idx.append(idx.reshape(-1).astype(np.int64))
            rows.append(d.reshape((-1, *tail)))
        all_idx = xp.concatenate(flat_idx)
        all_rows = xp.concatenate(rows)
        if all_idx.size and int(all_idx.min()) < 0:
            bad = int(xp.nonzero(all_idx < 0)[0][0])
            raise u.invalid(f"indices[{bad}] is out of range")
        size = int(all_idx.max()) + 1 if all_idx.size else 0
        # Rows no index names stay zero, as TF's kernels leave them.
        out = xp.zeros((size, *tail), dtype=data[0].dtype)
        # Later inputs win at a repeated index (numpy's fancy assignment writes in order;
        # on a GPU only each index's last row is written: _xp_util.scatter_last).
        u.scatter_last(xp, out, all_idx, all_rows)
        return (out,)

    return compute
