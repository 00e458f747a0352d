"""Kernels of PyFunc, PyFuncStateless and EagerPyFunc: call the registered Python function.

The function is looked up by the op's token in this process's registry; in a process that
did not build the graph (a task server elsewhere) there is none, and the op fails with
InvalidArgumentError rather than waiting. Errors the function raises become TF's classes
as TF maps them (ValueError/TypeError -> InvalidArgument, StopIteration -> OutOfRange,
MemoryError -> ResourceExhausted, NotImplementedError -> Unimplemented, others -> Unknown),
with the Python traceback in the message.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, py_func_registry
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime.eager import EagerGraph, EagerTensor

_ERROR_CLASSES: list[tuple[type[BaseException], type[errors.OpError]]] = [
    (ValueError, errors.InvalidArgumentError),
    (TypeError, errors.InvalidArgumentError),
    (StopIteration, errors.OutOfRangeError),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
]


def _as_op_error(e: BaseException) -> errors.OpError:
    cls: type[errors.OpError] = errors.UnknownError
    for py, tf_cls in _ERROR_CLASSES:
        if isinstance(e, py):
            cls = tf_cls
            break
    trace = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return cls(None, None, f"{type(e).__name__}: {e}\n{trace}")


def _entry(token: str) -> Any:
    entry = py_func_registry.lookup(token)
    if entry is None:
        raise invalid(
            f"ValueError: callback {token} is not found (a py_func runs in the process that "
            "built its graph: place it on a device of that process)"
        )
    return entry


def as_callback_arg(value: Any) -> Any:
    """What a Python callback (py_func's function, from_generator's generator) gets for a
    tensor, as TF's PyArray_Return makes it: a numpy array, a numpy scalar for a 0-d number,
    the `bytes` itself for a 0-d string."""
    arr = np.asarray(value)
    return arr[()] if arr.ndim == 0 else arr


def _tf_type_name(dt: np.dtype[Any]) -> str:
    try:
        name = dtypes.as_dtype(dt).name
    except TypeError:
        return str(dt)
    return {"float32": "float", "float64": "double", "string": "string"}.get(name, name)


def _result(value: Any, want: dtypes.DType, i: int, token: str) -> np.ndarray:
    """A returned value as the op's output: its dtype must be the one declared."""
    if want == dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = arr.reshape(-1)
        for k, v in enumerate(flat):
            if isinstance(v, str):
                flat[k] = v.encode()
            elif isinstance(v, np.bytes_ | np.str_):
                flat[k] = bytes(v) if isinstance(v, np.bytes_) else str(v).encode()
            elif not isinstance(v, bytes):
                raise invalid(
                    f"{i}-th value returned by {token} is {type(v).__name__}, but expects string"
                )
        return arr
    arr = np.asarray(value)
    if arr.dtype.kind in "SU":
        got = "string"
    elif arr.dtype == object:
        got = "object"
    else:
        got = _tf_type_name(arr.dtype)
    if arr.dtype != want.as_numpy_dtype:
        raise invalid(
            f"{i}-th value returned by {token} is {got}, but expects "
            f"{_tf_type_name(np.dtype(want.as_numpy_dtype))}"
        )
    return arr


def _call(fn: Any, args: Sequence[Any]) -> Any:
    try:
        return fn(*args)
    except errors.OpError as e:
        raise errors.UnknownError(None, None, f"{type(e).__name__}: {e.message}") from e
    except Exception as e:
        raise _as_op_error(e) from e


def _results(ret: Any, out_types: list[dtypes.DType], token: str) -> tuple[Any, ...]:
    values = list(ret) if isinstance(ret, (list, tuple)) else ([] if ret is None else [ret])
    if len(values) != len(out_types):
        raise invalid(
            f"{token} returns {len(values)} values, but expects to see {len(out_types)} values."
        )
    return tuple(_result(v, t, i, token) for i, (v, t) in enumerate(zip(values, out_types)))


def _py_func(node: Any, xp: Any) -> Any:
    token = str(node.attrs["token"])
    out_types = [dtypes.as_dtype(t) for t in node.attrs.get("Tout", [])]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        entry = _entry(token)
        ret = _call(entry.func, [as_callback_arg(v) for v in ins])
        return _results(ret, out_types, token)

    return compute


kernel("PyFunc", devices=CPU_ONLY)(_py_func)
kernel("PyFuncStateless", devices=CPU_ONLY)(_py_func)


@kernel("EagerPyFunc", devices=CPU_ONLY)
def eager_py_func(node: Any, xp: Any) -> Any:
    token = str(node.attrs["token"])
    in_types = [dtypes.as_dtype(t) for t in node.attrs.get("Tin", [])]
    out_types = [dtypes.as_dtype(t) for t in node.attrs.get("Tout", [])]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        entry = _entry(token)
        graph = EagerGraph()
        args = [graph.constant(v, dt) for v, dt in zip(ins, in_types)]
        with graph.as_default():
            ret = _call(entry.func, args)
            values = list(ret) if isinstance(ret, (list, tuple)) else ([] if ret is None else [ret])
            if len(values) != len(out_types):
                raise invalid(
                    f"{token} returns {len(values)} values, but expects to see "
                    f"{len(out_types)} values."
                )
            outs = [
                _eager_result(graph, v, t, entry.is_grad_func) for v, t in zip(values, out_types)
            ]
        if py_func_registry.records(token):
            py_func_registry.tape_cache[token] = (graph, args, outs)
        return tuple(np.asarray(o.numpy()) for o in outs)

    return compute


def _eager_result(graph: EagerGraph, value: Any, want: dtypes.DType, is_grad: bool) -> EagerTensor:
    """A value the function returned, as an EagerTensor of the declared dtype (TF converts
    Python and numpy values; a gradient function's None is zeros)."""
    if isinstance(value, EagerTensor):
        if value.dtype.base_dtype != want:
            raise invalid(
                f"Tensor conversion requested dtype {want.name} for Tensor with dtype "
                f"{value.dtype.base_dtype.name}: {value!r}"
            )
        return value
    if value is None and is_grad:
        value = 0.0
    try:
        return graph.constant(value, want)
    except (TypeError, ValueError) as e:
        raise invalid(
            f"Cannot convert {value!r} to EagerTensor of dtype {want.name}: {e}"
        ) from None
