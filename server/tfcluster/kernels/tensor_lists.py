"""TF's TensorList ops (list_kernels): a list is a variant value, a `TensorListValue` holding
its element dtype, element shape (partial), the most elements it may hold and its tensors
(None for an element never set). Lists are values: every op that changes one returns a new
list and leaves its input as it was. An element never set reads as zeros when its shape is
fully known. Messages follow TF's list_kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.common import host_ints, invalid, scalar_int
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import shape_text


class TensorListValue:
    __slots__ = ("element_dtype", "element_shape", "max_num_elements", "tensors")

    def __init__(
        self,
        element_dtype: dtypes.DType,
        element_shape: TensorShape,
        tensors: list[Any],
        max_num_elements: int = -1,
    ) -> None:
        self.element_dtype = element_dtype
        self.element_shape = element_shape
        self.tensors = tensors
        self.max_num_elements = max_num_elements

    def copy(self, tensors: list[Any] | None = None) -> TensorListValue:
        return TensorListValue(
            self.element_dtype,
            self.element_shape,
            list(self.tensors) if tensors is None else tensors,
            self.max_num_elements,
        )


def _partial_shape(value: Any) -> TensorShape:
    """An element_shape input: -1 (a scalar) for an unknown rank, -1 for unknown dims."""
    a = np.asarray(value)
    if a.ndim == 0:
        if int(a) != -1:
            raise invalid(
                f"The only valid scalar shape tensor is the fully unknown shape -1, got {int(a)}"
            )
        return TensorShape(None)
    return TensorShape([None if int(d) < 0 else int(d) for d in a.reshape(-1)])


def _list(value: Any, node_name: str) -> TensorListValue:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, TensorListValue):
        raise invalid(f"{node_name}: input is not a TensorList ({type(value).__name__})")
    return value


def _element_type(node: Any) -> dtypes.DType:
    return dtypes.as_dtype(node.attrs["element_dtype"]).base_dtype


def _dtype_of(value: Any) -> dtypes.DType:
    a = np.asarray(value)
    return dtypes.string if a.dtype == object else dtypes.as_dtype(a.dtype)


def _check_list_type(lst: TensorListValue, want: dtypes.DType) -> None:
    if lst.element_dtype != want:
        raise invalid(
            f"Invalid data types; op elements {want.name} but list elements "
            f"{lst.element_dtype.name}"
        )


def _check_item(lst: TensorListValue, item: Any, what: str) -> np.ndarray:
    a = np.asarray(item)
    got = _dtype_of(a)
    if got != lst.element_dtype:
        raise invalid(
            f"Invalid data types; list elements {lst.element_dtype.name} but tried to {what} "
            f"{got.name}"
        )
    if not lst.element_shape.is_compatible_with(TensorShape(a.shape)):
        raise invalid(
            f"Tried to {what} a tensor with incompatible shape to a list. Op element shape: "
            f"{shape_text(a.shape)} list shape: {shape_text(lst.element_shape)}"
        )
    return a


def _merged_shape(lst: TensorListValue, requested: TensorShape) -> TensorShape:
    if not lst.element_shape.is_compatible_with(requested):
        raise invalid(
            f"Incompatible shapes in element_shape: {shape_text(requested)} and list shape "
            f"{shape_text(lst.element_shape)}"
        )
    return lst.element_shape.merge_with(requested)


def _zeros(lst: TensorListValue, shape: TensorShape, what: str) -> np.ndarray:
    if not shape.is_fully_defined():
        raise invalid(
            f"Trying to read an uninitialized tensor but element_shape is not fully defined: "
            f"{shape_text(shape)} ({what})"
        )
    np_type = object if lst.element_dtype == dtypes.string else lst.element_dtype.as_numpy_dtype
    fill = b"" if np_type is object else 0
    return np.full([int(d or 0) for d in shape.as_list()], fill, dtype=np_type)


def _items(lst: TensorListValue, indices: Sequence[int], shape: TensorShape) -> list[Any]:
    out = []
    for i in indices:
        if not 0 <= i < len(lst.tensors):
            raise invalid(
                f"Trying to access element {i} in a list with {len(lst.tensors)} elements."
            )
        t = lst.tensors[i]
        out.append(_zeros(lst, shape, f"element {i}") if t is None else t)
    return out


def _stacked(lst: TensorListValue, items: list[Any], shape: TensorShape) -> np.ndarray:
    if not items:
        dims = _zeros(lst, shape, "an empty list").shape
        np_type = object if lst.element_dtype == dtypes.string else lst.element_dtype.as_numpy_dtype
        return np.empty([0, *dims], dtype=np_type)
    first = np.shape(items[0])
    for i, t in enumerate(items):
        if np.shape(t) != first:
            raise invalid(
                f"Tried to stack elements of different shapes: element 0 has shape "
                f"{shape_text(first)}, element {i} has shape {shape_text(np.shape(t))}"
            )
    return np.stack(items)


# ---- making lists --------------------------------------------------------------------------


@kernel("EmptyTensorList", devices=CPU_ONLY)
def empty_tensor_list(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        limit = scalar_int(ins[1], "max_num_elements")
        return (TensorListValue(dtype, _partial_shape(ins[0]), [], limit),)

    return compute


@kernel("TensorListReserve", devices=CPU_ONLY)
def tensor_list_reserve(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        n = scalar_int(ins[1], "num_elements")
        if n < 0:
            raise invalid(f"The num_elements to reserve must be a non negative number, but got {n}")
        return (TensorListValue(dtype, _partial_shape(ins[0]), [None] * n),)

    return compute


def _at_least_vector(value: Any) -> np.ndarray:
    """The tensor a list is made of (FromTensor, Split): its first axis holds the elements."""
    t = np.asarray(value)
    if t.ndim < 1:
        raise invalid(f"Tensor must be at least a vector, but saw shape: {shape_text(t.shape)}")
    return t


@kernel("TensorListFromTensor", devices=CPU_ONLY)
def tensor_list_from_tensor(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        t = _at_least_vector(ins[0])
        shape = _partial_shape(ins[1])
        if not shape.is_compatible_with(TensorShape(t.shape[1:])):
            raise invalid(
                f"Specified a list with shape {shape_text(shape)} from a tensor with shape "
                f"{shape_text(t.shape)}"
            )
        return (TensorListValue(dtype, shape, [t[i].copy() for i in range(t.shape[0])]),)

    return compute


def _scatter(lst: TensorListValue, tensor: np.ndarray, indices: list[int]) -> TensorListValue:
    if tensor.ndim < 1 or tensor.shape[0] != len(indices):
        raise invalid(
            f"Invalid number of rows in input tensor. Expected: {len(indices)} Actual: "
            f"{tensor.shape[0] if tensor.ndim else 0}"
        )
    out = lst.copy()
    for row, i in enumerate(indices):
        if i < 0:
            raise invalid(f"Indices in TensorListScatter must all be non-negative, got {i}")
        if i >= len(out.tensors):
            raise invalid(f"Trying to scatter at index {i} in list with size {len(out.tensors)}")
        out.tensors[i] = _check_item(out, tensor[row], "scatter")
    return out


@kernel("TensorListScatter", devices=CPU_ONLY)
@kernel("TensorListScatterV2", devices=CPU_ONLY)
def tensor_list_scatter(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)
    sized = node.op == "TensorListScatterV2"

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        tensor, indices = np.asarray(ins[0]), host_ints(ins[1])
        n = scalar_int(ins[3], "num_elements") if sized else -1
        if n < 0:
            n = max(indices, default=-1) + 1
        lst = TensorListValue(dtype, _partial_shape(ins[2]), [None] * n)
        return (_scatter(lst, tensor, indices),)

    return compute


@kernel("TensorListScatterIntoExistingList", devices=CPU_ONLY)
def tensor_list_scatter_into_existing_list(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        return (_scatter(lst, np.asarray(ins[1]), host_ints(ins[2])),)

    return compute


@kernel("TensorListSplit", devices=CPU_ONLY)
def tensor_list_split(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        t = _at_least_vector(ins[0])
        lengths = host_ints(ins[2])
        if sum(lengths) != t.shape[0] or any(n < 0 for n in lengths):
            raise invalid(
                f"Unable to split tensor of shape {shape_text(t.shape)} into lengths "
                f"summing to {sum(lengths)}"
            )
        shape = _partial_shape(ins[1])
        ends = np.cumsum(lengths)
        parts = [t[e - n : e].copy() for n, e in zip(lengths, ends)]
        return (TensorListValue(dtype, shape, parts),)

    return compute


# ---- changing lists (each a new list) ------------------------------------------------------


@kernel("TensorListPushBack", devices=CPU_ONLY)
def tensor_list_push_back(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        item = _check_item(lst, ins[1], "append")
        if 0 <= lst.max_num_elements <= len(lst.tensors):
            raise invalid(
                f"Tried to push item into a full list list size: {len(lst.tensors)} max "
                f"elements: {lst.max_num_elements}"
            )
        return (lst.copy([*lst.tensors, item]),)

    return compute


@kernel("TensorListPushBackBatch", devices=CPU_ONLY)
def tensor_list_push_back_batch(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handles, tensor = np.asarray(ins[0], dtype=object), np.asarray(ins[1])
        if handles.ndim != 1 or tensor.ndim < 1 or tensor.shape[0] != handles.shape[0]:
            raise invalid(
                f"Expected input_handles of rank 1 and a tensor of batch size "
                f"{handles.shape[0] if handles.ndim else 0}, got {shape_text(tensor.shape)}"
            )
        out = np.empty(handles.shape, dtype=object)
        for b, handle in enumerate(handles):
            lst = _list(handle, node.name)
            out[b] = lst.copy([*lst.tensors, _check_item(lst, tensor[b], "append")])
        return (out,)

    return compute


@kernel("TensorListPopBack", devices=CPU_ONLY)
def tensor_list_pop_back(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        if not lst.tensors:
            raise invalid("Trying to pop from an empty list.")
        shape = _merged_shape(lst, _partial_shape(ins[1]))
        (item,) = _items(lst, [len(lst.tensors) - 1], shape)
        return (lst.copy(lst.tensors[:-1]), item)

    return compute


@kernel("TensorListSetItem", devices=CPU_ONLY)
def tensor_list_set_item(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        index = scalar_int(ins[1], "index")
        if not 0 <= index < len(lst.tensors):
            raise invalid(
                f"Trying to modify element {index} in a list with {len(lst.tensors)} elements."
            )
        out = lst.copy()
        out.tensors[index] = _check_item(lst, ins[2], "set")
        return (out,)

    return compute


@kernel("TensorListResize", devices=CPU_ONLY)
def tensor_list_resize(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        size = scalar_int(ins[1], "size")
        if size < 0:
            raise invalid(f"TensorListSlice expects size to be non-negative. Got: {size}")
        tensors = lst.tensors[:size] + [None] * max(0, size - len(lst.tensors))
        return (lst.copy(tensors),)

    return compute


@kernel("TensorListConcatLists", devices=CPU_ONLY)
def tensor_list_concat_lists(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = np.asarray(ins[0], dtype=object), np.asarray(ins[1], dtype=object)
        if a.shape != b.shape:
            raise invalid(
                f"Expected input_a.shape == input_b.shape, but saw: {shape_text(a.shape)} vs. "
                f"{shape_text(b.shape)}"
            )
        out = np.empty(a.shape, dtype=object)
        for i, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
            left, right = _list(x, node.name), _list(y, node.name)
            _check_list_type(left, dtype)
            _check_list_type(right, dtype)
            out.reshape(-1)[i] = left.copy([*left.tensors, *right.tensors])
        return (out if out.ndim else out.item(),)

    return compute


# ---- reading lists -------------------------------------------------------------------------


@kernel("TensorListLength", devices=CPU_ONLY)
def tensor_list_length(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(len(_list(ins[0], node.name).tensors)),)

    return compute


@kernel("TensorListElementShape", devices=CPU_ONLY)
def tensor_list_element_shape(node: Any, xp: Any) -> Any:
    np_type = dtypes.as_dtype(node.attrs["shape_type"]).as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = _list(ins[0], node.name).element_shape
        if shape.ndims is None:
            return (np.array(-1, dtype=np_type),)
        return (np.array([-1 if d is None else d for d in shape.as_list()], dtype=np_type),)

    return compute


@kernel("TensorListGetItem", devices=CPU_ONLY)
def tensor_list_get_item(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        index = scalar_int(ins[1], "index")
        (item,) = _items(lst, [index], _merged_shape(lst, _partial_shape(ins[2])))
        return (item,)

    return compute


@kernel("TensorListGather", devices=CPU_ONLY)
def tensor_list_gather(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        shape = _merged_shape(lst, _partial_shape(ins[2]))
        return (_stacked(lst, _items(lst, host_ints(ins[1]), shape), shape),)

    return compute


@kernel("TensorListStack", devices=CPU_ONLY)
def tensor_list_stack(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)
    expected = int(node.attrs.get("num_elements", -1))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        n = len(lst.tensors)
        if expected != -1 and expected != n:
            raise invalid(
                f"Operation expected a list with {expected} elements but got a list with {n} "
                "elements."
            )
        shape = _merged_shape(lst, _partial_shape(ins[1]))
        return (_stacked(lst, _items(lst, range(n), shape), shape),)

    return compute


def _concat(lst: TensorListValue, shape: TensorShape, leading: list[int]) -> tuple[Any, ...]:
    if shape.ndims == 0:
        raise invalid("Concat requires elements to be at least vectors, found scalars instead.")
    parts = []
    for i, t in enumerate(lst.tensors):
        if t is None:
            if not leading:
                raise invalid(
                    "Concat saw an uninitialized element and no leading_dims to size it with"
                )
            rest = TensorShape([leading[i]]).concatenate(
                shape[1:] if shape.ndims is not None else TensorShape(None)
            )
            t = _zeros(lst, rest, f"element {i}")
        if np.ndim(t) == 0:
            raise invalid("Concat saw a scalar shape at index 0 but requires at least vectors.")
        parts.append(np.asarray(t))
    lengths = np.array([p.shape[0] for p in parts], dtype=np.int64)
    if not parts:
        if shape.ndims is None or not shape[1:].is_fully_defined():
            raise invalid(
                "All except the first dimension must be fully defined when concating an empty "
                f"tensor list. element_shape: {shape_text(shape)}"
            )
        dims = [0, *(int(d or 0) for d in shape[1:].as_list())]
        np_type = object if lst.element_dtype == dtypes.string else lst.element_dtype.as_numpy_dtype
        return np.empty(dims, dtype=np_type), lengths
    rest_shape = parts[0].shape[1:]
    for i, p in enumerate(parts):
        if p.shape[1:] != rest_shape:
            raise invalid(
                f"Tried to concat tensors with unequal shapes: {shape_text(parts[0].shape)} vs "
                f"{shape_text(p.shape)} (element {i})"
            )
    return np.concatenate(parts), lengths


@kernel("TensorListConcat", devices=CPU_ONLY)
def tensor_list_concat(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)
    attr_shape = TensorShape(node.attrs.get("element_shape"))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        return _concat(lst, _merged_shape(lst, attr_shape), [])

    return compute


@kernel("TensorListConcatV2", devices=CPU_ONLY)
def tensor_list_concat_v2(node: Any, xp: Any) -> Any:
    dtype = _element_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lst = _list(ins[0], node.name)
        _check_list_type(lst, dtype)
        shape = _merged_shape(lst, _partial_shape(ins[1]))
        return _concat(lst, shape, host_ints(ins[2]))

    return compute


def add_lists(lists: Sequence[TensorListValue]) -> TensorListValue:
    """AddN over TensorLists (TF's TensorListBinaryAdd, what a gradient's sums of list
    gradients run): element by element; an element never set counts as zeros."""
    first = lists[0]
    total = list(first.tensors)
    for other in lists[1:]:
        if not isinstance(other, TensorListValue):
            raise invalid("AddN: a TensorList can only be added to TensorLists")
        if other.element_dtype != first.element_dtype:
            raise invalid(
                f"Trying to add two lists of tensors of different dtypes. One is "
                f"{first.element_dtype.name} and the other is {other.element_dtype.name}"
            )
        if len(other.tensors) != len(total):
            raise invalid(
                f"Trying to add two lists of tensors with different lengths. One is "
                f"{len(total)} and the other is {len(other.tensors)}"
            )
        total = [
            b if a is None else a if b is None else np.add(a, b)
            for a, b in zip(total, other.tensors)
        ]
    return first.copy(total)


def zeros_like_list(value: TensorListValue) -> TensorListValue:
    """ZerosLike of a TensorList (TF's TensorListZerosLike): a list of zeros shaped like its
    elements; an element never set stays unset."""
    return value.copy([None if t is None else np.zeros_like(t) for t in value.tensors])
