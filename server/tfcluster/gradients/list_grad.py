"""Gradients of the TensorList ops, as TF 1.15's list_ops: a list's gradient is a list of its
elements' gradients, built by the op that undoes the forward one (a push's gradient pops,
a stack's unstacks, ...). The length, element shape and batched ops are not differentiable.

A list output nothing differentiated reaches gets zeros here (TF's gradients fill zeros for
every variant output; this table's tf.gradients leaves variants None)."""

from __future__ import annotations

import functools
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, raw_op_library

for _op in (
    "TensorListConcatLists",
    "TensorListElementShape",
    "TensorListLength",
    "TensorListPushBackBatch",
):
    not_differentiable(_op)


class _RawListOps:
    """The list ops as tf.raw_ops builds them, from TF's own signature (as TF's gen_list_ops),
    without importing the api folder (it imports the gradients)."""

    def __getattr__(self, op_type: str) -> Any:
        return _raw_op(op_type)


@functools.cache
def _raw_op(op_type: str) -> Any:
    return raw_op_library.raw_op_function(op_type)


def _raw() -> _RawListOps:
    return _RAW


_RAW = _RawListOps()


def _or_zeros(dlist: Tensor | None, like: Tensor) -> Tensor:
    return dlist if dlist is not None else array_ops.zeros_like(like)


def _element_shape_of(handle: Tensor) -> Tensor:
    return _raw().TensorListElementShape(input_handle=handle, shape_type=dtypes.int32)


def _shape_arg(shape: TensorShape) -> Any:
    """A static shape as the ops' element_shape input: -1 for an unknown rank or dimension."""
    if shape.ndims is None:
        return -1
    return [-1 if d is None else d for d in shape.as_list()]


def _tail_shape(t: Tensor) -> Tensor:
    return array_ops.slice(array_ops.shape(t), [1], [-1])


@RegisterGradient("TensorListPushBack")
def _push_back_grad(op: Operation, dresult: Tensor | None) -> Any:
    # The pop's two outputs are the gradients of the list and of the pushed element.
    dlist, delement = _raw().TensorListPopBack(
        input_handle=_or_zeros(dresult, op.outputs[0]),
        element_shape=array_ops.shape(op.inputs[1]),
        element_dtype=op._get_attr("element_dtype"),
    )
    return dlist, delement


@RegisterGradient("TensorListPopBack")
def _pop_back_grad(op: Operation, dlist: Tensor | None, delement: Tensor | None) -> Any:
    dlist = _or_zeros(dlist, op.outputs[0])
    if delement is None:
        delement = array_ops.zeros_like(op.outputs[1])
    return _raw().TensorListPushBack(input_handle=dlist, tensor=delement), None


@RegisterGradient("TensorListStack")
def _stack_grad(op: Operation, dtensor: Tensor) -> Any:
    dlist = _raw().TensorListFromTensor(tensor=dtensor, element_shape=_shape_arg(dtensor.shape[1:]))
    return dlist, None


def _concat_grad(op: Operation, dtensor: Tensor, unused_dlengths: Any) -> Any:
    dlist = _raw().TensorListSplit(
        tensor=dtensor, element_shape=_element_shape_of(op.inputs[0]), lengths=op.outputs[1]
    )
    return [dlist] + [None] * (len(op.inputs) - 1)


RegisterGradient("TensorListConcat")(_concat_grad)
RegisterGradient("TensorListConcatV2")(_concat_grad)


@RegisterGradient("TensorListSplit")
def _split_grad(op: Operation, dlist: Tensor | None) -> Any:
    tensor, _, lengths = op.inputs
    element_shape = array_ops.concat([[-1], _tail_shape(tensor)], axis=0)
    dtensor, _ = _raw().TensorListConcatV2(
        input_handle=_or_zeros(dlist, op.outputs[0]),
        element_shape=element_shape,
        leading_dims=lengths,
        element_dtype=tensor.dtype.base_dtype,
    )
    return dtensor, None, None


@RegisterGradient("TensorListFromTensor")
def _from_tensor_grad(op: Operation, dlist: Tensor | None) -> Any:
    t = op.inputs[0]
    first = t.shape[0] if t.shape.ndims else None
    dtensor = _raw().TensorListStack(
        input_handle=_or_zeros(dlist, op.outputs[0]),
        element_shape=_tail_shape(t),
        element_dtype=t.dtype.base_dtype,
        num_elements=-1 if first is None else first,
    )
    return dtensor, None


@RegisterGradient("TensorListGetItem")
def _get_item_grad(op: Operation, ditem: Tensor) -> Any:
    handle = op.inputs[0]
    reserved = _raw().TensorListReserve(
        element_shape=_element_shape_of(handle),
        num_elements=_raw().TensorListLength(input_handle=handle),
        element_dtype=ditem.dtype.base_dtype,
    )
    dlist = _raw().TensorListSetItem(input_handle=reserved, index=op.inputs[1], item=ditem)
    return dlist, None, None


@RegisterGradient("TensorListSetItem")
def _set_item_grad(op: Operation, dlist: Tensor | None) -> Any:
    _, index, item = op.inputs
    dlist = _or_zeros(dlist, op.outputs[0])
    list_grad = _raw().TensorListSetItem(
        input_handle=dlist, index=index, item=array_ops.zeros_like(item)
    )
    item_grad = _raw().TensorListGetItem(
        input_handle=dlist,
        index=index,
        element_shape=array_ops.shape(item),
        element_dtype=item.dtype.base_dtype,
    )
    return list_grad, None, item_grad


@RegisterGradient("TensorListResize")
def _resize_grad(op: Operation, dlist: Tensor | None) -> Any:
    size = _raw().TensorListLength(input_handle=op.inputs[0])
    resized = _raw().TensorListResize(input_handle=_or_zeros(dlist, op.outputs[0]), size=size)
    return resized, None


@RegisterGradient("TensorListGather")
def _gather_grad(op: Operation, dtensor: Tensor) -> Any:
    handle, indices, _ = op.inputs
    reserved = _raw().TensorListReserve(
        element_shape=_element_shape_of(handle),
        num_elements=_raw().TensorListLength(input_handle=handle),
        element_dtype=dtensor.dtype.base_dtype,
    )
    dlist = _raw().TensorListScatterIntoExistingList(
        input_handle=reserved, tensor=dtensor, indices=indices
    )
    return dlist, None, None


def _scatter_grad(op: Operation, dlist: Tensor | None) -> Any:
    tensor, indices = op.inputs[0], op.inputs[1]
    dtensor = _raw().TensorListGather(
        input_handle=_or_zeros(dlist, op.outputs[0]),
        indices=indices,
        element_shape=_tail_shape(tensor),
        element_dtype=tensor.dtype.base_dtype,
    )
    return [dtensor] + [None] * (len(op.inputs) - 1)


RegisterGradient("TensorListScatter")(_scatter_grad)
RegisterGradient("TensorListScatterV2")(_scatter_grad)


@RegisterGradient("TensorListScatterIntoExistingList")
def _scatter_into_existing_grad(op: Operation, dlist: Tensor | None) -> Any:
    _, tensor, indices = op.inputs
    dlist = _or_zeros(dlist, op.outputs[0])
    dtensor = _raw().TensorListGather(
        input_handle=dlist,
        indices=indices,
        element_shape=_tail_shape(tensor),
        element_dtype=tensor.dtype.base_dtype,
    )
    cleared = _raw().TensorListScatterIntoExistingList(
        input_handle=dlist, tensor=array_ops.zeros_like(tensor), indices=indices
    )
    return cleared, dtensor, None
