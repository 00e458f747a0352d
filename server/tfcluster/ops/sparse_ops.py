"""Sparse ops the losses and metrics build on: a SparseTensor added into a dense tensor
(SparseTensorDenseAdd, what tf.sparse_add does with one dense input, and what
tf.confusion_matrix accumulates with), reshaped (SparseReshape), concatenated
(SparseConcat), filtered (sparse_retain)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _dense_add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dense = inputs[3]
    return [(dense.dtype.base_dtype, dense.shape)]


def _reshape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = inputs[2].shape.as_list()[0] if inputs[2].shape.ndims == 1 else None
    return [(dtypes.int64, TensorShape([None, rank])), (dtypes.int64, TensorShape([rank]))]


def _concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = attrs["N"]
    rank = inputs[2 * n].shape.as_list()[0] if inputs[2 * n].shape.ndims == 1 else None
    return [
        (dtypes.int64, TensorShape([None, rank])),
        (attrs["T"], TensorShape([None])),
        (dtypes.int64, TensorShape([rank])),
    ]


op_def_registry.register("SparseTensorDenseAdd", _dense_add_infer)
op_def_registry.register("SparseReshape", _reshape_infer)
op_def_registry.register("SparseConcat", _concat_infer)


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


def sparse_reshape(sp_input: Any, shape: Any, name: str | None = None) -> SparseTensor:
    """The same values at the indices of a tensor of shape `shape` (one -1 is inferred)."""
    from tfcluster.ops import array_ops, math_ops

    sp_input = _as_sparse(sp_input)
    shape = math_ops.cast(shape, dtype=dtypes.int64)
    with name_scope(name, "SparseReshape", [sp_input]) as scope:
        op = make_op(
            "SparseReshape", [sp_input.indices, sp_input.dense_shape, shape], {}, name=scope
        )
        reshaped_ind, reshaped_shape = op.outputs
        wanted = tensor_util.constant_value_as_shape(shape)
        known = wanted.as_list() if wanted.ndims is not None else None
        if known is not None and sp_input.shape.is_fully_defined():
            by_user = tensor_util.constant_value(shape)
            if by_user is not None and sum(int(d) == -1 for d in by_user) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {by_user}")
            original = list(known)
            in_size = int(np.prod([int(d or 0) for d in sp_input.shape.as_list()]))
            implied = [i for i, d in enumerate(known) if d is None]
            if len(implied) == 1:
                others = [d for d in original if d is not None]
                known[implied[0]] = int(in_size // int(np.prod(others)))
            if len(implied) <= 1:
                size = int(np.prod([int(d or 0) for d in known]))
                if size != in_size:
                    raise ValueError(
                        f"Cannot reshape a tensor with {in_size} elements to shape {original} "
                        f"({size} elements)."
                    )
                reshaped_shape = convert_to_tensor(known, dtype=dtypes.int64)
        return SparseTensor(reshaped_ind, array_ops.identity(sp_input.values), reshaped_shape)


def sparse_concat(axis: int, sp_inputs: Sequence[Any], name: str | None = None) -> SparseTensor:
    """SparseTensors joined along `axis` (their other dimensions equal), indices in row-major
    order."""
    inputs = [_as_sparse(x) for x in sp_inputs]
    if len(inputs) == 1:
        return inputs[0]
    attrs = {"N": len(inputs), "T": inputs[0].values.dtype.base_dtype, "concat_dim": int(axis)}
    tensors = (
        [x.indices for x in inputs] + [x.values for x in inputs] + [x.dense_shape for x in inputs]
    )
    op = make_op("SparseConcat", tensors, attrs, name=name or "SparseConcat")
    output_ind, output_val, output_shape = op.outputs
    known = [tensor_util.constant_value(x.dense_shape) for x in inputs]
    shapes = [[int(d) for d in k] for k in known if k is not None]
    if len(shapes) == len(known):
        dims = list(shapes[0])
        dims[axis] = sum(s[axis] for s in shapes)
        output_shape = convert_to_tensor(np.array(dims, dtype=np.int64))
    return SparseTensor(output_ind, output_val, output_shape)


def sparse_retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """The entries of `sp_input` where the boolean vector `to_retain` is true."""
    from tfcluster.ops import array_ops

    sp_input = _as_sparse(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.shape
    retain_shape.assert_has_rank(1)
    if sp_input.values.shape.ndims is not None:
        sp_input.values.shape[0].merge_with(retain_shape[0])
    where_true = array_ops.reshape(array_ops.where_v2(to_retain), [-1])
    new_indices = array_ops.gather(sp_input.indices, where_true)
    new_values = array_ops.gather(sp_input.values, where_true)
    return SparseTensor(new_indices, new_values, array_ops.identity(sp_input.dense_shape))


__all__ = [
    "sparse_add",
    "sparse_concat",
    "sparse_reshape",
    "sparse_retain",
    "sparse_tensor_dense_add",
]
