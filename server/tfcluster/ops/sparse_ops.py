"""Sparse ops the losses and metrics build on: a SparseTensor added into a dense tensor
(SparseTensorDenseAdd, what tf.sparse_add does with one dense input, and what
tf.confusion_matrix accumulates with)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, errors, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.ops.op_util import Outputs, make_op


def _dense_add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dense = inputs[3]
    return [(dense.dtype.base_dtype, dense.shape)]


op_def_registry.register("SparseTensorDenseAdd", _dense_add_infer)


def _as_sparse(value: Any) -> SparseTensor:
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    return value  # type: ignore[no-any-return]


def sparse_tensor_dense_add(sparse: SparseTensor, dense: Any, name: str | None = None) -> Tensor:
    """dense + sparse, a dense tensor: every (index, value) of `sparse` added in (repeated
    indices add up)."""
    dense_t = convert_to_tensor(dense, name="b")
    values = sparse.values
    if values.dtype.base_dtype != dense_t.dtype.base_dtype:
        raise TypeError(
            f"Input 'b' of 'SparseTensorDenseAdd' Op has type {dense_t.dtype.base_dtype.name} "
            f"that does not match type {values.dtype.base_dtype.name} of argument 'a_values'."
        )
    attrs = {"T": dense_t.dtype.base_dtype, "Tindices": dtypes.int64}
    inputs = [sparse.indices, values, sparse.dense_shape, dense_t]
    return make_op("SparseTensorDenseAdd", inputs, attrs, name=name).outputs[0]


def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> Tensor:
    """tf.sparse_add with one dense input: their sum as a dense tensor. Two sparse inputs
    (a sparse result) are not implemented here yet."""
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse_classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if all(isinstance(x, sparse_classes) for x in (a, b)):
        raise errors.UnimplementedError(
            None, None, "tf.sparse_add of two SparseTensors is not implemented in tfcluster"
        )
    if isinstance(b, sparse_classes):
        a, b = b, a
    return sparse_tensor_dense_add(_as_sparse(a), b)


__all__ = ["sparse_add", "sparse_tensor_dense_add"]
