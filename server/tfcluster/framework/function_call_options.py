"""Options of the function calls a thread adds to graphs (TF's context.function_call_options):
the executor type, which tf.experimental.function_executor_type sets for the calls made in
its scope and which each call op records in its `executor_type` attr.

tfcluster has one executor: a call runs its body the same way whatever type it names, as
TF 1.15's graph-mode calls of a named executor type ran (Grappler inlines them)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_local = threading.local()


def executor_type() -> str:
    """The executor type of calls made now ("" for the default)."""
    return str(getattr(_local, "executor_type", "") or "")


@contextlib.contextmanager
def function_executor_type(executor_type: str) -> Iterator[None]:
    """Calls of functions made in this scope name `executor_type` (their executor_type attr);
    the type of the enclosing scope comes back on exit."""
    old = getattr(_local, "executor_type", None)
    _local.executor_type = executor_type
    try:
        yield
    finally:
        _local.executor_type = old


__all__ = ["executor_type", "function_executor_type"]
