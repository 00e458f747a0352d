"""Whether a program's function is being traced as TF 1.15 traces it converted by AutoGraph
(the functions of tf.data transformations, a tf.function with autograph on).

TF 1.15 runs such a function as AutoGraph's rewrite of it, and a deprecated name it reads
("The name tf.log is deprecated ...") is announced from AutoGraph's own files, not the
program's: tfcluster, which cannot name TF's files, lets the read use up the name's one
announcement and prints nothing. Other warnings name the program's line of the converted
code, as TF's source map gives it: the line where the call starts (not Python 3.7's line of its
last argument), so the code objects AutoGraph makes are registered here.
"""

from __future__ import annotations

import contextlib
import threading
import types
import weakref
from collections.abc import Iterator

_state = threading.local()
_converted_codes: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


@contextlib.contextmanager
def tracing_converted_function() -> Iterator[None]:
    """While open, the calling thread traces a function TF would convert."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1


def in_converted_function() -> bool:
    return getattr(_state, "depth", 0) > 0


def register_converted_code(code: types.CodeType) -> None:
    """Marks code (and the code it nests: lambdas, inner functions) as AutoGraph's rewrite."""
    _converted_codes.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            register_converted_code(const)


def is_converted_code(code: types.CodeType) -> bool:
    return code in _converted_codes
