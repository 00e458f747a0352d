"""The Python functions that tf.py_func / tf.numpy_function / tf.py_function ops call, by token.

An op holds only a token ('pyfunc_3'); the function itself lives in this process's registry
(weakly: the graph that uses it keeps it alive, as TF's does). A kernel that runs in another
process (a task server the op was placed on) finds no function under the token.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any

# The graph attribute (a list) keeping the registered functions alive as long as the graph lives.
PY_FUNCS_USED_IN_GRAPH = "_py_funcs_used_in_graph"

_lock = threading.Lock()
_funcs: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_counter = itertools.count()
# Tokens of py_function ops whose gradient was built: their calls keep what was computed.
_record: set[str] = set()
# token -> (the eager graph of its latest call, its inputs, its outputs), for the gradient.
tape_cache: dict[str, Any] = {}


class _Entry:
    """What the registry holds: the function and how the kernel calls it."""

    __slots__ = ("__weakref__", "eager", "func", "is_grad_func")

    def __init__(self, func: Callable[..., Any], eager: bool, is_grad_func: bool) -> None:
        self.func = func
        self.eager = eager
        self.is_grad_func = is_grad_func


def register(
    func: Callable[..., Any], eager: bool = False, is_grad_func: bool = False
) -> tuple[str, Any]:
    """A new token for func; returns it and the entry the caller must keep alive."""
    entry = _Entry(func, eager, is_grad_func)
    with _lock:
        token = f"pyfunc_{next(_counter)}"
        _funcs[token] = entry
    return token, entry


def lookup(token: str) -> _Entry | None:
    return _funcs.get(token)


def record_calls(token: str) -> None:
    """Calls of this py_function keep their computation (its gradient was built)."""
    _record.add(token)


def records(token: str) -> bool:
    return token in _record


def size() -> int:
    return len(_funcs)
