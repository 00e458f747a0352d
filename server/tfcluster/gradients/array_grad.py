"""Gradients of array ops (TF1's array_grad.py; the gather's in gather_grad.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops, segment_ops


def _static_int(t: Tensor) -> int | None:
    value = tensor_util.constant_value(t)
    return None if value is None or np.ndim(value) != 0 else int(value)


def _or_zeros(grads: Any, outputs: list[Tensor]) -> list[Tensor]:
    return [array_ops.zeros_like(o) if g is None else g for g, o in zip(grads, outputs)]


@RegisterGradient("Identity")
@RegisterGradient("PlaceholderWithDefault")
def _identity_grad(op: Operation, grad: Tensor) -> Any:
    return [grad]


def reshape_quietly(grad: Any, shape: Any) -> Tensor:
    """grad reshaped; an IndexedSlices gradient (a gather's) is densified without the memory
    warning of its conversion, as TF 1.15's gradients of Reshape, ExpandDims, Squeeze and the
    gathers silence it."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Converting sparse IndexedSlices to a dense Tensor.*"
        )
        return array_ops.reshape(grad, shape)


@RegisterGradient("Reshape")
def _reshape_grad(op: Operation, grad: Tensor) -> Any:
    return [reshape_quietly(grad, array_ops.shape(op.inputs[0])), None]


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: Operation, grad: Tensor) -> Any:
    return [reshape_quietly(grad, array_ops.shape(op.inputs[0])), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op: Operation, grad: Tensor) -> Any:
    return [reshape_quietly(grad, array_ops.shape(op.inputs[0]))]


@RegisterGradient("Transpose")
def _transpose_grad(op: Operation, grad: Tensor) -> Any:
    # As TF: the inverse permutation from an InvertPermutation op, even for a constant perm.
    return [array_ops.transpose(grad, array_ops.invert_permutation(op.inputs[1])), None]


@RegisterGradient("ReverseV2")
def _reverse_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.reverse(grad, op.inputs[1]), None]


@RegisterGradient("Fill")
def _fill_grad(op: Operation, grad: Tensor) -> Any:
    return [None, math_ops.reduce_sum(grad)]


@RegisterGradient("Pack")
def _pack_grad(op: Operation, grad: Tensor) -> Any:
    return array_ops.unstack(grad, num=op._get_attr("N"), axis=op._get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op: Operation, *grads: Tensor) -> Any:
    return [array_ops.stack(_or_zeros(grads, op.outputs), axis=op._get_attr("axis"))]


@RegisterGradient("Split")
def _split_grad(op: Operation, *grads: Tensor) -> Any:
    return [None, array_ops.concat(_or_zeros(grads, op.outputs), op.inputs[0])]


@RegisterGradient("SplitV")
def _split_v_grad(op: Operation, *grads: Tensor) -> Any:
    return [array_ops.concat(_or_zeros(grads, op.outputs), op.inputs[2]), None, None]


def _input_shapes(values: list[Tensor]) -> list[Tensor]:
    """TF's _ExtractInputShapes: the inputs' shapes as constants while all are known, else
    one ShapeN of them all (after the Shape op of the first input not fully known)."""
    sizes = []
    for x in values:
        input_shape = array_ops.shape(x)
        if input_shape.op.type != "Const":
            return array_ops.shape_n(values)
        sizes.append(input_shape)
    return sizes


def concat_grad(op: Operation, grad: Tensor, start: int, end: int, dim_index: int) -> list[Any]:
    """TF 1.15's _ConcatGradHelper for a dense gradient, op for op: the axis modulo the rank,
    the inputs' shapes, then one ConcatOffset and a Slice per input (up to 16 inputs), or a
    split by the sizes gathered along the axis."""
    values_last = end <= dim_index  # ConcatV2 (values, axis); Concat is (axis, values)
    if len(op.inputs) == 2:  # one value: its gradient is the whole
        return [grad, None] if values_last else [None, grad]
    concat_dim = op.inputs[dim_index]
    values = list(op.inputs[start:end])
    non_neg_concat_dim = concat_dim % array_ops.rank(values[0])
    if isinstance(grad, IndexedSlices):
        out_grads = _sparse_concat_grads(grad, concat_dim, non_neg_concat_dim, values)
        return [*out_grads, None] if values_last else [None, *out_grads]
    sizes = _input_shapes(values)
    if len(sizes) > 16:
        sizes_t = array_ops.squeeze(
            array_ops.slice(array_ops.stack(sizes, axis=1), [non_neg_concat_dim, 0], [1, -1])
        )
        out_grads = list(array_ops.split(grad, sizes_t, non_neg_concat_dim, num=len(values)))
    else:
        offsets = array_ops.concat_offset(non_neg_concat_dim, sizes)
        out_grads = [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]
    return [*out_grads, None] if values_last else [None, *out_grads]


def _sparse_concat_grads(
    grad: IndexedSlices, concat_dim: Tensor, non_neg_concat_dim: Tensor, values: list[Tensor]
) -> list[IndexedSlices]:
    """TF 1.15's _ConcatGradHelper for an IndexedSlices gradient: each input's part stays
    sparse (its columns sliced out of the rows, or its rows picked out along axis 0)."""
    static_axis = tensor_util.constant_value(concat_dim)
    if static_axis is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known concat_dim")
    axis = int(static_axis)
    if axis < 0:
        rank = tensor_util.constant_value(array_ops.rank(values[0]))
        if rank is None:
            raise ValueError(
                "Can only compute IndexedSlices gradient with negative concat_dim when first "
                "value rank is statically-known."
            )
        axis %= int(rank)
    sizes = [array_ops.shape(x) for x in values]
    out: list[IndexedSlices] = []
    if axis > 0:
        shape_of_shape = array_ops.shape(sizes[0])
        mask = array_ops.concat(
            [
                array_ops.fill(array_ops.expand_dims(non_neg_concat_dim, 0), 0),
                [1],
                array_ops.fill(shape_of_shape - non_neg_concat_dim - 1, 0),
            ],
            0,
        )
        begin = array_ops.fill(shape_of_shape, 0)
        for size in sizes:
            new_values = array_ops.slice(
                grad.values, begin, array_ops.concat([[-1], array_ops.slice(size, [1], [-1])], 0)
            )
            out.append(IndexedSlices(new_values, grad.indices, size))
            begin = math_ops.add(begin, size * mask)
        return out
    first = convert_to_tensor(0, dtype=grad.indices.dtype.base_dtype)
    for size in sizes:
        size_axis = array_ops.gather(size, non_neg_concat_dim)
        if size_axis.dtype.base_dtype != grad.indices.dtype.base_dtype:
            size_axis = math_ops.cast(size_axis, grad.indices.dtype.base_dtype)
        last = first + size_axis
        picked = array_ops.squeeze(
            array_ops.where(math_ops.logical_and(grad.indices >= first, grad.indices < last)),
            axis=[1],
        )
        new_indices = array_ops.gather(grad.indices, picked) - first
        out.append(IndexedSlices(array_ops.gather(grad.values, picked), new_indices, size))
        first = last
    return out


@RegisterGradient("ConcatV2")
def _concat_grad(op: Operation, grad: Tensor) -> Any:
    return concat_grad(op, grad, start=0, end=-1, dim_index=-1)


@RegisterGradient("Slice")
def _slice_grad(op: Operation, grad: Tensor) -> Any:
    """TF's _SliceGrad: pad the gradient by begin before and what follows the slice after."""
    input_vec, begin_vec = op.inputs[0], op.inputs[1]
    index_dtype = begin_vec.dtype.base_dtype
    input_rank = array_ops.rank(input_vec)
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    shape = array_ops.stack([input_rank, 1])
    before_pad = array_ops.reshape(begin_vec, shape)
    after_pad = array_ops.reshape(
        array_ops.shape(input_vec, out_type=index_dtype) - slice_size - begin_vec, shape
    )
    paddings = array_ops.concat([before_pad, after_pad], 1)
    return [array_ops.pad(grad, paddings), None, None]


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _masks(op: Operation) -> dict[str, Any]:
    return {n: int(op._get_attr(n)) for n in _MASKS}


def _sl(t: Tensor, key: Any) -> Tensor:
    return array_ops.strided_slice_from_key(t, key)


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op: Operation, grad: Tensor) -> Any:
    x, begin, end, strides = op.inputs
    x_shape = array_ops.shape(x, out_type=begin.dtype.base_dtype)
    dx = array_ops.strided_slice_grad(x_shape, begin, end, strides, grad, **_masks(op))
    return [dx, None, None, None]


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: Operation, grad: Tensor) -> Any:
    _, begin, end, strides, _ = op.inputs
    ddy = array_ops.strided_slice(grad, begin, end, strides, **_masks(op))
    return [None, None, None, None, ddy]


@RegisterGradient("GatherNd")
def _gather_nd_grad(op: Operation, grad: Tensor) -> Any:
    params, indices = op.inputs
    params_shape = array_ops.shape(params, out_type=indices.dtype.base_dtype)
    return [array_ops.scatter_nd(indices, grad, params_shape), None]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op: Operation, grad: Tensor) -> Any:
    return [None, array_ops.gather_nd(grad, op.inputs[0]), None]


@RegisterGradient("Tile")
def _tile_grad(op: Operation, grad: Tensor) -> Any:
    """Reshape grad to interleaved [multiple, dim, ...] and sum over the multiples."""
    x, multiples = op.inputs
    input_shape = array_ops.shape(x, out_type=multiples.dtype.base_dtype)
    split_shape = array_ops.reshape(
        array_ops.transpose(array_ops.stack([multiples, input_shape])), [-1]
    )
    axes = math_ops.range(0, array_ops.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):
        # As TF's: the rows summed over the first dimension's copies while still sparse.
        rows = math_ops.cast(input_shape[0], grad.indices.dtype)
        grad = segment_ops.unsorted_segment_sum(
            grad.values, math_ops.floormod(grad.indices, rows), rows
        )
        split_shape = array_ops.concat([[1], split_shape[1:]], axis=0)
    dx = math_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    dx.set_shape(x.shape)
    return [dx, None]


@RegisterGradient("Pad")
@RegisterGradient("PadV2")
def _pad_grad(op: Operation, grad: Tensor) -> Any:
    x, paddings = op.inputs[0], op.inputs[1]
    before = array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(before, [-1])
    dx = array_ops.slice(grad, begin, array_ops.shape(x, out_type=begin.dtype.base_dtype))
    return [dx, None] if len(op.inputs) == 2 else [dx, None, None]


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.mirror_pad_grad(grad, op.inputs[1], mode=op._get_attr("mode")), None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.pad(grad, op.inputs[1], mode=op._get_attr("mode")), None]


for _op in (
    "Shape",
    "ShapeN",
    "Rank",
    "Size",
    "ZerosLike",
    "OnesLike",
    "StopGradient",
    "Const",
    "OneHot",
    "InvertPermutation",
    "ConcatOffset",
    "EditDistance",
):
    not_differentiable(_op)
