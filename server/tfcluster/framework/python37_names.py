"""Python 3.7 names TF1 programs use, given back on the Python tfcluster runs on.

TF 1.15 runs on Python 3.5-3.7, so every TF1 program was written for one of them. Some names
those programs use were removed later: `time.clock()` timing a training loop (3.8),
`collections.Iterable`/`Mapping`/... in isinstance checks (3.10), `inspect.getargspec` in
helpers that inspect a model function (3.11), `thread.isAlive()` on queue-runner threads,
`base64.encodestring` and `fractions.gcd` (3.9). Under a current Python such a program stops
at an AttributeError that has nothing to do with TensorFlow. Each name is set to what Python
3.7 had, only where the running Python lacks it.
"""

from __future__ import annotations

import base64
import collections
import collections.abc
import fractions
import inspect
import math
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

# What `collections.X` still gave on 3.7 (collections.abc's names then; later ones stay out).
_COLLECTIONS_ABCS = (
    "Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable",
    "Iterable", "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable",
    "Collection", "Set", "MutableSet", "Mapping", "MutableMapping", "MappingView", "KeysView",
    "ItemsView", "ValuesView", "Sequence", "MutableSequence", "ByteString",
)  # fmt: skip


class ArgSpec(NamedTuple):
    """Python 3.7's inspect.ArgSpec."""

    args: list[str]
    varargs: str | None
    keywords: str | None
    defaults: tuple[Any, ...] | None


def _getargspec(func: Callable[..., Any]) -> ArgSpec:
    # As 3.7's: functions with keyword-only parameters or annotations are refused.
    spec = inspect.getfullargspec(func)
    if spec.kwonlyargs or spec.annotations:
        raise ValueError(
            "Function has keyword-only parameters or annotations, use getfullargspec() API "
            "which can support them"
        )
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def _fractions_gcd(a: Any, b: Any) -> Any:
    # 3.7's: the result takes the sign of b (or of a when b is 0); works on any numbers.
    if type(a) is int and type(b) is int:
        return -math.gcd(a, b) if (b or a) < 0 else math.gcd(a, b)
    while b:
        a, b = b, a % b
    return a


def _thread_is_alive(self: threading.Thread) -> bool:
    return self.is_alive()


def _set_missing(owner: Any, name: str, value: Any) -> None:
    if not hasattr(owner, name):
        setattr(owner, name, value)


def install() -> None:
    """Sets each Python 3.7 name the running Python lacks (nothing on 3.7 itself)."""
    for name in _COLLECTIONS_ABCS:
        if name not in vars(collections) and name in vars(collections.abc):
            setattr(collections, name, vars(collections.abc)[name])
    # 3.7's time.clock() on Unix was the process's CPU time.
    _set_missing(time, "clock", time.process_time)
    _set_missing(inspect, "getargspec", _getargspec)
    _set_missing(inspect, "ArgSpec", ArgSpec)
    _set_missing(threading.Thread, "isAlive", _thread_is_alive)
    _set_missing(base64, "encodestring", base64.encodebytes)
    _set_missing(base64, "decodestring", base64.decodebytes)
    _set_missing(fractions, "gcd", _fractions_gcd)
