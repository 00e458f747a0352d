"""Writing a variable's rows in place, as TF's sparse updates do, without surprising a reader.

A variable's value is an array that readers may hold: a fetch on its way to a client, a tensor
a step has not consumed yet, an earlier step's read. Dense updates swap in a new array, so
such readers keep a consistent snapshot. A sparse update touches a few rows of what may be a
huge array (an embedding), so copying the whole array to change 128 rows is what it must not
do: it writes the rows in place when nothing but the variable holds the array, and makes one
private copy (which becomes the variable's value) only when something else does. Python's
reference count says which: the variable's slot is the only reference to an array no one
else holds (the executor drops a step's values after their last consumer).

Sparse updates of one variable from several steps at once (asynchronous workers, without
use_locking) write the same array together, as TF's do: once one of them writes an array in
place, the others join it rather than count it as held by someone else (each would otherwise
copy the whole table). It is read-only again when the last of them is done.

A reader that holds a big array for a moment (another step's gather of a few rows, on a ps
that serves several workers) would make each update that meets it copy the whole table,
hundreds of milliseconds for an embedding; so an update of a big array first waits a little
(bounded by a fraction of what the copy would cost) for such readers to let go, and copies
only if one still holds it then.
"""

from __future__ import annotations

import sys
import time
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

# Counts finished in-place writes of any variable: what is derived from a variable's array and
# kept across steps (a matmul's cached transpose) is stale once it moves.
_write_epoch = 0


def write_epoch() -> int:
    return _write_epoch


# Arrays from this size wait for passing readers before being copied, for at most the time
# a copy would take at this rate (and never longer than the cap).
_WAIT_FROM_BYTES = 1 << 20
_COPY_BYTES_PER_SECOND = 2e9
_WAIT_CAP_SECONDS = 0.05


def writable_value(xp: Any, ref: VariableRef, node_name: str) -> Any:
    """The variable's value, an array the caller may write in place: the variable's own array
    when nothing else holds it (or other updates are writing it in place now), else a copy
    that becomes the variable's value. The caller holds the variable's lock when the update
    asks for one, and calls `done` with the array after writing."""
    deadline: float | None = None
    while True:
        with ref.writes_lock:
            if ref.value is None:
                ref.read(node_name)  # raises FailedPreconditionError, naming the variable/node
            writes = ref.writes
            if writes is not None and writes[0] == id(ref.value):
                ref.writes = (writes[0], writes[1] + 1)
                return ref.value
            held_big = _holders(ref) > _SOLE and _copy_seconds(ref.value) > 0
            if held_big and deadline is None:
                deadline = time.monotonic() + _copy_seconds(ref.value)
            if not held_big or deadline is None or time.monotonic() >= deadline:
                value = _own_value(xp, ref)
                ref.writes = (id(value), 1)
                return value
        # Let go of the lock and look again: a passing reader may leave meanwhile.
        time.sleep(0.0002)


def _copy_seconds(value: Any) -> float:
    """How long an update may wait for readers of `value` rather than copy it (0: copy)."""
    if not isinstance(value, np.ndarray) or value.nbytes < _WAIT_FROM_BYTES:
        return 0.0
    return min(_WAIT_CAP_SECONDS, value.nbytes / _COPY_BYTES_PER_SECOND)


def _own_value(xp: Any, ref: VariableRef) -> Any:
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


def done(ref: VariableRef, value: Any) -> None:
    """After an in-place write of `value` (from writable_value): readers from now on see the
    new rows; once no update writes it, a numpy value is read-only again, so that no consumer
    or client changes it."""
    global _write_epoch
    with ref.writes_lock:
        writes = ref.writes
        if writes is None or writes[0] != id(value):
            return  # a dense assignment swapped in another array meanwhile
        if writes[1] > 1:
            ref.writes = (writes[0], writes[1] - 1)
            return
        ref.writes = None
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        ref.generation += 1
        _write_epoch += 1


def _unfreeze(value: np.ndarray) -> bool:
    try:
        value.flags.writeable = True
    except ValueError:  # a read-only buffer underneath (bytes received from the wire)
        return False
    return True
