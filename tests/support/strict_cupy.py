"""A strict stand-in for cupy that runs on the CPU: kernel bodies over xp checked without a GPU.

`StrictCupy()` offers only what every cupy release recorded in cupy_namespace.json has (its
names and cupy.linalg's, the parameters of its functions, the keywords of its ufuncs, which
ufuncs have `at`; tools/record_cupy_namespace.py writes the file) and computes with numpy on
`DeviceArray` values, which behave as cupy arrays do where a kernel body could go wrong:
- only cupy.ndarray's attributes exist (no writeable flag, no __index__);
- numpy refuses them (np.asarray(a), np.add(a, b)), as cupy refuses implicit conversion: a
  body that reads a device input with numpy fails here as on a GPU;
- cupy's functions and operators refuse numpy arrays: host values go through xp.asarray;
- reductions and scalar indexing give 0-d arrays, not numpy scalars;
- ufunc.at scatters only the dtypes cupy's CUDA atomics take.
Installed as the GPU backend's cupy (with a fake GPU in runtime.gpu), the GPU kernels run.
"""

from __future__ import annotations

import inspect
import json
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import stride_tricks

_RECORD = json.loads(Path(__file__).with_name("cupy_namespace.json").read_text())
RELEASES = sorted(_RECORD["releases"])
_releases = [_RECORD["releases"][r] for r in RELEASES]


def _common(key: str) -> set[str]:
    return set.intersection(*(set(r[key]) for r in _releases))


NAMES = _common("cupy")
NDARRAY_NAMES = _common("cupy.ndarray")
STRIDE_TRICKS_NAMES = _common("cupy.lib.stride_tricks")
LINALG_NAMES = _common("cupy.linalg")
UFUNC_AT = _common("ufunc_at")
UFUNC_KEYWORDS = _common("ufunc_keywords")
UFUNCS = {
    n: nin for n, nin in _releases[0]["ufuncs"].items() if all(n in r["ufuncs"] for r in _releases)
}
# cupy's ufunc.at is a scatter of CUDA atomics that raises TypeError for other dtypes (its
# messages in cupy 13.6's cupy/_core/_routines_indexing.pyx; cupy 14 takes more, so 13.6 binds).
UFUNC_AT_DTYPES = {
    name: frozenset(np.dtype(t) for t in types.split())
    for name, types in {
        "add": "int32 uint32 uint64 float16 float32 float64",
        "subtract": "int32 uint32",
        "maximum": "int32 uint32 uint64 float32 float64",
        "minimum": "int32 uint32 uint64 float32 float64",
        "bitwise_and": "int32 int64 uint32 uint64",
        "bitwise_or": "int32 int64 uint32 uint64",
        "bitwise_xor": "int32 int64 uint32 uint64",
    }.items()
}
# cupy's functions that take host values too (they read shapes or dtypes).
_HOST_ARGS_OK = frozenset({"shape", "ndim", "iscomplexobj"})
_KINDS = {
    "positional": inspect.Parameter.POSITIONAL_ONLY,
    "either": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "*args": inspect.Parameter.VAR_POSITIONAL,
    "keyword": inspect.Parameter.KEYWORD_ONLY,
    "**kwargs": inspect.Parameter.VAR_KEYWORD,
}


def _signatures(name: str) -> list[inspect.Signature]:
    """name's signature in every release that records one."""
    out = []
    for r in _releases:
        params = r["parameters"].get(name)
        if params is not None:
            out.append(
                inspect.Signature(
                    [
                        inspect.Parameter(
                            n, _KINDS[k], default=None if d else inspect.Parameter.empty
                        )
                        for n, k, d in params
                    ]
                )
            )
    return out


class NotInCupy(AttributeError):
    """A name or parameter some recorded cupy release lacks."""


def _missing(what: str) -> NotInCupy:
    return NotInCupy(
        f"{what} is not in cupy {' / '.join(RELEASES)}: kernel bodies over xp use only what "
        "cupy has"
    )


# ---- values ----------------------------------------------------------------------------------
def _unwrap(value: Any, where: str) -> Any:
    """numpy's view of a device value; host arrays refused, as cupy refuses them."""
    if isinstance(value, DeviceArray):
        return value.host_view
    if isinstance(value, np.ndarray):
        raise TypeError(
            f"Unsupported type {type(value)} in {where}: move host values with xp.asarray"
        )
    if isinstance(value, tuple):
        return tuple(_unwrap(v, where) for v in value)
    if isinstance(value, list):
        return [_unwrap(v, where) for v in value]
    if isinstance(value, dict):
        return {k: _unwrap(v, where) for k, v in value.items()}
    return value


def _wrap(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return DeviceArray(value)
    if isinstance(value, np.generic):
        return DeviceArray(np.asarray(value))  # cupy gives 0-d arrays, not numpy scalars
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class _Flags:
    """cupy's flags: read-only layout facts, no writeable flag."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, a: np.ndarray) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, getattr(a.flags, name))

    def __setattr__(self, name: str, value: Any) -> None:
        raise _missing(f"setting cupy.ndarray.flags.{name}")


def _repeats(index: Any) -> bool:
    """Whether index is a 1-D integer index array naming some position twice."""
    return (
        isinstance(index, np.ndarray)
        and index.ndim == 1
        and index.dtype.kind in "iu"
        and np.unique(index).size < index.size
    )


class DeviceArray:
    """A value "on the device": numpy underneath, cupy.ndarray's surface on top."""

    __slots__ = ("host_view",)
    __array_ufunc__ = None  # numpy's ufuncs and operators refuse it
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, a: np.ndarray) -> None:
        self.host_view = a

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.host_view.shape, "typestr": self.host_view.dtype.str, "version": 3}

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly."
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise TypeError(
            f"numpy.{func.__name__} on a device array: kernel bodies call xp.{func.__name__}"
        )

    def get(self) -> np.ndarray:
        return self.host_view.copy()

    def __getattr__(self, name: str) -> Any:
        if name not in NDARRAY_NAMES:
            raise _missing(f"cupy.ndarray.{name}")
        if name == "flags":
            return _Flags(self.host_view)
        attr = getattr(self.host_view, name)
        if callable(attr):
            return lambda *a, **k: _wrap(attr(*_unwrap(a, name), **_unwrap(k, name)))
        return _wrap(attr)

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self.host_view[_unwrap(key, "an index")])

    def __setitem__(self, key: Any, value: Any) -> None:
        index = _unwrap(key, "an index")
        assigned = _unwrap(value, "an assigned value")
        if _repeats(index):
            # cupy writes repeated indices in no defined order (numpy: the last one wins);
            # written in reverse here, so a body counting on numpy's order fails as on a GPU.
            assigned = np.broadcast_to(assigned, self.host_view[index].shape)
            self.host_view[index[::-1]] = assigned[::-1]
            return
        self.host_view[index] = assigned

    def __bool__(self) -> bool:
        return bool(self.host_view)

    def __int__(self) -> int:
        return int(self.host_view)

    def __float__(self) -> float:
        return float(self.host_view)

    def __complex__(self) -> complex:
        return complex(self.host_view)

    def __len__(self) -> int:
        return len(self.host_view)

    def __iter__(self) -> Any:
        return (_wrap(v) for v in self.host_view)

    def __repr__(self) -> str:
        return f"DeviceArray({self.host_view!r})"


def _binary(name: str) -> tuple[Any, Any, Any]:
    fn = getattr(operator, f"{name}_" if name in ("and", "or") else name)
    in_place_fn = getattr(operator, f"i{name}")

    def forward(self: DeviceArray, other: Any) -> Any:
        return _wrap(fn(self.host_view, _unwrap(other, "an operator")))

    def reflected(self: DeviceArray, other: Any) -> Any:
        return _wrap(fn(_unwrap(other, "an operator"), self.host_view))

    def in_place(self: DeviceArray, other: Any) -> DeviceArray:
        in_place_fn(self.host_view, _unwrap(other, "an operator"))
        return self

    return forward, reflected, in_place


for _name in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
):
    _fwd, _ref, _inp = _binary(_name)
    setattr(DeviceArray, f"__{_name}__", _fwd)
    setattr(DeviceArray, f"__r{_name}__", _ref)
    setattr(DeviceArray, f"__i{_name}__", _inp)
for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(
        DeviceArray,
        f"__{_name}__",
        lambda self, other, _fn=getattr(operator, _name): _wrap(
            _fn(self.host_view, _unwrap(other, "a comparison"))
        ),
    )
for _name in ("neg", "pos", "abs", "invert"):
    setattr(
        DeviceArray,
        f"__{_name}__",
        lambda self, _fn=getattr(operator, _name): _wrap(_fn(self.host_view)),
    )


# ---- the namespace ---------------------------------------------------------------------------
class _Ufunc:
    def __init__(self, name: str) -> None:
        self.name = name
        self.nin = UFUNCS[name]
        self._fn = getattr(np, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        unknown = set(kwargs) - UFUNC_KEYWORDS
        if unknown:
            raise _missing(f"keywords {sorted(unknown)} of cupy.{self.name}")
        if len(args) > self.nin + 1:
            raise TypeError(f"cupy.{self.name} takes {self.nin} inputs and an out, got {len(args)}")
        where = f"cupy.{self.name}"
        return _wrap(self._fn(*_unwrap(args, where), **_unwrap(kwargs, where)))

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        if self.name not in UFUNC_AT:
            raise _missing(f"cupy.{self.name}.at")
        if not isinstance(a, DeviceArray):
            raise TypeError(f"cupy.{self.name}.at updates a device array, not {type(a)}")
        if a.host_view.dtype not in UFUNC_AT_DTYPES[self.name]:
            raise TypeError(
                f"cupy.{self.name}.at only supports "
                f"{', '.join(sorted(d.name for d in UFUNC_AT_DTYPES[self.name]))}, not "
                f"{a.host_view.dtype.name}"
            )
        where = f"cupy.{self.name}.at"
        self._fn.at(a.host_view, _unwrap(indices, where), _unwrap(b, where))

    def __getattr__(self, name: str) -> Any:
        raise _missing(f"cupy.{self.name}.{name} (or the stand-in does not model it)")


class _Function:
    """A cupy function computed by fn: its arguments checked against cupy's signature, device
    values handed to fn as numpy arrays (host arrays refused) unless `takes_host` (functions
    that read shapes or copy host values) or `raw` (the stand-in's own device functions)."""

    def __init__(
        self, qualname: str, fn: Callable[..., Any], takes_host: bool = False, raw: bool = False
    ) -> None:
        self.qualname = qualname
        self._fn = fn
        self._signatures = _signatures(qualname)
        self._takes_host = takes_host
        self._raw = raw

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for sig in self._signatures:
            try:
                sig.bind(*args, **kwargs)
            except TypeError as e:
                raise _missing(f"this call of cupy.{self.qualname} ({e})") from None
        if self._raw:
            return self._fn(*args, **kwargs)
        where = f"cupy.{self.qualname}"
        if self._takes_host:
            args = tuple(v.host_view if isinstance(v, DeviceArray) else v for v in args)
        else:
            args = _unwrap(args, where)
        return _wrap(self._fn(*args, **_unwrap(kwargs, where)))


def _asarray(
    a: Any, dtype: Any = None, order: Any = None, *, copy: Any = None, blocking: bool = False
) -> DeviceArray:
    if isinstance(a, DeviceArray):
        # As cupy: the array itself when nothing changes.
        return (
            a
            if dtype is None or a.host_view.dtype == np.dtype(dtype)
            else DeviceArray(a.host_view.astype(dtype))
        )
    return DeviceArray(np.array(a, dtype=dtype))  # a host value: copied to the device


def _array(obj: Any, dtype: Any = None, copy: bool = True, **kwargs: Any) -> DeviceArray:
    host = obj.host_view if isinstance(obj, DeviceArray) else obj
    return DeviceArray(np.array(host, dtype=dtype, copy=True if copy else None))


def _asnumpy(a: Any, *args: Any, **kwargs: Any) -> np.ndarray:
    return a.get() if isinstance(a, DeviceArray) else np.asarray(a)


def _as_strided(x: Any, shape: Any = None, strides: Any = None) -> DeviceArray:
    if not isinstance(x, DeviceArray):
        raise TypeError(f"cupy's as_strided views a device array, not {type(x)}")
    return DeviceArray(stride_tricks.as_strided(x.host_view, shape=shape, strides=strides))


_ABSENT = object()


class _Namespace:
    def __init__(self, **members: Any) -> None:
        self.__dict__.update(members)


class _Linalg:
    """cupy.linalg: the names every recorded release has, computed by numpy.linalg."""

    def __getattr__(self, name: str) -> Any:
        if name not in LINALG_NAMES:
            raise _missing(f"cupy.linalg.{name}")
        attr = getattr(np.linalg, name, _ABSENT)
        if attr is _ABSENT:
            raise _missing(f"cupy.linalg.{name} (the stand-in has no numpy counterpart for it)")
        if isinstance(attr, type):
            return attr  # LinAlgError: cupy's is numpy's
        return _Function(f"linalg.{name}", attr)


# cupy.fft offers numpy.fft's transforms with numpy's parameters (plus cuFFT plans); the
# recorded namespaces do not list that module, so the transforms kernels may call are named
# here, with numpy's signatures.
FFT_NAMES = frozenset(
    {"fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2"}
    | {"rfftn", "irfftn"}
)


class _FFT:
    """cupy.fft, computed by numpy.fft (whose results keep single precision, as cuFFT's do)."""

    def __getattr__(self, name: str) -> Any:
        if name not in FFT_NAMES:
            raise _missing(f"cupy.fft.{name}")
        return _Function(f"fft.{name}", getattr(np.fft, name))


class StrictCupy:
    """cupy's namespace as far as every recorded release has it, computing with numpy."""

    ndarray = DeviceArray
    __name__ = "strict_cupy"

    def __init__(self) -> None:
        as_strided = _Function("lib.stride_tricks.as_strided", _as_strided, raw=True)
        self.lib = _Namespace(stride_tricks=_Namespace(as_strided=as_strided))
        self.linalg = _Linalg()
        self.fft = _FFT()
        self._special: dict[str, Any] = {
            "asarray": _Function("asarray", _asarray, raw=True),
            "array": _Function("array", _array, raw=True),
            "asnumpy": _Function("asnumpy", _asnumpy, raw=True),
        }

    def __getattr__(self, name: str) -> Any:
        if name not in NAMES:
            raise _missing(f"cupy.{name}")
        special = self._special.get(name)
        if special is not None:
            return special
        if name in UFUNCS:
            return _Ufunc(name)
        attr = getattr(np, name, _ABSENT)
        if attr is _ABSENT:
            raise _missing(f"cupy.{name} (the stand-in has no numpy counterpart for it)")
        if isinstance(attr, type) or not callable(attr):
            return attr  # dtypes, scalar types, constants: cupy's are numpy's
        return _Function(name, attr, takes_host=name in _HOST_ARGS_OK)


__all__ = ["RELEASES", "DeviceArray", "NotInCupy", "StrictCupy"]
