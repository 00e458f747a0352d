"""EditDistance: the Levenshtein distance of each pair of sequences of two SparseTensors
(grouped by every index but the last), one vectorised dynamic-programming row at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import CPU_ONLY, kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def levenshtein(a: np.ndarray, b: np.ndarray) -> int:
    """Insertions, deletions and substitutions turning a into b. A row's insertions are a
    running minimum: row[j] = min_k (base[k] + j - k)."""
    if a.size == 0 or b.size == 0:
        return int(max(a.size, b.size))
    steps = np.arange(b.size + 1)
    row = steps.copy()
    for i in range(a.size):
        base = np.empty_like(row)
        base[0] = i + 1
        # Deletion of a[i] (row above + 1) or substitution (diagonal + mismatch).
        base[1:] = np.minimum(row[1:] + 1, row[:-1] + (b != a[i]))
        row = np.minimum.accumulate(base - steps) + steps
    return int(row[-1])


def _groups(indices: np.ndarray, values: np.ndarray) -> dict[tuple[int, ...], np.ndarray]:
    """Sequence of values per leading index, in the order the entries come (TF expects the
    SparseTensors ordered)."""
    if indices.shape[0] == 0:
        return {}
    keys = indices[:, :-1]
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    out = {}
    for g in range(first.size):
        out[tuple(int(k) for k in keys[first[g]])] = values[inverse.reshape(-1) == g]
    return out


def _check(indices: np.ndarray, values: np.ndarray, shape: np.ndarray, what: str) -> None:
    if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
        raise u.invalid(f"{what}: indices must be a matrix, values and shape vectors")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise u.invalid(
            f"{what}: indices {u.shape_str(indices.shape)} do not fit values "
            f"{u.shape_str(values.shape)} and shape {u.shape_str(shape.shape)}"
        )
    if indices.size and np.any((indices < 0) | (indices >= shape)):
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
        out = np.zeros(out_shape, dtype=np.float32)
        hyp, truth = _groups(hi, hv), _groups(ti, tv)
        for key in hyp.keys() | truth.keys():
            h, t = hyp.get(key), truth.get(key)
            if t is None:
                dist = float(h.size)  # type: ignore[union-attr]
                out[key] = np.inf if normalize and dist else dist
            elif h is None:
                out[key] = 1.0 if normalize else float(t.size)
            else:
                dist = float(levenshtein(h, t))
                out[key] = dist / t.size if normalize else dist
        return (out,)

    return compute
