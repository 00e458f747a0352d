"""Kernels that move entries without computing new ones, over xp: ReverseSequence (each
batch row's first seq_length entries reversed), Roll, and MatrixBandPart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("ReverseSequence")
def reverse_sequence(node: Any, xp: Any) -> Compute:
    seq_dim = int(node.attrs["seq_dim"])
    batch_dim = int(node.attrs.get("batch_dim", 0))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, lengths = ins
        rank = x.ndim
        if not (0 <= seq_dim < rank and 0 <= batch_dim < rank) or seq_dim == batch_dim:
            raise u.invalid(
                f"Invalid seq_dim {seq_dim} / batch_dim {batch_dim} for an input of rank {rank}"
            )
        if lengths.ndim != 1 or lengths.shape[0] != x.shape[batch_dim]:
            raise u.invalid(
                f"Length of seq_lengths != input.dims({batch_dim}): seq_lengths has shape "
                f"{u.shape_str(lengths.shape)}, input.dims({batch_dim}) = {x.shape[batch_dim]}"
            )
        n = x.shape[seq_dim]
        lens = lengths.astype(np.int64)
        bad = xp.nonzero((lens < 0) | (lens > n))[0]
        if bad.size:
            i = int(bad[0])
            raise u.invalid(f"seq_lens({i}) > input.dims({seq_dim}) ({int(lens[i])} vs. {n})")
        # source[b, j]: where entry j of row b comes from.
        j = xp.arange(n)[None, :]
        source = xp.where(j < lens[:, None], lens[:, None] - 1 - j, j)
        moved = xp.moveaxis(x, (batch_dim, seq_dim), (0, 1))
        index = source.reshape(source.shape + (1,) * (moved.ndim - 2))
        out = xp.take_along_axis(moved, index, axis=1)
        return (xp.ascontiguousarray(xp.moveaxis(out, (0, 1), (batch_dim, seq_dim))),)

    return compute


@kernel("Roll", host=(1, 2))
def roll(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, shift_t, axis_t = ins
        shifts, axes = u.host(shift_t), u.host(axis_t)
        if shifts.ndim > 1 or axes.ndim > 1 or shifts.shape != axes.shape:
            raise u.invalid(
                f"shift and axis must have the same size and be scalars or vectors, got "
                f"{u.shape_str(shifts.shape)} and {u.shape_str(axes.shape)}"
            )
        axis_list = [int(a) for a in axes.reshape(-1)]
        for a in axis_list:
            if not -x.ndim <= a < x.ndim:
                raise u.invalid(f"axis {a} is out of range for a tensor of rank {x.ndim}")
        if x.ndim == 0:
            return (x,)
        return (xp.roll(x, [int(s) for s in shifts.reshape(-1)], axis_list),)

    return compute


@kernel("MatrixBandPart", host=(1, 2))
def matrix_band_part(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, lower_t, upper_t = ins
        if x.ndim < 2:
            raise u.invalid(f"input must be at least 2-dim, received shape: {u.shape_str(x.shape)}")
        lower = u.host_int(lower_t, "num_lower")
        upper = u.host_int(upper_t, "num_upper")
        m, n = x.shape[-2:]
        if lower > m:
            raise u.invalid(
                f"num_lower must be negative or less or equal to number of rows ({m}) got: {lower}"
            )
        if upper > n:
            raise u.invalid(
                f"num_upper must be negative or less or equal to number of columns ({n}) got: "
                f"{upper}"
            )
        i = xp.arange(m)[:, None]
        j = xp.arange(n)[None, :]
        keep = xp.ones((m, n), dtype=bool)
        if lower >= 0:
            keep &= (i - j) <= lower
        if upper >= 0:
            keep &= (j - i) <= upper
        return (xp.where(keep, x, xp.zeros((), dtype=x.dtype)),)

    return compute
