"""The kernels of SparseConditionalAccumulator and the resource it keeps, as TF 1.15's: each
gradient's rows are merged into the accumulated ones by one pass over both lists of row
numbers (the lower number first; equal numbers add up and count one more gradient), so rows
arrive in that merged order, repeated numbers within a gradient stay separate rows, and each
row is averaged over its own count when taken. Step, count, cancellation and closing are the
dense accumulator's (kernels/data_flow.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.data_flow import (
    AccumulatorResource,
    _log,
    accumulator_creator,
    accumulator_input,
)
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import wait_until


class SparseAccumulatorResource(AccumulatorResource):
    def __init__(self, name: str, dtype: Any, shape: TensorShape, reduction: str) -> None:
        super().__init__(name, dtype, shape, reduction)
        self._reset()

    def _reset(self) -> None:
        self._rows = np.zeros(0, dtype=np.int64)
        self._values: np.ndarray | None = None  # [len(rows), ...] sums
        self._counts = np.zeros(0, dtype=np.int64)
        self._dense_shape: np.ndarray | None = None

    def apply_rows(
        self, local_step: int, indices: Any, values: Any, dense_shape: Any, known: bool
    ) -> None:
        rows = np.asarray(indices, dtype=np.int64).reshape(-1)
        vals = np.asarray(values, dtype=self.np_dtype)
        self._check(rows, vals)
        with self._cond:
            if self._values is not None and self._values.shape[1:] != vals.shape[1:]:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Shape mismatch: rows of shape {list(vals.shape[1:])} added to rows of "
                    f"shape {list(self._values.shape[1:])} (accumulator {self.name})",
                )
            if local_step < self.global_step:
                _log.debug(
                    "Dropped a stale gradient in %s: local step %d < global step %d",
                    self.name,
                    local_step,
                    self.global_step,
                )
                return
            self._merge(rows, vals)
            if known:
                self._dense_shape = np.asarray(dense_shape, dtype=np.int64).copy()
            self.count += 1
            self._cond.notify_all()

    def _merge(self, rows: np.ndarray, vals: np.ndarray) -> None:
        """TF's merge: walk both row lists, taking the lower number first; equal numbers
        become one row with both values added and one more gradient counted."""
        old, new = self._rows.tolist(), rows.tolist()
        from_old: list[int] = []
        from_new: list[int] = []
        i = j = 0
        while i < len(old) and j < len(new):
            if old[i] < new[j]:
                from_old.append(i)
                from_new.append(-1)
                i += 1
            elif old[i] > new[j]:
                from_old.append(-1)
                from_new.append(j)
                j += 1
            else:
                from_old.append(i)
                from_new.append(j)
                i += 1
                j += 1
        from_old.extend(range(i, len(old)))
        from_new.extend([-1] * (len(old) - i))
        from_old.extend([-1] * (len(new) - j))
        from_new.extend(range(j, len(new)))
        src_old = np.asarray(from_old, dtype=np.int64)
        src_new = np.asarray(from_new, dtype=np.int64)
        has_old, has_new = src_old >= 0, src_new >= 0
        merged = np.zeros((src_old.size, *vals.shape[1:]), dtype=self.np_dtype)
        counts = np.zeros(src_old.size, dtype=np.int64)
        if self._values is not None:
            merged[has_old] = self._values[src_old[has_old]]
            counts[has_old] = self._counts[src_old[has_old]]
        merged[has_new] += vals[src_new[has_new]]
        counts[has_new] += 1
        merged_rows = np.empty(src_old.size, dtype=np.int64)
        merged_rows[has_old] = self._rows[src_old[has_old]]
        merged_rows[has_new] = rows[src_new[has_new]]
        self._rows, self._values, self._counts = merged_rows, merged, counts

    def _check(self, rows: np.ndarray, vals: np.ndarray) -> None:
        if vals.ndim < 1 or vals.shape[0] != rows.size:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Indices and values must have the same first dimension: {rows.size} indices, "
                f"values of shape {list(vals.shape)} (accumulator {self.name})",
            )
        want = self.shape.as_list() if self.shape.ndims else None
        if want and want[0] is not None and rows.size and int(rows.max()) >= want[0]:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shape mismatch: index {int(rows.max())} is out of [0, {want[0]}) "
                f"(accumulator {self.name})",
            )
        if (
            want
            and len(want) > 1
            and not TensorShape(want[1:]).is_compatible_with(TensorShape(list(vals.shape[1:])))
        ):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shape mismatch: expected rows of shape {want[1:]}, got {list(vals.shape[1:])} "
                f"(accumulator {self.name})",
            )
        if rows.size and int(rows.min()) < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Negative index {int(rows.min())} (accumulator {self.name})"
            )

    def take_rows(self, ctx: Any, num_required: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}"
            )
        with self._cond:
            generation = self._cancel_generation
            wait_until(
                self._cond,
                lambda: (
                    self.count >= num_required
                    or self._closed
                    or self._cancel_generation != generation
                ),
                ctx,
            )
            if self._closed or self._cancel_generation != generation:
                raise errors.CancelledError(
                    None,
                    None,
                    f"take_grad on SparseConditionalAccumulator {self.name} was cancelled",
                )
            rows = self._rows
            values = self._values if self._values is not None else np.zeros((0,), self.np_dtype)
            counts, dense_shape = self._counts, self._dense_shape
            self._reset()
            self.count = 0
            self.global_step += 1
        if self.reduction == "MEAN" and rows.size:
            per_row = counts.reshape((-1,) + (1,) * (values.ndim - 1)).astype(values.dtype)
            values = (values / per_row).astype(self.np_dtype, copy=False)
        if dense_shape is None:
            # No gradient said: the accumulator's shape, or [-1] when it has no dimensions.
            known = self.shape.as_list() if self.shape.ndims else [None]
            dense_shape = np.asarray([-1 if d is None else d for d in known], dtype=np.int64)
        return rows, values, dense_shape


def _sparse_accumulator(ins: list[Any], node_name: str) -> SparseAccumulatorResource:
    acc: SparseAccumulatorResource = accumulator_input(
        ins, node_name, SparseAccumulatorResource, "a sparse accumulator"
    )
    return acc


@kernel("SparseConditionalAccumulator", devices=CPU_ONLY)
def sparse_conditional_accumulator(node: Any, xp: Any) -> Any:
    return accumulator_creator(node, SparseAccumulatorResource)


@kernel("SparseAccumulatorApplyGradient", devices=CPU_ONLY)
def sparse_accumulator_apply_gradient(node: Any, xp: Any) -> Any:
    known = bool(node.attrs.get("has_known_shape", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        acc = _sparse_accumulator(ins, node.name)
        acc.apply_rows(int(np.asarray(ins[1])), ins[2], ins[3], ins[4], known)
        return ()

    return compute


@kernel("SparseAccumulatorTakeGradient", devices=CPU_ONLY)
def sparse_accumulator_take_gradient(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        acc = _sparse_accumulator(ins, node.name)
        return acc.take_rows(ctx, int(np.asarray(ins[1])))

    return compute
