"""Gradients of array ops (TF1's array_grad.py; the gather's in gather_grad.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops, raw_op_library


def _static_int(t: Tensor) -> int | None:
    value = tensor_util.constant_value(t)
    return None if value is None or np.ndim(value) != 0 else int(value)


def _or_zeros(grads: Any, outputs: list[Tensor]) -> list[Tensor]:
    return [array_ops.zeros_like(o) if g is None else g for g, o in zip(grads, outputs)]


@RegisterGradient("Identity")
@RegisterGradient("PlaceholderWithDefault")
def _identity_grad(op: Operation, grad: Tensor) -> Any:
    return [grad]


@RegisterGradient("Reshape")
def _reshape_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op: Operation, grad: Tensor) -> Any:
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0]))]


@RegisterGradient("Transpose")
def _transpose_grad(op: Operation, grad: Tensor) -> Any:
    # TF 1.15 inverts the permutation with an op even when it is a constant.
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


def concat_grad(grad: Tensor, values: list[Tensor], axis: Tensor) -> list[Tensor]:
    """TF 1.15's _ConcatGradHelper in graph mode: each value's part of grad sliced at the
    offsets ConcatOffset gives (the axis taken modulo the rank), its shapes constants where
    every one is known, else one ShapeN; over 16 values, one split by the stacked sizes."""
    non_neg_axis = axis % array_ops.rank(values[0])
    sizes = []
    for v in values:
        s = array_ops.shape(v)
        if s.op.type != "Const":
            sizes = array_ops.shape_n(values)
            break
        sizes.append(s)
    if len(sizes) > 16:
        stacked = array_ops.stack(sizes, axis=1)
        along = array_ops.squeeze(array_ops.slice(stacked, [non_neg_axis, 0], [1, -1]))
        return array_ops.split(grad, along, non_neg_axis, num=len(values))
    offsets = raw_op_library.raw_op_function("ConcatOffset")(concat_dim=non_neg_axis, shape=sizes)
    return [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]


@RegisterGradient("ConcatV2")
def _concat_grad(op: Operation, grad: Tensor) -> Any:
    if len(op.inputs) == 2:
        return [grad, None]
    return [*concat_grad(grad, list(op.inputs[:-1]), op.inputs[-1]), None]


@RegisterGradient("Slice")
def _slice_grad(op: Operation, grad: Tensor) -> Any:
    """The gradient padded back to the input's shape (TF's ops, in TF's order)."""
    x, begin = op.inputs[0], op.inputs[1]
    index_dtype = begin.dtype.base_dtype
    in_rank = array_ops.rank(x)
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    column = array_ops.stack([in_rank, 1])
    before = array_ops.reshape(begin, column)
    after = array_ops.reshape(array_ops.shape(x, out_type=index_dtype) - slice_size - begin, column)
    return [array_ops.pad(grad, array_ops.concat([before, after], 1)), None, None]


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
