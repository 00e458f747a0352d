"""The tensors a session keeps between runs (GetSessionHandle / GetSessionTensor /
DeleteSessionTensor): a store in the state of the task that runs them, keyed by the handle
string "<op name>;<id>;<device>" (TF's format; ids count up from 0 in each store)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]
# The ResourceMgr container of the store: Session.reset of every container clears it too.
CONTAINER = "_session_tensors"


class SessionTensorStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._tensors: dict[str, Any] = {}

    def add(self, op_name: str, device: str, value: Any) -> str:
        with self._lock:
            handle = f"{op_name};{next(self._ids)};{device}"
            self._tensors[handle] = value
        return handle

    def get(self, handle: str) -> Any:
        with self._lock:
            if handle not in self._tensors:
                raise invalid(f"The tensor with handle '{handle}' is not in the session store.")
            return self._tensors[handle]

    def delete(self, handle: str) -> None:
        with self._lock:
            if self._tensors.pop(handle, None) is None:
                raise invalid(
                    f"Failed to delete a tensor with handle '{handle}' in the session store."
                )


def _store(ctx: Any) -> SessionTensorStore:
    return ctx.resources.lookup_or_create(CONTAINER, "store", SessionTensorStore)  # type: ignore[no-any-return]


def _handle_of(value: Any) -> str:
    arr = np.asarray(host_array(value))
    if arr.ndim != 0:
        raise invalid(f"The handle must be a scalar string, got shape {list(arr.shape)}")
    item = arr.item()
    return item.decode() if isinstance(item, bytes) else str(item)


@kernel("GetSessionHandle", devices=CPU_ONLY)
def get_session_handle(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle = _store(ctx).add(node.name, node.device, ins[0])
        return (np.array(handle.encode(), dtype=object),)

    return compute


class StoredTensorHandle:
    """The DT_RESOURCE value of GetSessionHandleV2: TF's ResourceHandle of the stored tensor
    (container "localhost", its store handle as the name, its device). As a string it is the
    store handle, so a client's TensorHandle made from it reads the tensor back."""

    __slots__ = ("container", "device", "name")

    def __init__(self, name: str, device: str) -> None:
        self.container = "localhost"
        self.name = name
        self.device = device

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<StoredTensorHandle {self.name}>"


@kernel("GetSessionHandleV2", devices=CPU_ONLY)
def get_session_handle_v2(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle = _store(ctx).add(node.name, node.device, ins[0])
        return (StoredTensorHandle(handle, node.device),)

    return compute


@kernel("GetSessionTensor", devices=CPU_ONLY)
def get_session_tensor(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        value = _store(ctx).get(_handle_of(ins[0]))
        got = np.dtype(getattr(value, "dtype", object))
        if got != np.dtype(dtype.as_numpy_dtype):
            raise errors.InternalError(
                None,
                None,
                f"Output 0 of type {_type_name(got)} does not match declared output type "
                f"{_type_name(np.dtype(dtype.as_numpy_dtype))} for node {node.name}",
            )
        return (value,)

    return compute


def _type_name(np_dtype: np.dtype[Any]) -> str:
    # TF's DataTypeString names (float, double, int32, string, ...).
    names = {"float32": "float", "float64": "double", "object": "string"}
    return names.get(np_dtype.name, np_dtype.name)


@kernel("DeleteSessionTensor", devices=CPU_ONLY)
def delete_session_tensor(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _store(ctx).delete(_handle_of(ins[0]))
        return ()

    return compute
