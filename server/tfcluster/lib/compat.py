"""tf.compat: text/bytes conversions, the legacy Dimension bridge, forward compatibility and
the number/text type tuples, as TF 1.15 has them (Python 3 only)."""

from __future__ import annotations

import codecs
import contextlib
import datetime
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.framework.tensor_shape import Dimension, TensorShape, dimension_value
from tfcluster.settings import environment

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
]

integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    encoding = codecs.lookup(encoding).name  # an unknown encoding is a LookupError
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value: Any, *, encoding: str = "utf-8") -> str:
    """str(value), except that bytes are decoded."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path: Any) -> Any:
    """An os.PathLike as str; anything else unchanged."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


def dimension_at_index(shape: TensorShape, index: int) -> Dimension:
    """The Dimension at index, or an unknown Dimension when the rank is unknown."""
    assert isinstance(shape, TensorShape)
    if shape.rank is None:
        return Dimension(None)
    dims = shape.dims
    assert dims is not None
    return dims[index]


# Forward compatibility: tfcluster follows TF 1.15, whose release branch was cut in late
# August 2019; graphs it builds are for consumers at least that new.
_FORWARD_COMPATIBILITY_HORIZON = datetime.date(2019, 8, 21)
_horizon: datetime.date | None = None


def _date_number(year: int, month: int, day: int) -> int:
    return (year << 9) | (month << 5) | day


def _current_horizon() -> datetime.date:
    if _horizon is not None:
        return _horizon
    delta_days = environment.forward_compatibility_delta_days()
    horizon = _FORWARD_COMPATIBILITY_HORIZON
    if delta_days:
        horizon += datetime.timedelta(days=int(delta_days))
    return horizon


def forward_compatible(year: int, month: int, day: int) -> bool:
    """True when the forward-compatibility window has passed (year, month, day)."""
    horizon = _current_horizon()
    return _date_number(horizon.year, horizon.month, horizon.day) > _date_number(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int) -> Iterator[None]:
    """Moves the horizon forward_compatible compares with to (year, month, day) inside."""
    global _horizon
    previous = _horizon
    try:
        _horizon = datetime.date(year, month, day)
        yield
    finally:
        _horizon = previous


dimension_value = dimension_value
