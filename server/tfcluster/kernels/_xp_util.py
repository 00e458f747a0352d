"""What the kernel bodies over xp of the math/linalg/segment/scatter families share.

numpy and cupy agree on almost everything; the few places they differ (unbuffered scatter
updates, read-only results) are bridged here so the bodies stay one piece of code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors


def invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def is_numpy(xp: Any) -> bool:
    return xp is np


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def host(value: Any) -> np.ndarray:
    """A value as a host numpy array (cupy arrays are copied back)."""
    if isinstance(value, np.ndarray):
        return value
    get = getattr(value, "get", None)
    if get is not None and not isinstance(value, np.generic):
        return np.asarray(get())
    return np.asarray(value)


def host_int(value: Any, what: str) -> int:
    arr = host(value)
    if arr.ndim != 0:
        raise invalid(f"{what} must be a scalar, but got shape {shape_str(arr.shape)}")
    return int(arr)


def host_ints(value: Any) -> list[int]:
    return [int(v) for v in host(value).reshape(-1)]


def np_dtype(node: Any, attr: str = "T") -> np.dtype[Any]:
    return np.dtype(node.attrs[attr].as_numpy_dtype)


def lowest(dtype: np.dtype[Any]) -> Any:
    """TF's Eigen::NumTraits<T>::lowest(): -inf is not used, the most negative finite value."""
    if dtype.kind == "f":
        return np.finfo(dtype).min
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def highest(dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "f":
        return np.finfo(dtype).max
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


# The dtypes cupy's ufunc.at scatters take (CUDA atomics: cupy raises TypeError for the
# others, int64 included); a body scatters other dtypes through one of these, exactly.
_CUPY_ADD_AT = frozenset(
    np.dtype(t) for t in ("int32", "uint32", "uint64", "float16", "float32", "float64")
)
_CUPY_MAX_MIN_AT = frozenset(
    np.dtype(t) for t in ("int32", "uint32", "uint64", "float32", "float64")
)
_SIGN_BIT = np.uint64(1 << 63)


def occurrence_rounds(index: np.ndarray) -> list[np.ndarray] | None:
    """Positions of a 1-D index grouped in rounds that name every value at most once: the
    k-th occurrence of each value in round k. None when no value repeats (one round)."""
    n = index.shape[0]
    if n <= 2048 and len(set(index.tolist())) == n:
        return None  # the usual case (rows summed first), checked the cheap way
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    first = np.ones(n, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    if first.all():
        return None
    starts = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    occurrence = np.empty(n, dtype=np.int64)
    occurrence[order] = np.arange(n) - starts
    return [np.nonzero(occurrence == k)[0] for k in range(int(occurrence.max()) + 1)]


# The dtypes of sparse training updates: _add_repeated_rows serves them (checked bit for bit
# against np.add.at); the others keep the rounds of occurrence_rounds.
def _add_rows_in_rounds(target: np.ndarray, index: np.ndarray, values: Any) -> bool:
    """target[index] += values for a 1-D index with a value row per entry, as np.add.at adds
    (each element in index order, so bit for bit the same) but vectorised: np.add.at goes
    element by element. False when it does not apply."""
    if index.ndim != 1 or index.dtype.kind not in "iu" or not index.size:
        return False
    values = np.asarray(values)
    if values.ndim == 0 or values.shape[0] != index.shape[0]:
        return False
    summable = (
        target.dtype.kind in "fiu"
        and values.dtype == target.dtype
        and values.shape[1:] == target.shape[1:]
    )
    elementwise = summable and target.dtype in _ELEMENTWISE and target.flags.c_contiguous
    if elementwise and target.ndim == 1:
        _add_elements(target, index, values)  # as fast as a plain `+=`: no need to ask first
        return True
    n = index.shape[0]
    if n <= 2048 and len(set(index.tolist())) == n:
        target[index] += values  # the usual case (rows summed first), checked the cheap way
        return True
    if summable:
        if elementwise and values.size <= _FLAT_ADD_AT_MAX:
            _add_elements(target, index, values)
        else:
            _add_repeated_rows(target, index, values)
        return True
    rounds = occurrence_rounds(index)
    if rounds is None:
        target[index] += values
        return True
    for at in rounds:
        target[index[at]] += values[at]
    return True


# Up to this many updated elements, np.add.at over the flat elements beats the passes of
# _add_repeated_rows (whose sorts cost ~30 us however few the rows; word2vec's sparse
# updates are 30-200 rows of 128); above it the passes win, 1.5-2x from 64K elements on.
_FLAT_ADD_AT_MAX = 32 << 10
# The dtypes whose flat np.add.at gives np.add.at's bits on rows (float16's differs, at times,
# where sums overflow).
_ELEMENTWISE = frozenset(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


def _add_elements(target: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """target[index] += values (target C-contiguous) by np.add.at over single elements: its
    fast loop for 1-D operands adds each element's updates in index order, as np.add.at on
    the rows does, but 2-20x faster than on rows (or a 1-D index of a vector)."""
    if target.ndim == 1:
        np.add.at(target, index, values)
        return
    width = target.size // target.shape[0] if target.shape[0] else 0
    at = (index.astype(np.int64, copy=False)[:, None] * width + np.arange(width)).reshape(-1)
    np.add.at(target.reshape(-1), at, values.reshape(-1))


def _add_repeated_rows(target: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """target[index] += values in index order, in a few whole-array operations. The touched
    rows are read once, most repeated first; pass k adds every row's k-th update (those rows
    with more than k updates: a prefix), so each row takes its updates in order, one at a
    time, as np.add.at adds them. (reduceat and sum may add pairwise, add.accumulate goes
    element by element: neither will do.)"""
    n = index.shape[0]
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    counts = np.diff(starts, append=n)
    by_count = np.argsort(-counts, kind="stable")
    rank = np.empty_like(by_count)
    rank[by_count] = np.arange(by_count.shape[0])
    group = np.cumsum(first) - 1
    k_th = np.arange(n) - starts[group]  # the how-manieth update of its row each one is
    passes = np.argsort(k_th * by_count.shape[0] + rank[group])
    updates = values[order[passes]]
    rows = ordered[starts[by_count]]
    total = target[rows]
    at = 0
    for size in np.bincount(k_th).tolist():
        np.add(total[:size], updates[at : at + size], out=total[:size])
        at += size
    target[rows] = total


def scatter_last(xp: Any, target: Any, index: Any, values: Any) -> None:
    """target[index] = values where a repeated index keeps its last value, on every device:
    numpy's fancy assignment writes in order, cupy's in no defined order."""
    if is_numpy(xp):
        target[index] = values
        return
    values = xp.broadcast_to(values, (index.shape[0], *target.shape[1:]))
    unique, first_from_end = xp.unique(index[::-1], return_index=True)
    target[unique] = values[index.shape[0] - 1 - first_from_end]


def scatter_add(xp: Any, target: Any, index: Any, values: Any) -> None:
    """target[index] += values, repeated indices accumulated (target C-contiguous)."""
    dtype = target.dtype
    if (
        is_numpy(xp)
        and isinstance(index, np.ndarray)
        and _add_rows_in_rounds(target, index, values)
    ):
        return
    if is_numpy(xp) or dtype in _CUPY_ADD_AT:
        xp.add.at(target, index, values)
    elif dtype.kind == "c":
        # Real and imaginary parts add up independently: each is scattered into its view of
        # target, in the order numpy's complex scatter adds them.
        values = values.astype(dtype, copy=False)
        parts = target.view(dtype.char.lower()).reshape((*target.shape, 2))
        xp.add.at(parts[..., 0], index, values.real)
        xp.add.at(parts[..., 1], index, values.imag)
    else:
        # Integers of any width: two's-complement sums agree with uint64 sums bit for bit, and
        # casting back wraps as TF's integer kernels do.
        total = xp.zeros(target.shape, dtype=np.uint64)
        xp.add.at(total, index, values.astype(np.int64).view(np.uint64))
        target[...] = (target.astype(np.int64) + total.view(np.int64)).astype(dtype)


def _scatter_extreme(xp: Any, name: str, target: Any, index: Any, values: Any) -> None:
    """target[index] = max (min) of itself and values, repeated indices included."""
    dtype = target.dtype
    ufunc = getattr(xp, name)
    if is_numpy(xp) or dtype in _CUPY_MAX_MIN_AT or dtype.kind not in "biuf":
        ufunc.at(target, index, values)
    elif dtype == np.int64:
        # Flipping the sign bit maps int64's order onto uint64's.
        keys = target.view(np.uint64) ^ _SIGN_BIT
        ufunc.at(keys, index, values.astype(np.int64).view(np.uint64) ^ _SIGN_BIT)
        target[...] = (keys ^ _SIGN_BIT).view(np.int64)
    else:
        # Half and the narrow integers through a wider type that holds each of their values.
        wide = np.dtype(np.float32 if dtype.kind == "f" else np.int32)
        work = target.astype(wide)
        ufunc.at(work, index, values.astype(wide))
        target[...] = work.astype(dtype)


# Rows this narrow are summed column by column with bincount, much faster on numpy than
# np.add.at (an unbuffered element-by-element update).
_BINCOUNT_MAX_COLUMNS = 64


def row_sums(xp: Any, rows: Any, ids: Any, num: int) -> Any:
    """sums[j] = sum of rows[i] with ids[i] == j, for rows [n, inner] of a real dtype, in
    float64 (out-of-place: the result is a new array)."""
    inner = rows.shape[1]
    n = rows.shape[0]
    if is_numpy(xp) and rows.dtype.kind in "biuf" and (n <= num or n * inner <= 1 << 16):
        # Few rows (a sparse gradient's, an embedding's), or many segments: sort the rows by
        # id and add each run up (the same float64 sums, in the same order, as bincount's),
        # instead of one pass over all segments per column.
        order = np.argsort(ids, kind="stable")
        ordered = ids[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        out = np.zeros((num, inner), dtype=np.float64)
        out[ordered[starts]] = np.add.reduceat(rows[order].astype(np.float64), starts, axis=0)
        return out
    if is_numpy(xp) and rows.dtype.kind in "biuf" and inner <= _BINCOUNT_MAX_COLUMNS:
        out = np.empty((num, inner), dtype=np.float64)
        for j in range(inner):
            out[:, j] = np.bincount(ids, weights=rows[:, j], minlength=num)[:num]
        return out
    out = xp.zeros((num, inner), dtype=np.float64)
    scatter_add(xp, out, ids, rows.astype(np.float64, copy=False))
    return out


def scatter_max(xp: Any, target: Any, index: Any, values: Any) -> None:
    _scatter_extreme(xp, "maximum", target, index, values)


def scatter_min(xp: Any, target: Any, index: Any, values: Any) -> None:
    _scatter_extreme(xp, "minimum", target, index, values)


def segmented_products(xp: Any, values: Any, segment: Any) -> Any:
    """Inclusive running products within runs of equal `segment` (rows of `values`, sorted by
    segment): log2(n) vectorised doubling steps, no Python loop over the elements."""
    out = values.copy()
    n = out.shape[0]
    shift = 1
    while shift < n:
        same = segment[shift:] == segment[:-shift]
        mask = same.reshape((-1,) + (1,) * (out.ndim - 1))
        prev = xp.where(mask, out[:-shift], xp.ones_like(out[:-shift]))
        out = xp.concatenate([out[:shift], out[shift:] * prev])
        shift *= 2
    return out


def read_only(xp: Any, value: Any) -> Any:
    """A new variable value on the CPU is frozen: no consumer may change it behind its back."""
    if is_numpy(xp):
        value.flags.writeable = False
    return value


def read_variable(xp: Any, ref: Any, node_name: str) -> Any:
    """A variable's current value, on the kernel's device."""
    value = ref.read(node_name)
    return value if is_numpy(xp) else xp.asarray(value)


def store_variable(xp: Any, ref: Any, value: Any) -> None:
    ref.value = read_only(xp, value)
    ref.generation += 1
