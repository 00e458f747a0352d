"""Gradients of image ops (TF's image_grad.py): the resizes and crop_and_resize."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, constant_op, math_ops
from tfcluster.ops.op_util import make_op

for _op in (
    "RandomCrop",
    "HSVToRGB",
    "DrawBoundingBoxes",
    "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2",
    "ExtractGlimpse",
    "NonMaxSuppression",
    "NonMaxSuppressionV2",
    "NonMaxSuppressionWithOverlaps",
    "DecodeImage",
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
    # As TF's generated op function: the static size becomes its "size" constant.
    with name_scope(None, "ResizeNearestNeighborGrad", [grad, size]) as scope:
        size_t = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        attrs = {"T": grad.dtype.base_dtype, **_flags(op)}
        out = make_op("ResizeNearestNeighborGrad", [grad, size_t], attrs, name=scope).outputs[0]
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
        math_ops.range_cast_to(1, count + 1, dtype=dtypes.int64),
        array_ops.stack([1, rows, cols, 1]),
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


# ---- RGBToHSV (TF 1.15's piecewise derivative of the hexcone model) -----------------------
def _safe_reciprocal(x: Tensor) -> Tensor:
    return math_ops.div_no_nan(constant_op.constant(1.0, dtype=x.dtype), x)


def _mask(cond: Tensor) -> Tensor:
    # TF 1.15 casts its masks to float32 (so its gradient takes float32 images only).
    return math_ops.cast(cond, dtypes.float32)


# Hue terms per input channel: (channel gated > 0, channel that is the max, channel that is
# the min or None, numerator as (sign, a, b) for sign*(a - b) or a constant, reciprocal of
# (p - q) squared or not). Channel indices: 0 red, 1 green, 2 blue.
_HUE_TERMS: dict[int, list[tuple[int, int, int | None, Any, tuple[int, int, bool] | None]]] = {
    0: [
        (0, 0, None, (-1, 1, 2), None),
        (1, 1, 0, (1, 2, 1), (0, 1, True)),
        (1, 1, 2, -1.0, (1, 2, False)),
        (2, 2, 0, (1, 2, 1), (2, 0, True)),
        (2, 2, 1, 1.0, (2, 1, False)),
    ],
    1: [
        (1, 1, None, (-1, 2, 0), None),
        (0, 0, 1, (1, 0, 2), (0, 1, True)),
        (0, 0, 2, 1.0, (0, 2, False)),
        (2, 2, 1, (1, 0, 2), (2, 1, True)),
        (2, 2, 0, -1.0, (2, 0, False)),
    ],
    2: [
        (2, 2, None, (-1, 0, 1), None),
        (0, 0, 2, (1, 1, 0), (0, 2, True)),
        (0, 0, 1, -1.0, (0, 1, False)),
        (1, 1, 2, (1, 1, 0), (1, 2, True)),
        (1, 1, 0, 1.0, (1, 0, False)),
    ],
}


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op: Operation, grad: Tensor) -> Any:
    rgb = [op.inputs[0][..., i] for i in range(3)]
    sat, val = op.outputs[0][..., 1], op.outputs[0][..., 2]
    r, g, b = rgb
    # Which channel is the max / min of its pixel (ties broken red, green, blue first).
    big = [_mask((r >= b) & (r >= g)), _mask((g > r) & (g >= b)), _mask((b > r) & (b > g))]
    small = [_mask((r < b) & (r < g)), _mask((g <= r) & (g < b)), _mask((b <= r) & (b <= g))]
    positive = [_mask(c > 0) for c in rgb]
    dv = big
    ds = []
    for i in range(3):
        j, k = [c for c in range(3) if c != i]
        as_max = (
            big[i]
            * (small[j] * rgb[j] + small[k] * rgb[k])
            * _safe_reciprocal(math_ops.square(rgb[i]))
        )
        as_min = small[i] * -1 * _safe_reciprocal(big[j] * rgb[j] + big[k] * rgb[k])
        ds.append(positive[i] * (as_max + as_min))
    dh = []
    for i in range(3):
        total = None
        for gate, mx, mn, numer, recip in _HUE_TERMS[i]:
            term = positive[gate] * big[mx]
            if mn is not None:
                term = term * small[mn]
            if isinstance(numer, tuple):
                sign, p, q = numer
                term = term * (rgb[p] - rgb[q]) * float(sign)
            else:
                term = term * numer
            if recip is None:
                term = term * _safe_reciprocal(math_ops.square(sat))
                term = term * _safe_reciprocal(math_ops.square(val))
            else:
                p, q, squared = recip
                d = rgb[p] - rgb[q]
                term = term * _safe_reciprocal(math_ops.square(d) if squared else d)
            term = 60 * term
            total = term if total is None else total + term
        assert total is not None
        dh.append(total / 360)

    def per_channel(derivs: list[Tensor], out: int) -> Tensor:
        return array_ops.stack([grad[..., out] * d for d in derivs], axis=-1)

    return math_ops.add(math_ops.add(per_channel(dv, 2), per_channel(ds, 1)), per_channel(dh, 0))
