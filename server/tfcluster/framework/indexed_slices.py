"""tf.IndexedSlices and tf.IndexedSlicesValue: slices of a large tensor at given rows.

An IndexedSlices is a pair of tensors, `values` [N, D1, ...] and `indices` [N], standing for a
dense tensor of shape `dense_shape` [LARGE0, D1, ...] with `dense[indices[i]] = values[i]`
(repeated indices add up). Gradients of gathers are IndexedSlices, so that an optimizer
updates only the gathered rows of a variable and only those rows cross the network to the
task that holds it. Sessions fetch an IndexedSlices as an IndexedSlicesValue and feed one from
an IndexedSlicesValue or a (values, indices[, dense_shape]) tuple, as TF's do.

Converting one to a dense tensor (tf.convert_to_tensor, any op that takes it) sums its rows
into a new tensor (UnsortedSegmentSum): the ops layer registers that conversion
(ops/indexed_slices_ops.py), since the floor makes no ops of its own.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_graph_from_inputs,
)


class IndexedSlicesValue(
    collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
):
    """IndexedSlicesValue(values, indices, dense_shape)"""

    __slots__ = ()


class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices."""

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Tensor | None = None) -> None:
        get_graph_from_inputs([t for t in (values, indices, dense_shape) if t is not None])
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Tensor:
        """A `Tensor` containing the values of the slices."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """A 1-D `Tensor` containing the indices of the slices."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """A 1-D `Tensor` containing the shape of the corresponding dense tensor."""
        return self._dense_shape

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def op(self) -> Operation:
        """The `Operation` that produces `values` as an output."""
        return self._values.op

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def graph(self) -> Graph:
        return self._values.graph

    def consumers(self) -> list[Operation]:
        seen: list[Operation] = []
        for t in (self._values, self._indices, self._dense_shape):
            for op in t.consumers() if t is not None else ():
                if op not in seen:
                    seen.append(op)
        return seen

    def eval(self, feed_dict: Any = None, session: Any = None) -> IndexedSlicesValue:
        # Tensor.eval's default-session lookup and run work for any fetchable with a graph.
        result: IndexedSlicesValue = Tensor.eval(self, feed_dict, session)  # type: ignore[arg-type]
        return result

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self) -> str:
        shape = f", dense_shape={self._dense_shape}" if self._dense_shape is not None else ""
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    __repr__ = __str__

    def components(self) -> list[Tensor]:
        """The tensors that make it up, as a session fetches and feeds them."""
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)
        return parts


def value_from_components(parts: Sequence[Any]) -> IndexedSlicesValue:
    """The IndexedSlicesValue of fetched (values, indices[, dense_shape])."""
    if len(parts) == 2:
        return IndexedSlicesValue(parts[0], parts[1], None)
    return IndexedSlicesValue(*parts)


def feed_components(value: Any) -> list[Any]:
    """A fed IndexedSlicesValue or (values, indices[, dense_shape]) tuple, as its parts."""
    if not isinstance(value, tuple) or len(value) not in (2, 3):
        raise TypeError(
            "An IndexedSlices is fed an IndexedSlicesValue or a (values, indices, dense_shape) "
            f"tuple, not {type(value).__name__}"
        )
    parts = list(value)
    if len(parts) == 3 and parts[2] is None:
        parts = parts[:2]
    return parts


def convert_to_tensor_or_indexed_slices(
    value: Any, dtype: Any = None, name: str | None = None
) -> Any:
    """An IndexedSlices or SparseTensor unchanged (checked against dtype); anything else as a
    Tensor."""
    return internal_convert_to_tensor_or_indexed_slices(value, dtype=dtype, name=name)


def internal_convert_to_tensor_or_indexed_slices(
    value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False
) -> Any:
    from tfcluster.framework import sparse_tensor  # the sibling composite, same floor

    if isinstance(value, IndexedSlices | sparse_tensor.SparseTensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor "
                f"with dtype {value.dtype.name}: {str(value)!r}"
            )
        return value
    return convert_to_tensor(value, dtype=dtype, name=name, as_ref=as_ref)


def convert_n_to_tensor_or_indexed_slices(
    values: Sequence[Any], dtype: Any = None, name: str | None = None
) -> list[Any]:
    """Each of values through convert_to_tensor_or_indexed_slices (None stays None); a new
    Tensor i is named `name_i`."""
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise TypeError("values must be a sequence.")
    out: list[Any] = []
    for i, v in enumerate(values):
        if v is None:
            out.append(None)
        else:
            n = None if name is None else f"{name}_{i}"
            out.append(internal_convert_to_tensor_or_indexed_slices(v, dtype=dtype, name=n))
    return out


__all__ = [
    "IndexedSlices",
    "IndexedSlicesValue",
    "convert_to_tensor_or_indexed_slices",
]
