"""Python callables that a graph names by token: ops whose kernels call back into the process
that built the graph (Dataset.from_generator) look them up here. A graph that names one can
only run in that process, as TensorFlow's py_func."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

_lock = threading.Lock()
_callables: dict[str, Callable[..., Any]] = {}
_ids = itertools.count()


def register(fn: Callable[..., Any], prefix: str = "pyfunc") -> str:
    """Keeps `fn` for the life of the process; returns its token."""
    with _lock:
        token = f"{prefix}_{next(_ids)}"
        _callables[token] = fn
    return token


def lookup(token: str) -> Callable[..., Any] | None:
    return _callables.get(token)
