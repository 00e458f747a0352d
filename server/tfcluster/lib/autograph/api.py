"""tf.autograph's public functions: conversion entry points and directives."""

from __future__ import annotations

import enum
import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

from tfcluster.lib.autograph import conversion

_log = logging.getLogger("tensorflow")
_verbosity = {"level": 0, "stdout": False}


class Feature(enum.Enum):
    """Optional conversions (TF 1.15's names; tfcluster converts control flow and boolean
    operators whichever are asked for)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls) -> tuple[Feature, ...]:
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude: Any) -> tuple[Feature, ...]:
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


def to_graph(
    entity: Callable[..., Any],
    recursive: bool = True,
    arg_values: Any = None,
    arg_types: Any = None,
    experimental_optional_features: Any = None,
) -> Callable[..., Any]:
    """The converted function: tensor-dependent if/while/for become tf.cond/tf.while_loop."""
    if not callable(entity):
        raise ValueError(f"Expected a Python function or method, got {entity!r}")
    if isinstance(entity, type):
        raise NotImplementedError(
            "tfcluster's autograph converts functions and methods, not classes"
        )
    return conversion.convert(entity, recursive=recursive)


def to_code(
    entity: Callable[..., Any],
    recursive: bool = True,
    arg_values: Any = None,
    arg_types: Any = None,
    indentation: str = "  ",
    experimental_optional_features: Any = None,
) -> str:
    """The source of the converted function (tfcluster's conversion, not TF's text)."""
    return conversion.to_code(entity)


def do_not_convert(func: Callable[..., Any] | None = None, *, run_as: Any = None) -> Any:
    """Marks a function to be run as written, never converted."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    setattr(wrapper, conversion.DO_NOT_CONVERT_ATTR, True)
    return wrapper


def set_loop_options(
    parallel_iterations: Any = None,
    back_prop: Any = None,
    swap_memory: Any = None,
    maximum_iterations: Any = None,
    *,  # TF 2.x's, beyond TF 1.15's signature
    shape_invariants: Any = None,
) -> None:
    """A directive read when a loop is converted (first statement of its body); called as
    written (outside a converted loop) it does nothing, as in TF."""
    return None


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """How much autograph logs."""
    _verbosity["level"] = int(level)
    _verbosity["stdout"] = bool(alsologtostdout)


def get_verbosity() -> int:
    return int(_verbosity["level"])


def trace(*args: Any) -> None:
    """Prints its arguments when the code runs as Python (in a converted function: when it is
    traced), as TF's."""
    print(*args, file=sys.stdout)
