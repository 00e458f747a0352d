"""The default-session stack: the session `Tensor.eval()` and `Operation.run()` run on.

It lives in framework beside the default-graph stack, as TF keeps it in its ops.py, so the
graph reaches a session only through this stack and never imports the client that makes them.
Sessions push themselves here (`with sess.as_default():`); the stack is per thread, as in TF.
"""

from __future__ import annotations

import threading
from typing import Any


class _DefaultSessionStack(threading.local):
    def __init__(self) -> None:
        self.stack: list[Any] = []


_default_session_stack = _DefaultSessionStack()


def get_default_session() -> Any:
    """The innermost session made default in this thread, or None."""
    stack = _default_session_stack.stack
    return stack[-1] if stack else None


def get_default_session_or_raise(graph: Any) -> Any:
    """The default session, checked to run `graph`: what `eval()`/`run()` without a session use."""
    sess = get_default_session()
    if sess is None:
        raise ValueError(
            "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
        )
    if sess.graph is not graph:
        raise ValueError(
            "Cannot use the default session to evaluate tensor: the tensor's graph is "
            "different from the session's graph."
        )
    return sess


def push_default_session(session: Any) -> None:
    _default_session_stack.stack.append(session)


def pop_default_session(session: Any) -> None:
    """Removes `session` when it is the innermost default (a stale exit leaves others alone)."""
    stack = _default_session_stack.stack
    if stack and stack[-1] is session:
        stack.pop()
