"""tf.SparseTensor and tf.SparseTensorValue: a sparse tensor as three dense tensors (indices,
values, dense_shape). Sessions fetch a SparseTensor as a SparseTensorValue and feed one
from a SparseTensorValue or an (indices, values, dense_shape) tuple, as TF's do.

The one home of these classes: parsing ops, sparse ops and feature columns all build on it.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Graph, Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape


class SparseTensorValue(
    collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
):
    """SparseTensorValue(indices, values, dense_shape)"""

    __slots__ = ()


class SparseTensor:
    """Represents a sparse tensor."""

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> SparseTensor:
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Neither a SparseTensor nor SparseTensorValue: {sparse_tensor_value}.")
        return cls(
            indices=sparse_tensor_value.indices,
            values=sparse_tensor_value.values,
            dense_shape=sparse_tensor_value.dense_shape,
        )

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        # Shapes must agree where known: indices [N, rank], values [N], dense_shape [rank].
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        rank = dense_shape.shape.with_rank(1)
        indices_shape[0].merge_with(values_shape[0])
        indices_shape[1].merge_with(rank[0])

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        return self._dense_shape

    @property
    def op(self) -> Operation:
        return self._values.op

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def graph(self) -> Graph:
        return self._indices.graph

    @property
    def shape(self) -> TensorShape:
        """The static shape: what is known of dense_shape's value."""
        return tensor_util.constant_value_as_shape(self._dense_shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    def consumers(self) -> list[Operation]:
        seen: list[Operation] = []
        for t in (self._indices, self._values, self._dense_shape):
            for op in t.consumers():
                if op not in seen:
                    seen.append(op)
        return seen

    def eval(self, feed_dict: Any = None, session: Any = None) -> SparseTensorValue:
        # Tensor.eval's default-session lookup and run work for any fetchable with a graph.
        result: SparseTensorValue = Tensor.eval(self, feed_dict, session)  # type: ignore[arg-type]
        return result

    def __str__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices}, values={self._values}, "
            f"dense_shape={self._dense_shape})"
        )

    __repr__ = __str__


def is_sparse(x: Any) -> bool:
    return isinstance(x, SparseTensor | SparseTensorValue)


def as_value(value: Any) -> SparseTensorValue:
    """A fed value (SparseTensorValue or a 3-tuple) as numpy arrays."""
    if not isinstance(value, tuple) or len(value) != 3:
        raise TypeError(
            "A SparseTensor is fed a SparseTensorValue or an (indices, values, dense_shape) "
            f"tuple, not {type(value).__name__}"
        )
    indices, values, dense_shape = value
    return SparseTensorValue(
        np.asarray(indices, dtype=np.int64),
        np.asarray(values),
        np.asarray(dense_shape, dtype=np.int64),
    )
