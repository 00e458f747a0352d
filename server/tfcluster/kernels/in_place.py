"""Writing a variable's rows in place, as TF's sparse updates do, without surprising a reader.

A variable's value is an array that readers may hold: a fetch on its way to a client, a tensor
a step has not consumed yet, an earlier step's read. Dense updates swap in a new array, so
such readers keep a consistent snapshot. A sparse update touches a few rows of what may be a
huge array (an embedding), so copying the whole array to change 128 rows is what it must not
do: it writes the rows in place when nothing but the variable holds the array, and makes one
private copy (which becomes the variable's value) only when something else does. Python's
reference count says which: the variable's slot is the only reference to an array no one
else holds (the executor drops a step's values after their last consumer).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tfcluster.runtime.resources import VariableRef


def _holders(ref: VariableRef) -> int:
    return sys.getrefcount(ref.value)


def _calibrate() -> int:
    """What _holders counts for an array that only its variable holds, on this interpreter."""
    probe = VariableRef("probe", None, None)
    probe.value = np.empty(0)
    return _holders(probe)


_SOLE = _calibrate()


def writable_value(xp: Any, ref: VariableRef, node_name: str) -> Any:
    """The variable's value, an array the caller may write in place: the variable's own array
    when nothing else holds it, else a copy that becomes the variable's value. The caller
    holds the variable's lock when the update asks for one, and calls `done` after writing."""
    if ref.value is None:
        ref.read(node_name)  # raises FailedPreconditionError, naming the variable and node
    if _holders(ref) <= _SOLE:
        value = ref.value
        owned = value.base is None and value.flags.c_contiguous
        if isinstance(value, np.ndarray) and xp is np:
            if owned and _unfreeze(value):
                return value
        elif xp is not np and not isinstance(value, np.ndarray) and owned:
            return value
    # Another holder, a view of someone else's buffer, or a value on the other device: one
    # private C-contiguous copy (row views of it are then views, not copies).
    fresh = xp.array(ref.value, copy=True, order="C")
    ref.value = fresh
    return fresh


def done(ref: VariableRef) -> None:
    """After an in-place write: readers from now on see the new rows; a numpy value is
    read-only again, so that no consumer or client changes it."""
    value = ref.value
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    ref.generation += 1


def _unfreeze(value: np.ndarray) -> bool:
    try:
        value.flags.writeable = True
    except ValueError:  # a read-only buffer underneath (bytes received from the wire)
        return False
    return True
