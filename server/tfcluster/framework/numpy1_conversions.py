"""Arrays of one element convert to Python numbers as under numpy 1.x.

numpy 1.18 (TF 1.15's) turns an array holding one element, whatever its number of dimensions,
into a Python number: `float(sess.run(v))` of a (1,) fetch, `buf[t] = sess.run(v)` storing a
(1,) fetch into one element of a float array (numpy converts the value with float()),
`"%.3f" % value`, `math.exp(value)`. numpy 1.25 deprecated it and numpy 2.4 refuses it
("only 0-dimensional arrays can be converted to Python scalars"; the element store becomes
"ValueError: setting an array element with a sequence."), so a TF1 program doing it stops at
its first step. Where the running numpy warns or refuses, ndarray's float(), int() and
complex() conversions are given numpy 1.18's behaviour: the one element of a size-1 array,
numpy 1.18's TypeError for any other array, and numpy's own conversion for 0-d arrays.
"""

from __future__ import annotations

import ctypes
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

# CPython's PyTypeObject: tp_flags follows 21 pointer-sized fields; a type with the
# immutable-type flag (3.10+) refuses attribute assignment.
_FLAGS_OFFSET = 21 * ctypes.sizeof(ctypes.c_void_p)
_IMMUTABLE_TYPE = 1 << 8

_SIZE_1 = "only size-1 arrays can be converted to Python scalars"
_LENGTH_1 = "only length-1 arrays can be converted to Python scalars"


def _numpy_refuses_size_1_arrays() -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            float(np.ones(1))
        except (TypeError, DeprecationWarning):
            return True
    return False


def _as_numpy1(numpy_conversion: Callable[[Any], Any], message: str) -> Callable[[Any], Any]:
    def convert(self: Any) -> Any:
        if self.ndim == 0:
            return numpy_conversion(self)
        if self.size != 1:
            raise TypeError(message)
        return numpy_conversion(np.asarray(self).reshape(()))

    convert.__name__ = numpy_conversion.__name__
    convert.__doc__ = numpy_conversion.__doc__
    return convert


def _set_on_ndarray(conversions: dict[str, Callable[[Any], Any]]) -> None:
    """Sets the methods through type.__setattr__, which also points ndarray's C number slots
    (nb_float, nb_int) at them, with the immutable-type flag lifted for the time of it."""
    flags = ctypes.c_ulong.from_address(id(np.ndarray) + _FLAGS_OFFSET)
    if flags.value != np.ndarray.__flags__:
        return  # not the type layout this module knows: leave numpy as it is
    immutable = flags.value & _IMMUTABLE_TYPE
    flags.value &= ~_IMMUTABLE_TYPE
    try:
        for name, method in conversions.items():
            setattr(np.ndarray, name, method)
    finally:
        flags.value |= immutable


def install() -> None:
    """Gives ndarray numpy 1.18's float/int/complex conversions where the running numpy warns
    about or refuses those of size-1 arrays (nothing under numpy 1.18, nothing twice)."""
    if isinstance(np.ndarray.__dict__["__float__"], types.FunctionType):
        return  # set already (numpy's own is a slot wrapper)
    if not _numpy_refuses_size_1_arrays():
        return
    _set_on_ndarray(
        {
            "__float__": _as_numpy1(np.ndarray.__float__, _SIZE_1),
            "__int__": _as_numpy1(np.ndarray.__int__, _SIZE_1),
            "__complex__": _as_numpy1(np.ndarray.__complex__, _LENGTH_1),
        }
    )
