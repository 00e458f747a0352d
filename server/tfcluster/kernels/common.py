"""What kernel bodies of several op families share: TF's argument errors and their messages,
host-side reads of small inputs (shapes, axes, sizes), and results cast back to the node's
dtype. Every helper works the same for numpy and cupy values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.runtime import device_copy

Compute = Callable[[Any, list[Any]], Sequence[Any]]


def invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def shape_of(value: Any) -> tuple[int, ...]:
    """The shape of a host or device array (or a Python scalar) without copying it."""
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None else np.shape(value)


def host_array(value: Any) -> np.ndarray:
    """A numpy view of a host value, or a numpy copy of a device array (error messages)."""
    return np.asarray(device_copy.to_host(value))


def host_ints(value: Any) -> list[int]:
    """A host input (a shape, axes, sizes) as Python ints."""
    arr = np.asarray(value).reshape(-1)
    values: list[int] = arr.tolist()  # already ints for integer dtypes: the common case
    return values if arr.dtype.kind in "iu" else [int(v) for v in values]


def scalar_int(value: Any, what: str) -> int:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid(f"{what} must be a scalar, but got shape {list(arr.shape)}")
    return int(arr)


def axis_in(value: Any, rank: int, what: str = "axis") -> int:
    """A scalar axis input in [-rank, rank), made non-negative."""
    axis = scalar_int(value, what)
    if not -rank <= axis < rank:
        raise invalid(f"Expected {what} in the range [{-rank}, {rank}), but got {axis}")
    return axis + rank if axis < 0 else axis


def scalar_value(value: Any) -> np.ndarray:
    """A host scalar input (a fill value, on/off values) as a 0-d numpy array."""
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid(f"value must be a scalar, got shape {shape_str(arr.shape)}")
    return arr


def np_dtype(node: Any, attr: str = "T") -> np.dtype[Any]:
    return np.dtype(node.attrs[attr].as_numpy_dtype)


def typed(node: Any, xp: Any, attr: str = "T") -> Callable[[Any], Any]:
    """Casts a result back to the node's dtype attr (numpy and cupy may promote through
    Python floats); numpy scalars become 0-d arrays."""
    want = np_dtype(node, attr)

    def cast(value: Any) -> Any:
        out = xp.asarray(value)
        return out if out.dtype == want else out.astype(want)

    return cast


def frozen(value: Any) -> Any:
    """A numpy value handed out every step, or held by a variable, made read-only so that no
    consumer or client changes it; cupy arrays have no such flag (a device value leaves its
    device only as a copy)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    return value


def unchanging(value: Any) -> bool:
    """A numpy array nobody can change: read-only and owning its memory (Const values, the
    shapes Shape hands out). Such an array seen again (the same object) holds the same
    values, so a kernel may reuse what it worked out from it (an RNN's loop body meets the
    same shape arrays every iteration)."""
    return type(value) is np.ndarray and not value.flags.writeable and value.flags.owndata


class LastHostInputs:
    """What a kernel worked out from its host inputs (shapes, slice specs), kept for the next
    call that passes the very same unchanging arrays (`unchanging`); the arrays are held, so
    their ids are not reused and no in-place write of a variable's array can change them.
    Inputs and result are kept as one tuple, so a step running the same kernel on another
    thread never sees the one without the other."""

    __slots__ = ("_entry",)

    def __init__(self) -> None:
        self._entry: tuple[tuple[Any, ...], Any] | None = None

    def get(self, *values: Any) -> Any:
        """The kept result when `values` are the arrays it was worked out from, else None."""
        entry = self._entry
        if entry is None:
            return None
        kept, result = entry
        if len(kept) != len(values):
            return None
        for a, b in zip(kept, values):
            if a is not b:
                return None
        return result

    def keep(self, values: tuple[Any, ...], result: Any) -> None:
        for v in values:
            if not unchanging(v):
                return
        self._entry = (values, result)
