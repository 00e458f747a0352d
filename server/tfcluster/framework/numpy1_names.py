"""numpy 1.x names TF1 programs use, given back under numpy 2.

TF 1.15 runs on numpy 1.16-1.18, where `np.int`, `np.float`, `np.object`, `np.str` are the
builtins, `np.float_`/`np.string_`/`np.unicode_` numpy's scalar types, `np.infty`/`np.NaN`
constants and `np.asscalar`/`np.product` functions; TF1 programs written then use them
(`dtype=np.float`, `np.zeros(n, np.int)`), and `ndarray.tostring()` and the binary mode of
`np.fromstring` to put an image's bytes into a tf.train.Example and read them back. numpy
1.24, 2.0 and 2.3 removed them, so under a current numpy such a program stops at an
AttributeError (or ValueError) before its first TF call. Each name is
set to what numpy 1.18 had, and only where the running numpy lacks it (numpy 2's `np.bool` and
`np.long` are its own and stay).
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from typing import Any

import numpy as np


def _asscalar(a: Any) -> Any:
    return a.item()


def _msort(a: Any) -> Any:
    return np.sort(a, axis=0)


def _asfarray(a: Any, dtype: Any = np.float64) -> Any:
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return np.asarray(a, dtype=dtype)


def _alen(a: Any) -> int:
    try:
        return len(a)
    except TypeError:
        return len(np.array(a, ndmin=1))


def _in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    return np.isin(ar1, ar2, assume_unique=assume_unique, invert=invert).ravel()


def _ptp(self: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    return np.ptp(self, axis=axis, out=out, keepdims=keepdims)


def _itemset(self: Any, *args: Any) -> None:
    # a.itemset(v) of a one-element array, a.itemset(flat_index, v), a.itemset((i, j), v)
    if len(args) == 1:
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        self.flat[0] = args[0]
    elif len(args) == 2 and not isinstance(args[0], tuple):
        self.flat[args[0]] = args[1]
    else:
        index = args[0] if len(args) == 2 else args[:-1]
        self[index] = args[-1]


def _issubclass_(arg1: Any, arg2: Any) -> bool:
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def _tostring(self: Any, order: str = "C") -> bytes:
    # numpy 1.x's name for tobytes (removed in numpy 2.3): `image.tostring()` is how TF1
    # programs put an array's bytes into a tf.train.Example.
    return bytes(self.tobytes(order))


def _fromstring_binary_mode(numpy_fromstring: Callable[..., Any]) -> Callable[..., Any]:
    """numpy 1.x's fromstring: with no `sep` it read the bytes of the string as the array's
    data, into a new writable array (numpy 2 raises ValueError there); with `sep` it parses
    text, as numpy 2's still does."""

    def fromstring(
        string: Any, dtype: Any = float, count: int = -1, *, sep: str = "", like: Any = None
    ) -> Any:
        if sep != "":
            if like is None:
                return numpy_fromstring(string, dtype, count, sep=sep)
            return numpy_fromstring(string, dtype, count, sep=sep, like=like)
        data = string.encode("utf-8") if isinstance(string, str) else string
        return np.frombuffer(data, dtype=dtype, count=count).copy()

    fromstring.__doc__ = numpy_fromstring.__doc__
    return fromstring


def _binary_fromstring_refused() -> bool:
    numpy_fromstring: Callable[..., Any] = np.fromstring  # its stubs know only the text mode
    try:
        numpy_fromstring(b"\0", dtype=np.uint8)
    except ValueError:
        return True
    return False


def _add_method(cls: type, name: str, method: Callable[..., Any]) -> None:
    """Adds a method to a type defined in C (numpy's ndarray), which refuses setattr: its
    namespace dict is reached through the read-only proxy, and the type's method cache is
    invalidated (with its subclasses') as CPython does after a class attribute changes."""
    namespace = gc.get_referents(cls.__dict__)[0]
    namespace[name] = method
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def _numpy1_names() -> dict[str, Callable[[], Any]]:
    # Thunks: a name numpy 2 keeps under another spelling is read only when it is needed.
    return {
        # the builtins numpy 1.x re-exported (removed in numpy 1.24)
        "int": lambda: int,
        "float": lambda: float,
        "complex": lambda: complex,
        "object": lambda: object,
        "str": lambda: str,
        "unicode": lambda: str,
        # constants (removed in numpy 2.0)
        "infty": lambda: np.inf,
        "Inf": lambda: np.inf,
        "Infinity": lambda: np.inf,
        "PINF": lambda: np.inf,
        "NINF": lambda: -np.inf,
        "NaN": lambda: np.nan,
        "NAN": lambda: np.nan,
        "PZERO": lambda: 0.0,
        "NZERO": lambda: -0.0,
        # scalar type aliases (removed in numpy 2.0)
        "float_": lambda: np.float64,
        "complex_": lambda: np.complex128,
        "cfloat": lambda: np.complex128,
        "singlecomplex": lambda: np.complex64,
        "longfloat": lambda: np.longdouble,
        "longcomplex": lambda: np.clongdouble,
        "clongfloat": lambda: np.clongdouble,
        "string_": lambda: np.bytes_,
        "unicode_": lambda: np.str_,
        "int0": lambda: np.intp,
        "uint0": lambda: np.uintp,
        "bool8": lambda: np.bool_,
        "object0": lambda: np.object_,
        "str0": lambda: np.str_,
        "bytes0": lambda: np.bytes_,
        "void0": lambda: np.void,
        # functions (removed in numpy 1.23 / 2.0)
        "asscalar": lambda: _asscalar,
        "product": lambda: np.prod,
        "cumproduct": lambda: np.cumprod,
        "sometrue": lambda: np.any,
        "alltrue": lambda: np.all,
        "round_": lambda: np.round,
        "msort": lambda: _msort,
        "mat": lambda: np.asmatrix,
        "asfarray": lambda: _asfarray,
        "alen": lambda: _alen,
        "issubclass_": lambda: _issubclass_,
        # functions numpy 2.4 removed after deprecating them in 2.0
        "in1d": lambda: _in1d,
        "trapz": lambda: np.trapezoid,
    }


def install() -> None:
    """Sets each numpy 1.x name the running numpy lacks (nothing under numpy 1.18). A removed
    name is absent from the module's namespace (numpy's module __getattr__ raises for it, with
    a FutureWarning for some: it is not asked)."""
    for name, value in _numpy1_names().items():
        if name not in np.__dict__:
            setattr(np, name, value())
    if _binary_fromstring_refused():
        np.fromstring = _fromstring_binary_mode(np.fromstring)
    for cls in (np.ndarray, np.generic):
        if not hasattr(cls, "tostring"):
            _add_method(cls, "tostring", _tostring)
    # ndarray methods numpy 2.0 removed
    for name, method in (("ptp", _ptp), ("itemset", _itemset)):
        if not hasattr(np.ndarray, name):
            _add_method(np.ndarray, name, method)
