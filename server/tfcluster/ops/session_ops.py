"""Tensors kept in a session between runs: tf.get_session_handle / get_session_tensor /
delete_session_tensor and TensorHandle, as TF 1.15 builds them (GetSessionHandle,
GetSessionTensor, DeleteSessionTensor ops).

Running a GetSessionHandle op stores its input in the state of the task that runs it and
returns a handle string "<op name>;<id>;<device>"; a session returns it to the caller as a
TensorHandle. get_session_tensor places its reader on the handle's device, so a handle made on
any task of a cluster is read where its tensor lives.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import device_spec, dtypes, op_def_registry
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    colocate_with,
    device,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import Outputs, make_op


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape([]))]


def _tensor_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"], TensorShape(None))]


op_def_registry.register("GetSessionHandle", _handle_infer, stateful=True)


def _resource_handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([]))]


op_def_registry.register("GetSessionHandleV2", _resource_handle_infer, stateful=True)
op_def_registry.register("GetSessionTensor", _tensor_infer, stateful=True)
op_def_registry.register("DeleteSessionTensor", op_def_registry.no_outputs, stateful=True)


def get_session_handle(data: Any, name: str | None = None) -> Tensor:
    """A string tensor whose value, once run, is the handle of `data` kept in the session."""
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        attrs = {"T": data.dtype.base_dtype}
        return make_op("GetSessionHandle", [data], attrs, name=name or "GetSessionHandle").outputs[
            0
        ]


def get_session_tensor(handle: Any, dtype: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(holder, tensor): feed a handle string to the string placeholder `holder`, and `tensor`
    is the session's tensor of that handle."""
    handle_device = TensorHandle._get_device_name(handle)
    with device(handle_device):
        holder = array_ops.placeholder(dtypes.string)
        _register_handle_feeder(holder.graph, holder, dtype)
        attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype}
        tensor = make_op("GetSessionTensor", [holder], attrs, name=name or "GetSessionTensor")
    return holder, tensor.outputs[0]


def delete_session_tensor(handle: Any, name: str | None = None) -> tuple[Tensor, Operation]:
    """(holder, deleter): running `deleter` with a handle fed to `holder` frees its tensor."""
    handle_device = TensorHandle._get_device_name(handle)
    with device(handle_device):
        holder = array_ops.placeholder(dtypes.string)
        deleter = make_op("DeleteSessionTensor", [holder], {}, name=name or "DeleteSessionTensor")
    return holder, deleter


class TensorHandle:
    """What a session returns for a GetSessionHandle fetch: the handle of a tensor the session
    keeps. Feed it (or its .handle to get_session_tensor's holder) to later runs."""

    def __init__(self, handle: Any, dtype: Any, session: Any) -> None:
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtype
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self) -> None:
        if getattr(self, "_auto_gc_enabled", False):
            register = getattr(self._session, "_register_dead_handle", None)
            if register is not None:
                # A closed session's tensors went with it.
                with contextlib.suppress(Exception):
                    register(self.handle)

    def __str__(self) -> str:
        return self._handle

    @property
    def handle(self) -> str:
        """The string handle of the tensor."""
        return self._handle

    def to_numpy_array(self) -> str:
        return self._handle

    def get_raw_handle(self) -> str:
        return self._handle

    def eval(self) -> Any:
        """The tensor's value."""
        holder, reader = _get_handle_reader(self._session.graph, self._handle, self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self) -> None:
        """Frees the tensor in the session."""
        self._auto_gc_enabled = False
        holder, deleter = _get_handle_deleter(self._session.graph, 0, self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})

    @staticmethod
    def _get_device_name(handle: Any) -> str:
        text = handle.decode() if isinstance(handle, bytes) else str(handle)
        name = text.split(";")[-1]
        return device_spec.canonical_name(name) if name else ""

    @staticmethod
    def _get_reader_key(handle: Any) -> str:
        parts = str(handle).split(";")
        return parts[0] + ";" + parts[-1]


# Per graph, as TF keeps them on the Graph: placeholder op name -> dtype of the tensors it is
# fed handles of, and the reader/deleter subgraphs made for TensorHandle.eval/delete.
_FEEDERS: weakref.WeakKeyDictionary[Graph, dict[str, Any]] = weakref.WeakKeyDictionary()
_READERS: weakref.WeakKeyDictionary[Graph, dict[str, Any]] = weakref.WeakKeyDictionary()
_DELETERS: weakref.WeakKeyDictionary[Graph, dict[int, Any]] = weakref.WeakKeyDictionary()


def _register_handle_feeder(graph: Graph, feeder: Tensor, dtype: Any) -> None:
    _FEEDERS.setdefault(graph, {})[feeder.op.name] = dtype


def is_handle_feeder(graph: Graph, tensor: Tensor) -> bool:
    return tensor.op.name in _FEEDERS.get(graph, {})


def _get_handle_reader(graph: Graph, handle: str, dtype: Any) -> tuple[Tensor, Tensor]:
    key = TensorHandle._get_reader_key(handle)
    readers = _READERS.setdefault(graph, {})
    result = readers.get(key)
    if result is None:
        with graph.as_default(), device(TensorHandle._get_device_name(handle)):
            holder = array_ops.placeholder(dtypes.string)
            _register_handle_feeder(graph, holder, dtype)
            attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype}
            reader = make_op("GetSessionTensor", [holder], attrs, name="GetSessionTensor")
        result = readers[key] = (holder, reader.outputs[0])
    return result  # type: ignore[no-any-return]


def _get_handle_deleter(graph: Graph, deleter_key: int, handle: str) -> tuple[Tensor, Operation]:
    deleters = _DELETERS.setdefault(graph, {})
    result = deleters.get(deleter_key)
    if result is None:
        with graph.as_default(), device(TensorHandle._get_device_name(handle)):
            holder = array_ops.placeholder(dtypes.string)
            deleter = make_op("DeleteSessionTensor", [holder], {}, name="DeleteSessionTensor")
        result = deleters[deleter_key] = (holder, deleter)
    return result  # type: ignore[no-any-return]


def handle_deleters(graph: Graph, handles: Sequence[str]) -> tuple[dict[Tensor, str], list[Any]]:
    """Feeds and fetches that delete the tensors of `handles` in one run."""
    feeds: dict[Tensor, str] = {}
    fetches: list[Any] = []
    for key, handle in enumerate(handles):
        holder, deleter = _get_handle_deleter(graph, key, handle)
        feeds[holder] = handle
        fetches.append(deleter)
    return feeds, fetches
