"""TF's CancellationManager: callbacks that cancel a step's work, run once when the step is
cancelled (its caller went away, its session closed, another partition failed), and the
manager of the call the current thread serves, for the code that starts steps.

A transport makes one manager per call (a streaming call carries many steps, one at a time),
cancels it when the call ends early, and runs the call's work inside `serving(manager)`;
a master or worker that starts a step registers how to cancel it with `current()`.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any


class CancellationManager:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[[], Any]] = {}
        self._ids = itertools.count()
        self._cancelled = False

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def register(self, callback: Callable[[], Any]) -> int | None:
        """A token to deregister `callback` with; None if cancelled already (then the
        callback has run, here)."""
        with self._lock:
            if not self._cancelled:
                token = next(self._ids)
                self._callbacks[token] = callback
                return token
        callback()
        return None

    def deregister(self, token: int | None) -> None:
        if token is not None:
            with self._lock:
                self._callbacks.pop(token, None)

    def start_cancel(self) -> None:
        """Runs every registered callback, once; later registrations run at once."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks, self._callbacks = list(self._callbacks.values()), {}
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()

    @contextlib.contextmanager
    def registered(self, callback: Callable[[], Any]) -> Iterator[None]:
        token = self.register(callback)
        try:
            yield
        finally:
            self.deregister(token)


_serving: ContextVar[CancellationManager | None] = ContextVar("serving", default=None)


def current() -> CancellationManager | None:
    """The manager of the call this thread serves (None: no caller to lose)."""
    return _serving.get()


@contextlib.contextmanager
def serving(manager: CancellationManager) -> Iterator[None]:
    reset = _serving.set(manager)
    try:
        yield
    finally:
        _serving.reset(reset)


def for_call(context: Any) -> CancellationManager:
    """A manager cancelled when the call of a gRPC or direct servicer context ends (the
    caller cancelled it, hung up, or its deadline passed; after a normal end, nothing is
    registered any more)."""
    manager = CancellationManager()
    if context is not None and not context.add_callback(manager.start_cancel):
        manager.start_cancel()
    return manager
