"""EditDistance: the Levenshtein distance of each pair of sequences of two SparseTensors (the
entries sharing all but the last index, in their order), computed by rapidfuzz's C++ edit
distance. A host kernel."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import CPU_ONLY, kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _linear(indices: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    """Each entry's group as a flat position in the output."""
    if not out_shape:
        return np.zeros(indices.shape[0], np.int64)
    return np.ravel_multi_index(tuple(indices[:, :-1].T), out_shape).astype(np.int64)


def _sequences(
    indices: np.ndarray, values: np.ndarray, out_shape: tuple[int, ...], keys: np.ndarray
) -> list[list[Any]]:
    """The values of each group in `keys` (sorted flat positions), in the entries' order."""
    group = np.searchsorted(keys, _linear(indices, out_shape))
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group, minlength=keys.size)
    ordered = values[order].tolist()
    bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return [ordered[lo:hi] for lo, hi in itertools.pairwise(bounds)]


def _check(indices: np.ndarray, values: np.ndarray, shape: np.ndarray, what: str) -> None:
    if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
        raise u.invalid(f"{what}: indices must be a matrix, values and shape vectors")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise u.invalid(
            f"{what}: indices {u.shape_str(indices.shape)} do not fit values "
            f"{u.shape_str(values.shape)} and shape {u.shape_str(shape.shape)}"
        )
    # Only the leading indices place an entry; TF reads the last one for nothing but order,
    # so sequences longer than the shape's last dimension are taken as they are.
    lead, bounds = indices[:, :-1], shape[:-1]
    if lead.size and np.any((lead < 0) | (lead >= bounds)):
        raise u.invalid(f"{what}: an index lies outside the shape {u.shape_str(shape.tolist())}")


@kernel("EditDistance", devices=CPU_ONLY)
def edit_distance(node: Any, xp: Any) -> Compute:
    normalize = bool(node.attrs["normalize"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        hi, hv, hs, ti, tv, ts = (np.asarray(v) for v in ins)
        _check(hi, hv, hs, "hypothesis")
        _check(ti, tv, ts, "truth")
        if hs.shape != ts.shape:
            raise u.invalid(
                f"hypothesis_shape and truth_shape must have the same rank, got {hs.shape[0]} "
                f"and {ts.shape[0]}"
            )
        if hs.shape[0] < 1:
            raise u.invalid("The sparse tensors must have rank at least 1")
        out_shape = tuple(int(d) for d in np.maximum(hs, ts)[:-1])
        out = np.zeros(int(np.prod(out_shape, dtype=np.int64)), dtype=np.float32)
        keys = np.union1d(_linear(hi, out_shape), _linear(ti, out_shape))
        if keys.size:
            hyp = _sequences(hi, hv, out_shape, keys)
            truth = _sequences(ti, tv, out_shape, keys)
            dist = np.array(
                [Levenshtein.distance(h, t) for h, t in zip(hyp, truth, strict=True)],
                dtype=np.float32,
            )
            if normalize:
                t_len = np.array([len(t) for t in truth], dtype=np.float32)
                # An empty truth: 0 for an empty hypothesis too, else infinity.
                empty = np.where(dist > 0, np.float32(np.inf), np.float32(0))
                dist = np.where(t_len > 0, dist / np.maximum(t_len, 1), empty)
            out[keys] = dist
        return (out.reshape(out_shape),)

    return compute
