"""tf.serialize_sparse, tf.serialize_many_sparse and tf.deserialize_many_sparse (also under
tf.io): a SparseTensor as three serialized TensorProtos (indices, values, dense_shape), a
minibatch of them one row per entry, and back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.sparse_ops import _convert


def _out_type(value: Any) -> dtypes.DType:
    out = dtypes.as_dtype(value).base_dtype
    if out is not dtypes.string and out is not dtypes.variant:
        raise TypeError(
            f"Value passed to parameter 'out_type' has DataType {out.name} not in list of "
            "allowed values: string, variant"
        )
    return out


def _serialize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["out_type"], TensorShape([3]))]


def _serialize_many_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = inputs[2].shape.as_list()[0] if inputs[2].shape.ndims == 1 else None
    if rank is not None and rank < 2:
        raise ValueError("SparseTensor must have rank at least 2 to serialize many")
    return [(attrs["out_type"], TensorShape([None, 3]))]


def _deserialize_many_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    serialized = inputs[0].shape
    if serialized.ndims not in (None, 2) or (
        serialized.ndims == 2 and serialized.as_list()[1] not in (None, 3)
    ):
        raise ValueError(f"Shape must be [?,3] for serialized sparse tensors, got {serialized}")
    return [
        (dtypes.int64, TensorShape([None, None])),
        (attrs["dtype"], TensorShape([None])),
        (dtypes.int64, TensorShape([None])),
    ]


op_def_registry.register("SerializeSparse", _serialize_infer)
op_def_registry.register("SerializeManySparse", _serialize_many_infer)
op_def_registry.register("DeserializeManySparse", _deserialize_many_infer)


def _serialize(op_type: str, sp_input: Any, name: str | None, out_type: Any) -> Tensor:
    sp = _convert(sp_input)
    out = _out_type(out_type)
    with name_scope(name, op_type, [sp.indices, sp.values, sp.dense_shape]) as scope:
        attrs = {"T": sp.values.dtype.base_dtype, "out_type": out}
        inputs = [sp.indices, sp.values, sp.dense_shape]
        return make_op(op_type, inputs, attrs, name=scope).outputs[0]


def serialize_sparse(
    sp_input: Any, name: str | None = None, out_type: Any = dtypes.string
) -> Tensor:
    """A [3] string vector: the serialized TensorProtos of indices, values and dense_shape."""
    return _serialize("SerializeSparse", sp_input, name, out_type)


def serialize_many_sparse(
    sp_input: Any, name: str | None = None, out_type: Any = dtypes.string
) -> Tensor:
    """[N, 3] strings: row i serializes the entries of minibatch entry i (the first dimension,
    along which the entries must be sorted) as a SparseTensor of one rank less."""
    return _serialize("SerializeManySparse", sp_input, name, out_type)


def deserialize_many_sparse(
    serialized_sparse: Any, dtype: Any, rank: int | None = None, name: str | None = None
) -> SparseTensor:
    """One SparseTensor from [N, 3] serialized ones: entry i's indices get i in front, and the
    dense shape is N followed by the largest of each dimension."""
    from tfcluster.framework.graph import convert_to_tensor

    with name_scope(name, "DeserializeManySparse", [serialized_sparse]) as scope:
        s = convert_to_tensor(serialized_sparse, name="serialized_sparse", dtype=dtypes.string)
        attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype}
        indices, values, shape = make_op("DeserializeManySparse", [s], attrs, name=scope).outputs
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


def deserialize_sparse(
    serialized_sparse: Tensor, dtype: Any, rank: int | None = None, name: str | None = None
) -> SparseTensor:
    """One SparseTensor from [..., 3] serialized ones (strings or TF's variant form): the
    leading dimensions become its first dimensions."""
    with name_scope(name, "DeserializeSparse", [serialized_sparse]) as scope:
        attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype, "Tserialized": serialized_sparse.dtype}
        op = make_op("DeserializeSparse", [serialized_sparse], attrs, name=scope)
    indices, values, shape = op.outputs
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


__all__ = ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]
