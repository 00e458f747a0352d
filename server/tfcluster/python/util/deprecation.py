"""tensorflow.python.util.deprecation (`@deprecation.deprecated(None, "Use X instead.")` on a
program's own functions, `with deprecation.silence():`): TF 1.15's decorator, which warns once
per function "From <caller>: <name> (from <module>) is deprecated and will be removed ...",
and the module's small helpers.

Setting `_PRINT_DEPRECATION_WARNINGS = False` here silences the functions this module
decorates; tfcluster's own announcements of TF's deprecated names do not read it."""

from __future__ import annotations

import collections
import contextlib
import functools
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework.python37_lines import as_given, python37_line
from tfcluster.lib.platform import tf_logging
from tfcluster.python._private_module import module_getattr

_PRINT_DEPRECATION_WARNINGS = True
_PRINTED_WARNING: dict[Any, bool] = {}

DeprecatedArgSpec = collections.namedtuple(
    "DeprecatedArgSpec", ["position", "has_ok_value", "ok_value"]
)


class DeprecatedNamesAlreadySet(Exception):
    """Raised when setting deprecated names multiple times for the same symbol."""


def _validate_deprecation_args(date: str | None, instructions: str) -> None:
    if date is not None and not re.match(r"20\d\d-[01]\d-[0123]\d", date):
        raise ValueError("Date must be YYYY-MM-DD.")
    if not instructions:
        raise ValueError("Don't deprecate things without conversion instructions!")


def _call_location() -> str:
    """The file and line of the decorated function's caller."""
    frame = sys._getframe(2)
    return f"{as_given(frame.f_code.co_filename)}:{python37_line(frame)}"


def _qualified_name(func: Any) -> str:
    return str(getattr(func, "__qualname__", None) or func.__name__)


def _validate_callable(func: Any, decorator_name: str) -> None:
    if not hasattr(func, "__call__"):  # noqa: B004
        raise ValueError(
            f"{func} is not a function. If this is a property, make sure @property appears "
            f"before @{decorator_name} in your source code:\n\n@property\n@{decorator_name}\n"
            "def method(...)"
        )


def _add_deprecated_function_notice_to_docstring(
    doc: str | None, date: str | None, instructions: str
) -> str:
    when = "in a future version" if date is None else f"after {date}"
    notice = (
        f"THIS FUNCTION IS DEPRECATED. It will be removed {when}.\n"
        f"Instructions for updating:\n{instructions}"
    )
    if not doc:
        return f"DEPRECATED FUNCTION\n\nWarning: {notice}"
    lines = doc.splitlines()
    return "\n".join([lines[0] + " (deprecated)", "", "Warning: " + notice, *lines[1:]])


def deprecated(
    date: str | None, instructions: str, warn_once: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the function's first call (each call, without warn_once) warns that it is
    deprecated, with `instructions`."""
    _validate_deprecation_args(date, instructions)

    def deprecated_wrapper(func: Callable[..., Any]) -> Callable[..., Any]:
        _validate_callable(func, "deprecated")

        @functools.wraps(func)
        def new_func(*args: Any, **kwargs: Any) -> Any:
            if _PRINT_DEPRECATION_WARNINGS and func not in _PRINTED_WARNING:
                if warn_once:
                    _PRINTED_WARNING[func] = True
                tf_logging.warning(
                    "From %s: %s (from %s) is deprecated and will be removed %s.\n"
                    "Instructions for updating:\n%s",
                    _call_location(),
                    _qualified_name(func),
                    func.__module__,
                    "in a future version" if date is None else f"after {date}",
                    instructions,
                )
            return func(*args, **kwargs)

        new_func.__doc__ = _add_deprecated_function_notice_to_docstring(
            func.__doc__, date, instructions
        )
        return new_func

    return deprecated_wrapper


def deprecated_endpoints(*args: str) -> Callable[[Any], Any]:
    """Decorator: records the deprecated API names of the symbol."""

    def deprecated_wrapper(func: Any) -> Any:
        if "_tf_deprecated_api_names" in func.__dict__:
            raise DeprecatedNamesAlreadySet(
                f"Cannot set deprecated names for {func.__name__} to {args}. "
                f"Deprecated names are already set to {func._tf_deprecated_api_names}."
            )
        func._tf_deprecated_api_names = args
        return func

    return deprecated_wrapper


def deprecated_argument_lookup(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """The value given under the old name, else under the new one; both is a ValueError."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value


def rewrite_argument_docstring(old_doc: str, old_argument: str, new_argument: str) -> str:
    return old_doc.replace(f"`{old_argument}`", f"`{new_argument}`").replace(
        f"{old_argument}:", f"{new_argument}:"
    )


@contextlib.contextmanager
def silence() -> Iterator[None]:
    """Temporarily silence deprecation warnings."""
    global _PRINT_DEPRECATION_WARNINGS
    print_deprecation_warnings = _PRINT_DEPRECATION_WARNINGS
    _PRINT_DEPRECATION_WARNINGS = False
    yield
    _PRINT_DEPRECATION_WARNINGS = print_deprecation_warnings


class HiddenTfApiAttribute(property):
    """A class attribute hidden from the API: reading it raises AttributeError."""

    def __init__(self, deprecation_message: str) -> None:
        def raise_error(unused_self: Any) -> Any:
            raise AttributeError(deprecation_message)

        super().__init__(raise_error)


hide_attribute_from_api = HiddenTfApiAttribute
HIDDEN_ATTRIBUTE = HiddenTfApiAttribute("This attribute has been hidden.")

__getattr__ = module_getattr("python.util.deprecation")

__all__ = [
    "HIDDEN_ATTRIBUTE",
    "DeprecatedArgSpec",
    "DeprecatedNamesAlreadySet",
    "HiddenTfApiAttribute",
    "deprecated",
    "deprecated_argument_lookup",
    "deprecated_endpoints",
    "hide_attribute_from_api",
    "rewrite_argument_docstring",
    "silence",
]
