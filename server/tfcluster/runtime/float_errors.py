"""numpy's floating-point warnings, silenced for a whole step rather than op by op.

TF returns inf/nan quietly, so the element-wise kernels must not warn. Entering
`np.errstate` costs about a microsecond, a lot for a kernel that itself takes a few (an RNN
step runs dozens): the executor silences them once per run, and kernels enter `np.errstate`
themselves only when they run outside one (`silenced()` is False).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np


class _State(threading.local):
    on = False  # the class's value until a thread sets its own


# Per thread: `state.on` is True inside `silence()`. The busiest kernels (an RNN body's
# element-wise ops) read it directly, a plain attribute read where silenced() adds a call.
state = _State()
_state = state
T = TypeVar("T")


def silenced() -> bool:
    """True while this thread runs inside `silence()` (numpy's error state is per thread)."""
    return _state.on


@contextlib.contextmanager
def silence() -> Iterator[None]:
    if _state.on:
        yield
        return
    with np.errstate(all="ignore"):
        _state.on = True
        try:
            yield
        finally:
            _state.on = False


def silence_thread() -> None:
    """Silences numpy's warnings for good on this thread: for the threads that only run
    pieces of kernels (the intra-op and inter-op pools), which no step's `silence()` covers
    (numpy's error state is per thread)."""
    np.seterr(all="ignore")
    _state.on = True


def call_silenced(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) inside `silence()`, for a fraction of its cost when already inside one (a
    loop body's executor runs inside its step's)."""
    if _state.on:
        return fn(*args)
    with np.errstate(all="ignore"):
        _state.on = True
        try:
            return fn(*args)
        finally:
            _state.on = False


__all__ = ["call_silenced", "silence", "silence_thread", "silenced", "state"]
