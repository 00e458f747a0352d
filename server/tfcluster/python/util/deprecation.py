"""tensorflow.python.util.deprecation (`@deprecation.deprecated(None, "Use X instead.")` on a
program's own functions, `with deprecation.silence():`): TF 1.15's decorator, which warns once
per function "From <caller>: <name> (from <module>) is deprecated and will be removed ...",
and the module's small helpers.

Setting `_PRINT_DEPRECATION_WARNINGS = False` here (or `silence()`) silences, as in TF, every
"... is deprecated and will be removed ..." warning: the functions this module decorates and
TF's own deprecated functions and arguments (framework/deprecation_switch.py reads it); "The
name tf.X is deprecated" lines, TF's module wrapper's, still print."""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
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


def _same_value(a: Any, b: Any) -> bool:
    """Whether a and b are the same value for deprecation's purposes (TF's comparison)."""
    if a is b:
        return True
    try:
        equality = a == b
        if isinstance(equality, bool):
            return equality
    except TypeError:
        return False
    return False


def deprecated_args(
    date: str | None, instructions: str, *deprecated_arg_names_or_tuples: Any, **kwargs: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: a call passing one of the named arguments (a `(name, ok_value)` pair spares
    that value) warns, once per argument unless warn_once=False, that calling the function
    with it is deprecated."""
    _validate_deprecation_args(date, instructions)
    if not deprecated_arg_names_or_tuples:
        raise ValueError("Specify which argument is deprecated.")
    if kwargs and list(kwargs.keys()) != ["warn_once"]:
        kwargs.pop("warn_once", None)
        raise ValueError(f"Illegal argument to deprecated_args: {kwargs}")
    warn_once = kwargs.get("warn_once", True)
    names_to_ok_vals: dict[str, DeprecatedArgSpec] = {}
    for name_or_tuple in deprecated_arg_names_or_tuples:
        if isinstance(name_or_tuple, tuple):
            names_to_ok_vals[name_or_tuple[0]] = DeprecatedArgSpec(-1, True, name_or_tuple[1])
        else:
            names_to_ok_vals[name_or_tuple] = DeprecatedArgSpec(-1, False, None)

    def deprecated_wrapper(func: Callable[..., Any]) -> Callable[..., Any]:
        _validate_callable(func, "deprecated_args")
        spec = inspect.getfullargspec(func)
        positions = {name: pos for pos, name in enumerate(spec.args)}
        deprecated_positions = {
            name: DeprecatedArgSpec(positions[name], ok.has_ok_value, ok.ok_value)
            for name, ok in names_to_ok_vals.items()
            if name in positions
        }
        varargs_deprecated = spec.varargs in names_to_ok_vals
        varkw_deprecated = spec.varkw in names_to_ok_vals
        if len(deprecated_positions) + varargs_deprecated + varkw_deprecated != len(
            deprecated_arg_names_or_tuples
        ):
            known_args = [*spec.args, spec.varargs, spec.varkw]
            missing_args = [name for name in names_to_ok_vals if name not in known_args]
            raise ValueError(
                "The following deprecated arguments are not present in the function "
                f"signature: {missing_args}. Found next arguments: {known_args}."
            )

        @functools.wraps(func)
        def new_func(*args: Any, **kw: Any) -> Any:
            if _PRINT_DEPRECATION_WARNINGS:
                invalid_args: list[Any] = []
                named_args = inspect.getcallargs(func, *args, **kw)
                for arg_name, arg_spec in deprecated_positions.items():
                    if arg_spec.position < len(args) and not (
                        arg_spec.has_ok_value
                        and _same_value(named_args[arg_name], arg_spec.ok_value)
                    ):
                        invalid_args.append(arg_name)
                if varargs_deprecated and len(args) > len(spec.args):
                    invalid_args.append(spec.varargs)
                if varkw_deprecated and kw:
                    invalid_args.append(spec.varkw)
                for arg_name in names_to_ok_vals:
                    if arg_name in kw and not (
                        deprecated_positions[arg_name].has_ok_value
                        and _same_value(
                            named_args[arg_name], deprecated_positions[arg_name].ok_value
                        )
                    ):
                        invalid_args.append(arg_name)
                for arg_name in invalid_args:
                    if (func, arg_name) not in _PRINTED_WARNING:
                        if warn_once:
                            _PRINTED_WARNING[(func, arg_name)] = True
                        tf_logging.warning(
                            "From %s: calling %s (from %s) with %s is deprecated and will "
                            "be removed %s.\nInstructions for updating:\n%s",
                            _call_location(),
                            _qualified_name(func),
                            func.__module__,
                            arg_name,
                            "in a future version" if date is None else f"after {date}",
                            instructions,
                        )
            return func(*args, **kw)

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
    "deprecated_args",
    "deprecated_argument_lookup",
    "deprecated_endpoints",
    "hide_attribute_from_api",
    "rewrite_argument_docstring",
    "silence",
]
