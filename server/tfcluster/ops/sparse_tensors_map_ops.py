"""SparseTensors kept in a map on a task, by int64 handle: how tf.train.batch and friends
carry SparseTensors through a queue (the queue holds handles; the batch takes the sparse
tensors back out and stacks them).

AddSparseToTensorsMap stores one SparseTensor, AddManySparseToTensorsMap stores each row of
a minibatch SparseTensor, TakeManySparseFromTensorsMap takes a vector of handles' tensors
out as one SparseTensor with a new leading dimension. A map is named by its shared_name, or
by the name of the op that adds to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, colocate_with, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor, is_sparse
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _take_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [
        (dtypes.int64, TensorShape([None, None])),
        (attrs["dtype"], TensorShape([None])),
        (dtypes.int64, TensorShape([None])),
    ]


op_def_registry.register(
    "AddSparseToTensorsMap", op_def_registry.fixed((dtypes.int64, [])), stateful=True
)
op_def_registry.register(
    "AddManySparseToTensorsMap", op_def_registry.fixed((dtypes.int64, [None])), stateful=True
)
op_def_registry.register("TakeManySparseFromTensorsMap", _take_infer, stateful=True)
OP_TYPES = ("AddSparseToTensorsMap", "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap")


def _add(op_type: str, sp_input: Any, shared_name: str | None, name: str | None) -> Tensor:
    if not is_sparse(sp_input):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    sp = SparseTensor.from_value(sp_input) if not isinstance(sp_input, SparseTensor) else sp_input
    attrs = {"T": sp.values.dtype.base_dtype, "container": "", "shared_name": shared_name or ""}
    with name_scope(name or op_type) as scope:
        op = make_op(op_type, [sp.indices, sp.values, sp.dense_shape], attrs, scope)
    return op.outputs[0]


def add_sparse_to_tensors_map(
    sp_input: Any, shared_name: str | None = None, name: str | None = None
) -> Tensor:
    """Stores one SparseTensor; returns its handle (int64 scalar)."""
    return _add("AddSparseToTensorsMap", sp_input, shared_name, name)


def add_many_sparse_to_tensors_map(
    sp_input: Any, shared_name: str | None = None, name: str | None = None
) -> Tensor:
    """Stores each row (along dimension 0) of a SparseTensor; returns their handles."""
    return _add("AddManySparseToTensorsMap", sp_input, shared_name, name)


def take_many_sparse_from_tensors_map(
    sparse_map_op: Operation, sparse_handles: Any, rank: int | None = None, name: str | None = None
) -> SparseTensor:
    """The SparseTensors of `sparse_handles` (taken out of the map sparse_map_op adds to),
    stacked along a new dimension 0."""
    if not isinstance(sparse_map_op, Operation):
        raise TypeError("sparse_map_op be an Operation")
    if sparse_map_op.type not in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        raise TypeError(
            "sparse_map_op must be one of AddSparseToTensorsMap or AddSparseToTensorsMap. "
            f"Instead, found `{sparse_map_op.type}`."
        )
    with colocate_with(sparse_map_op):
        shared_name = sparse_map_op.attrs.get("shared_name") or sparse_map_op.name
        attrs = {
            "dtype": sparse_map_op.attrs["T"],
            "container": sparse_map_op.attrs.get("container", ""),
            "shared_name": shared_name,
        }
        op = make_op(
            "TakeManySparseFromTensorsMap",
            [sparse_handles],
            attrs,
            name=name or "TakeManySparseFromTensorsMap",
        )
    indices, values, shape = op.outputs
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


__all__: list[str] = []
