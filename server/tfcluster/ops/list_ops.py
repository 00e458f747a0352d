"""TF's TensorList ops (kernels/tensor_lists.py): a list is a variant scalar, changed by ops
that return a new list. Static shapes: the list ops' variant outputs are scalars; read
elements take the element_shape input where it is a constant (TF also reads the shape the
variant's handle data carries, which tfcluster does not keep)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_LIST = (dtypes.variant, TensorShape([]))


def _list_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [_LIST]


def _batch_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.variant, inputs[0].shape)]


def _constant_shape(t: Any) -> TensorShape:
    value = tensor_util.constant_value(t)
    if value is None:
        return TensorShape(None)
    if value.ndim == 0:
        return TensorShape(None)  # -1: an unknown rank
    return TensorShape([None if int(d) < 0 else int(d) for d in value.reshape(-1)])


def _element(attrs: dict[str, Any]) -> dtypes.DType:
    return dtypes.as_dtype(attrs["element_dtype"])


def _list_dtype(handle: Any) -> dtypes.DType | None:
    """The element dtype of the list a handle comes from, where its op says it (TF keeps it
    in the variant's handle data and checks ops against it at graph time)."""
    op = getattr(handle, "op", None)
    if op is None or op.type not in _OPS:
        return None
    if op.type == "TensorListResize":
        return _list_dtype(op.inputs[0])
    dtype = op.attrs.get("element_dtype")
    return None if dtype is None else dtypes.as_dtype(dtype)


def _check_list_dtype(handle: Any, attrs: dict[str, Any], verb: str) -> None:
    have, want = _list_dtype(handle), _element(attrs)
    if have is not None and have != want:
        raise ValueError(
            f"Trying to {verb} list with wrong element dtype. List has type {have.name} but "
            f"trying to {verb} element with type {want.name}"
        )


def _push_back_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    _check_list_dtype(inputs[0], attrs, "push")
    return [_LIST]


def _get_item_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    _check_list_dtype(inputs[0], attrs, "read")
    return [(_element(attrs), _constant_shape(inputs[2]))]


def _pop_back_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    _check_list_dtype(inputs[0], attrs, "pop")
    return [_LIST, (_element(attrs), _constant_shape(inputs[1]))]


def _stack_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    n = int(attrs.get("num_elements", -1))
    lead = TensorShape([None if n < 0 else n])
    shape = _constant_shape(inputs[1])
    return [(_element(attrs), lead.concatenate(shape) if shape.ndims is not None else shape)]


def _gather_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    shape = _constant_shape(inputs[2])
    lead = TensorShape([None])
    return [(_element(attrs), lead.concatenate(shape) if shape.ndims is not None else shape)]


def _concat_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(_element(attrs), TensorShape(None)), (dtypes.int64, TensorShape([None]))]


def _element_shape_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(attrs["shape_type"]), TensorShape(None))]


_OPS = {
    "EmptyTensorList": _list_infer,
    "TensorListReserve": _list_infer,
    "TensorListFromTensor": _list_infer,
    "TensorListScatter": _list_infer,
    "TensorListScatterV2": _list_infer,
    "TensorListScatterIntoExistingList": _list_infer,
    "TensorListSplit": _list_infer,
    "TensorListPushBack": _push_back_infer,
    "TensorListPushBackBatch": _batch_infer,
    "TensorListPopBack": _pop_back_infer,
    "TensorListSetItem": _list_infer,
    "TensorListResize": _list_infer,
    "TensorListConcatLists": _batch_infer,
    "TensorListLength": op_def_registry.fixed((dtypes.int32, TensorShape([]))),
    "TensorListElementShape": _element_shape_infer,
    "TensorListGetItem": _get_item_infer,
    "TensorListGather": _gather_infer,
    "TensorListStack": _stack_infer,
    "TensorListConcat": _concat_infer,
    "TensorListConcatV2": _concat_infer,
}
for _op, _infer in _OPS.items():
    op_def_registry.register(_op, _infer)
OP_TYPES = tuple(_OPS)

__all__: list[str] = []
