"""TF 1.15's deprecation decorator for functions outside the public v1 namespace's table (the
MNIST tutorial reader, tf.test.TestCase's test_session): the first call, whoever makes it (a
program, a tfcluster function, contextlib entering a context manager), prints "From <caller's
file>:<line>: <name> (from <module>) is deprecated and will be removed in a future
version.\\nInstructions for updating:\\n<instructions>", and no later call does."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from tfcluster.framework import deprecation_switch
from tfcluster.framework.python37_lines import as_given, python37_line
from tfcluster.lib.platform import tf_logging

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_announced: set[tuple[str, str]] = set()
_lock = threading.Lock()


def deprecated(qualified: str, module: str, instructions: str) -> Callable[[_Fn], _Fn]:
    """The decorator: `qualified` and `module` as TF's warning names them."""

    def wrap(fn: _Fn) -> _Fn:
        key = (qualified, module)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not deprecation_switch.printing():
                return fn(*args, **kwargs)
            with _lock:
                first = key not in _announced
                _announced.add(key)
            if first:
                frame = sys._getframe(1)
                tf_logging.warning(
                    "From %s:%d: %s (from %s) is deprecated and will be removed in a future "
                    "version.\nInstructions for updating:\n%s",
                    as_given(frame.f_code.co_filename),
                    python37_line(frame),
                    qualified,
                    module,
                    instructions,
                )
            return fn(*args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap
