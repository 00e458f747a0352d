"""A bool field of a proto set from a Python value as TF 1.15's protobuf sets it.

TF 1.15 runs on protobuf 3.x's C++ implementation under Python 3.7: a bool field takes any
value Python 3.7 turns into a C long (ints, bools, and, through `__int__`, floats and numpy
scalars, truncated: 0.5 is False), and refuses anything else with
"<repr> has type <type>, but expected one of: int, bool". The upb protobuf tfcluster runs on
refuses floats and words its error differently, and the message reaches users: a variable made
as `tf.Variable(value, "name")` (the name passed where `trainable` goes) cannot write its
VariableDef, and exporting a MetaGraph logs that error under a warning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _type_name(value: Any) -> str:
    """Python's tp_name of value's type: a builtin's bare name, numpy's with its module."""
    cls = type(value)
    module = cls.__module__
    if module == "numpy":
        return f"numpy.{cls.__name__}"
    return cls.__name__


def _type_error(value: Any) -> TypeError:
    shown = repr(value)[:100]
    kind = _type_name(value)[:100]
    return TypeError(f"{shown} has type {kind}, but expected one of: int, bool")


def bool_field_value(value: Any) -> bool:
    """The bool protobuf 3.x (C++, Python 3.7) stores for value; its TypeError otherwise."""
    if isinstance(value, (np.ndarray, str, bytes)):
        raise _type_error(value)
    try:
        if hasattr(type(value), "__index__"):
            number = int(value.__index__())
        elif hasattr(type(value), "__int__"):
            number = int(value)
        else:
            raise _type_error(value)
    except (TypeError, ValueError, OverflowError):
        raise _type_error(value) from None
    if not _LONG_MIN <= number <= _LONG_MAX:
        raise _type_error(value)
    return number != 0
