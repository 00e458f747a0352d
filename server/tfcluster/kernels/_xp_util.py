"""What the kernel bodies over xp of the math/linalg/segment/scatter families share.

numpy and cupy agree on almost everything; the few places they differ (unbuffered scatter
updates, read-only results) are bridged here so the bodies stay one piece of code.
"""

from __future__ import annotations

import importlib
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


def _cupyx() -> Any:
    return importlib.import_module("cupyx")


def scatter_add(xp: Any, target: Any, index: Any, values: Any) -> None:
    """target[index] += values, repeated indices accumulated."""
    if is_numpy(xp):
        np.add.at(target, index, values)
    else:
        _cupyx().scatter_add(target, index, values)


# Rows this narrow are summed column by column with bincount, much faster on numpy than
# np.add.at (an unbuffered element-by-element update).
_BINCOUNT_MAX_COLUMNS = 64


def row_sums(xp: Any, rows: Any, ids: Any, num: int) -> Any:
    """sums[j] = sum of rows[i] with ids[i] == j, for rows [n, inner] of a real dtype, in
    float64 (out-of-place: the result is a new array)."""
    inner = rows.shape[1]
    if is_numpy(xp) and rows.dtype.kind in "biuf" and inner <= _BINCOUNT_MAX_COLUMNS:
        out = np.empty((num, inner), dtype=np.float64)
        for j in range(inner):
            out[:, j] = np.bincount(ids, weights=rows[:, j], minlength=num)[:num]
        return out
    out = xp.zeros((num, inner), dtype=np.float64)
    scatter_add(xp, out, ids, rows.astype(np.float64, copy=False))
    return out


def scatter_max(xp: Any, target: Any, index: Any, values: Any) -> None:
    if is_numpy(xp):
        np.maximum.at(target, index, values)
    else:
        _cupyx().scatter_max(target, index, values)


def scatter_min(xp: Any, target: Any, index: Any, values: Any) -> None:
    if is_numpy(xp):
        np.minimum.at(target, index, values)
    else:
        _cupyx().scatter_min(target, index, values)


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
