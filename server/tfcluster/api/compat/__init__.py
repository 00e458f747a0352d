"""tf.compat; tf.compat.v1 is tf itself (tfcluster is TF1's API), tf.compat.v2 is not there."""

# ruff: noqa: F401
import sys as _sys
from typing import Any as _Any

from tfcluster.api import _deprecated_names, _unimplemented
from tfcluster.lib.compat import (
    as_bytes,
    as_str,
    as_str_any,
    as_text,
    bytes_or_text_types,
    complex_types,
    dimension_at_index,
    dimension_value,
    forward_compatibility_horizon,
    forward_compatible,
    integral_types,
    path_to_str,
    real_types,
)

_compat_getattr = _unimplemented.module_getattr("compat")


def __getattr__(name: str) -> _Any:
    if name == "v1":
        # tf itself, found by name (the face never imports the package it is part of), read
        # without TF 1.15's deprecation warnings.
        return _deprecated_names.quiet_view(_sys.modules["tfcluster"])
    return _compat_getattr(name)


def __dir__() -> list[str]:
    """TF's listing: the functions, constants and its v1 and v2 modules."""
    return sorted({*(n for n in globals() if not n.startswith("_")), "v1", "v2"})
