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


def get_default_session_or_raise(graph: Any, operation: bool = False) -> Any:
    """The default session, checked to run `graph`: what `eval()` (or an operation's `run()`,
    `operation=True`) without a session use; TF's messages for each."""
    sess = get_default_session()
    if sess is None:
        if operation:
            raise ValueError(
                "Cannot execute operation using `run()`: No default session is registered. "
                "Use `with sess.as_default():` or pass an explicit session to "
                "`run(session=sess)`"
            )
        raise ValueError(
            "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
        )
    if sess.graph is not graph:
        if operation:
            raise ValueError(
                "Cannot use the default session to execute operation: the operation's graph "
                "is different from the session's graph. Pass an explicit session to "
                "run(session=sess)."
            )
        raise ValueError(
            "Cannot use the default session to evaluate tensor: the tensor's graph is "
            "different from the session's graph. Pass an explicit session to "
            "`eval(session=sess)`."
        )
    return sess


def session_for(graph: Any, session: Any, operation: bool = False) -> Any:
    """The session `eval()` / an operation's `run()` uses: the given one, checked to run
    `graph` (TF's message), else the default one (get_default_session_or_raise)."""
    if session is None:
        return get_default_session_or_raise(graph, operation)
    if session.graph is not graph:
        what = (
            "execute operation: the operation's" if operation else "evaluate tensor: the tensor's"
        )
        raise ValueError(
            f"Cannot use the given session to {what} graph is different from the session's graph."
        )
    return session


def push_default_session(session: Any) -> None:
    _default_session_stack.stack.append(session)


def pop_default_session(session: Any) -> None:
    """Removes `session` when it is the innermost default (a stale exit leaves others alone)."""
    stack = _default_session_stack.stack
    if stack and stack[-1] is session:
        stack.pop()
