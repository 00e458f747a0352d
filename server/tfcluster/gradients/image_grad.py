"""Gradients of image ops (TF's image_grad.py): the resizes and crop_and_resize."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import make_op

for _op in (
    "RandomCrop",
    "HSVToRGB",
    "DrawBoundingBoxes",
    "DrawBoundingBoxesV2",
    "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2",
    "ExtractGlimpse",
    "NonMaxSuppression",
    "NonMaxSuppressionV2",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
    "CombinedNonMaxSuppression",
    "DecodeJpeg",
    "DecodeAndCropJpeg",
    "DecodePng",
    "DecodeGif",
    "DecodeBmp",
    "DecodeImage",
    "EncodeJpeg",
    "EncodeJpegVariableQuality",
    "EncodePng",
    "ExtractJpegShape",
    "Substr",
):
    not_differentiable(_op)


def _flags(op: Operation) -> dict[str, Any]:
    return {
        "align_corners": op._get_attr("align_corners"),
        "half_pixel_centers": op._get_attr("half_pixel_centers"),
    }


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_grad(op: Operation, grad: Tensor) -> Any:
    image = op.inputs[0]
    if image.shape[1:3].is_fully_defined():
        size: Any = image.shape[1:3].as_list()
    else:
        size = array_ops.shape(image)[1:3]
    size_t = array_ops.identity(size) if not isinstance(size, list) else size
    from tfcluster.framework.graph import convert_to_tensor

    size_t = convert_to_tensor(size_t, dtype=dtypes.int32)
    attrs = {"T": grad.dtype.base_dtype, **_flags(op)}
    out = make_op("ResizeNearestNeighborGrad", [grad, size_t], attrs).outputs[0]
    return [out, None]


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op: Operation, grad: Tensor) -> Any:
    attrs = {"T": op.inputs[0].dtype.base_dtype, **_flags(op)}
    return [make_op("ResizeBilinearGrad", [grad, op.inputs[0]], attrs).outputs[0], None]


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op: Operation, grad: Tensor) -> Any:
    allowed = (dtypes.float32, dtypes.float64)
    if op.inputs[0].dtype.base_dtype not in allowed:
        return [None, None]
    attrs = {"T": op.inputs[0].dtype.base_dtype, **_flags(op)}
    return [make_op("ResizeBicubicGrad", [grad, op.inputs[0]], attrs).outputs[0], None]


@RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op: Operation, grad: Tensor) -> Any:
    image, boxes, box_ind = op.inputs[0], op.inputs[1], op.inputs[2]
    image_shape = (
        image.shape.as_list() if image.shape.is_fully_defined() else array_ops.shape(image)
    )
    from tfcluster.framework.graph import convert_to_tensor

    size = convert_to_tensor(image_shape, dtype=dtypes.int32)
    method = op._get_attr("method")
    allowed = (dtypes.float16, dtypes.float32, dtypes.float64)
    grad_image = None
    if image.dtype.base_dtype in allowed:
        attrs = {"T": image.dtype.base_dtype, "method": method}
        grad_image = make_op("CropAndResizeGradImage", [grad, boxes, box_ind, size], attrs).outputs[
            0
        ]
    attrs = {"T": image.dtype.base_dtype, "method": method}
    grad_boxes = make_op("CropAndResizeGradBoxes", [grad, image, boxes, box_ind], attrs).outputs[0]
    return [grad_image, grad_boxes, None, None]


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op: Operation, grad: Tensor) -> Any:
    """Every patch element added back where it came from: the patches of an image of pixel
    numbers (0 for padding) say where, one ScatterNd sums them."""
    from tfcluster.ops import image_window_ops, math_ops

    image = op.inputs[0]
    shape = array_ops.shape(image)
    batch, rows, cols, depth = (shape[i] for i in range(4))
    count = rows * cols
    numbers = array_ops.reshape(
        math_ops.range(1, count + 1, dtype=dtypes.int64), array_ops.stack([1, rows, cols, 1])
    )
    where = image_window_ops.extract_image_patches(
        numbers,
        op._get_attr("ksizes"),
        op._get_attr("strides"),
        op._get_attr("rates"),
        op._get_attr("padding"),
    )
    where = array_ops.reshape(where, [-1, 1])
    per_patch = array_ops.reshape(grad, array_ops.stack([batch, -1, depth]))
    per_patch = array_ops.transpose(per_patch, [1, 0, 2])
    summed = array_ops.scatter_nd(
        where,
        per_patch,
        array_ops.stack(
            [
                math_ops.cast(count, dtypes.int64) + 1,
                math_ops.cast(batch, dtypes.int64),
                math_ops.cast(depth, dtypes.int64),
            ]
        ),
    )
    pixels = array_ops.reshape(summed[1:], array_ops.stack([rows, cols, batch, depth]))
    return [array_ops.transpose(pixels, [2, 0, 1, 3])]
