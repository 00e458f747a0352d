"""tf.train.basic_train_loop: the simplest training loop over a Supervisor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import errors


def basic_train_loop(
    supervisor: Any,
    train_step_fn: Callable[..., Any],
    args: Sequence[Any] | None = None,
    kwargs: dict[str, Any] | None = None,
    master: str = "",
) -> None:
    """Calls train_step_fn(session, *args, **kwargs) until the supervisor says stop, in a
    managed session; an AbortedError (a task restarted) starts a new session and goes on."""
    args = list(args or [])
    kwargs = dict(kwargs or {})
    while True:
        try:
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
            return
        except errors.AbortedError:
            continue


__all__ = ["basic_train_loop"]
