"""Nested fetch structures -> flat tensor/op names, and values back into the same structure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tfcluster.framework import (
    indexed_slices,
    numpy1_scalars,
    ragged_tensor_value,
    sparse_tensor,
)
from tfcluster.framework.graph import Graph, Operation, Tensor
from tfcluster.ops import session_ops
from tfcluster.ops.ragged_tensor import RaggedTensor


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


_HANDLE_OPS = ("GetSessionHandle", "GetSessionHandleV2")


class FetchHandler:
    """Flattens `fetches` (lists, tuples, dicts, namedtuples of graph elements)."""

    def __init__(self, graph: Graph, fetches: Any) -> None:
        self._graph = graph
        self.tensor_names: list[str] = []
        self.target_names: list[str] = []
        self._tensor_pos: dict[str, int] = {}
        self._structure = self._flatten(fetches)
        self._session: Any = None

    def _flatten(self, fetch: Any) -> Any:
        if fetch is None:
            # TF 1.15's words (later versions add what it must be).
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        if isinstance(fetch, sparse_tensor.SparseTensor):
            parts = (fetch.indices, fetch.values, fetch.dense_shape)
            return ("sparse", None, [self._flatten(p) for p in parts])
        if isinstance(fetch, RaggedTensor):
            components = (fetch.flat_values, *fetch.nested_row_splits)
            return ("ragged", None, [self._flatten(p) for p in components])
        if isinstance(fetch, indexed_slices.IndexedSlices):
            return ("slices", None, [self._flatten(p) for p in fetch.components()])
        if isinstance(fetch, (list, tuple)) and not hasattr(fetch, "_as_graph_element"):
            items = [self._flatten(f) for f in fetch]
            if _is_namedtuple(fetch):
                return ("namedtuple", type(fetch), items)
            return ("list" if isinstance(fetch, list) else "tuple", None, items)
        if isinstance(fetch, Mapping):
            return ("dict", type(fetch), [(k, self._flatten(v)) for k, v in fetch.items()])
        # Raised while handling the graph's error, as TF's are (a traceback shows both).
        try:
            elem = self._graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(  # noqa: B904
                f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or "
                f"Tensor. ({e})"
            )
        except ValueError as e:
            raise ValueError(  # noqa: B904
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e})"
            )
        except KeyError as e:
            # str() of a KeyError quotes its message, as TF's "(%s)" % str(e) shows it.
            raise ValueError(  # noqa: B904
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e})"
            )
        if isinstance(elem, Operation):
            if elem.name not in self.target_names:
                self.target_names.append(elem.name)
            return ("op", None, None)
        assert isinstance(elem, Tensor)
        pos = self._tensor_pos.get(elem.name)
        if pos is None:
            pos = self._tensor_pos[elem.name] = len(self.tensor_names)
            self.tensor_names.append(elem.name)
        if elem.op.type in _HANDLE_OPS:
            # A session handle comes back as a TensorHandle of its input's dtype.
            return ("handle", elem.op.inputs[0].dtype.base_dtype, pos)
        return ("tensor", None, pos)

    def build(
        self, values: list[Any], feeds: dict[str, Any] | None = None, session: Any = None
    ) -> Any:
        """Values in the fetch structure. Arrays the runtime keeps (constants and variables are
        read-only) or that the caller fed are copied, so a client owns what it gets back."""
        fed_ids = {id(v) for v in feeds.values()} if feeds else ()
        for i, v in enumerate(values):
            if isinstance(v, np.ndarray) and (not v.flags.writeable or id(v) in fed_ids):
                values[i] = v.copy()
        self._session = session
        return self._build(self._structure, values)

    def _build(self, node: Any, values: list[Any]) -> Any:
        kind, typ, payload = node
        if kind == "handle":
            raw = np.asarray(values[payload]).item()
            return session_ops.TensorHandle(raw, typ, self._session)
        if kind == "tensor":
            v = values[payload]
            # 0-d results come back as numpy scalars (np.float32(1.0)), as in TensorFlow.
            if isinstance(v, np.ndarray) and v.ndim == 0:
                return numpy1_scalars.as_fetched_scalar(v[()])
            if isinstance(v, np.generic):
                # A kernel's bare numpy scalar (0-d arithmetic gives one): the same wrapper.
                return numpy1_scalars.as_fetched_scalar(v)
            return v
        if kind == "op":
            return None
        if kind == "list":
            return [self._build(n, values) for n in payload]
        if kind == "tuple":
            return tuple(self._build(n, values) for n in payload)
        if kind == "namedtuple":
            return typ(*[self._build(n, values) for n in payload])
        if kind == "sparse":
            return sparse_tensor.SparseTensorValue(*[self._build(n, values) for n in payload])
        if kind == "ragged":
            flat_values, *nested_splits = [self._build(n, values) for n in payload]
            return ragged_tensor_value.from_nested(flat_values, nested_splits)
        if kind == "slices":
            parts = [self._build(n, values) for n in payload]
            return indexed_slices.value_from_components(parts)
        out = {k: self._build(n, values) for k, n in payload}
        return out if typ is dict else typ(out)


def expand_feed(graph: Graph, key: Any, value: Any) -> list[tuple[Tensor, Any]]:
    """A feed_dict entry as (tensor, value) pairs; tuples of tensors feed element-wise, and a
    SparseTensor its three tensors, and an IndexedSlices its values, indices and dense_shape."""
    if isinstance(key, sparse_tensor.SparseTensor):
        parts = sparse_tensor.as_value(value)
        return [
            (key.indices, parts.indices),
            (key.values, parts.values),
            (key.dense_shape, parts.dense_shape),
        ]
    if isinstance(key, RaggedTensor):
        return _expand_ragged_feed(key, value)
    if isinstance(key, indexed_slices.IndexedSlices):
        fed = indexed_slices.feed_components(value)
        tensors = key.components()
        if len(fed) != len(tensors):
            raise ValueError(
                f"An IndexedSlices with {len(tensors)} component tensors is fed "
                f"{len(fed)} values: {key}"
            )
        return list(zip(tensors, fed))
    if isinstance(key, (list, tuple)) and not hasattr(key, "_as_graph_element"):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            raise ValueError(f"Feed key {key!r} is a sequence but its value does not match")
        pairs = []
        for k, v in zip(key, value):
            pairs.extend(expand_feed(graph, k, v))
        return pairs
    try:
        tensor = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except Exception as e:
        # TF's Session._run: every failure is a TypeError with the error's first argument
        # (a KeyError's message without the quotes str() gives it).
        why = e.args[0] if e.args else str(e)
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {why}") from None
    assert isinstance(tensor, Tensor)
    return [(tensor, value)]


def feed_components(key: Any) -> list[Any]:
    """The graph elements a partial run's declared feed stands for (TF's feed_fn2): a
    SparseTensor's three tensors, an IndexedSlices' components, else the key itself."""
    if isinstance(key, sparse_tensor.SparseTensor):
        return [key.indices, key.values, key.dense_shape]
    if isinstance(key, indexed_slices.IndexedSlices):
        return list(key.components())
    return [key]


def _expand_ragged_feed(key: RaggedTensor, value: Any) -> list[tuple[Tensor, Any]]:
    """A RaggedTensor is fed a RaggedTensorValue of the same ragged_rank: its flat values
    and each level's row splits."""
    if not isinstance(value, ragged_tensor_value.RaggedTensorValue):
        raise TypeError(
            f"A RaggedTensor is fed a tf.ragged.RaggedTensorValue, not {type(value).__name__}"
        )
    if value.ragged_rank != key.ragged_rank:
        raise ValueError(
            f"Cannot feed a RaggedTensorValue of ragged_rank {value.ragged_rank} to a "
            f"RaggedTensor of ragged_rank {key.ragged_rank}"
        )
    pairs = [(key.flat_values, value.flat_values)]
    pairs.extend(zip(key.nested_row_splits, value.nested_row_splits))
    return pairs
