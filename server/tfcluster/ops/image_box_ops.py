"""Image ops over boxes and windows (crop_and_resize, draw_bounding_boxes, the non-max
suppressions, sample_distorted_bounding_box, extract_glimpse), as TF 1.15 builds them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.image_shapes import add_node as _node
from tfcluster.ops.image_shapes import check_dim as _check_dim
from tfcluster.ops.image_shapes import int32_tensor as _int32
from tfcluster.ops.image_shapes import merged_dim as _merged_dim
from tfcluster.ops.image_shapes import rank_dims as _rank
from tfcluster.ops.image_shapes import size_dims as _size_dims
from tfcluster.ops.op_util import Outputs

F32 = dtypes.float32


def _crop_and_resize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    image, boxes, box_ind, crop = inputs
    _, _, _, depth = _rank(image.shape, 4, "CropAndResize", "image")
    n, coords = _rank(boxes.shape, 2, "CropAndResize", "boxes")
    (m,) = _rank(box_ind.shape, 1, "CropAndResize", "box_ind")
    # TF's shape function: boxes [num_boxes, 4], box_ind [num_boxes].
    num_boxes = _merged_dim(n, m)
    _check_dim(coords, 4)
    h, w = _size_dims(crop, "CropAndResize")
    return [(F32, TensorShape([num_boxes, h, w, depth]))]


def _crop_grad_image_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = tensor_util.constant_value_as_shape(inputs[3])
    if shape.ndims is None:
        shape = TensorShape([None] * 4)
    return [(attrs["T"], shape)]


def _crop_grad_boxes_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(F32, TensorShape([inputs[2].shape[0].value if inputs[2].shape.ndims else None, 4]))]


def _nms_infer(op: str) -> Callable[[Sequence[Tensor], dict[str, Any]], Outputs]:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _rank(inputs[0].shape, 2, op, "boxes")
        _rank(inputs[1].shape, 1, op, "scores")
        _rank(inputs[2].shape, 0, op, "max_output_size")
        count: int | None = None
        if attrs.get("pad_to_max_output_size", False):
            value = tensor_util.constant_value(inputs[2])
            count = None if value is None else int(value)
        indices = (dtypes.int32, TensorShape([count]))
        valid = (dtypes.int32, TensorShape([]))
        if op == "NonMaxSuppressionV4":
            return [indices, valid]
        if op == "NonMaxSuppressionV5":
            return [indices, (inputs[1].dtype.base_dtype, TensorShape([count])), valid]
        return [indices]

    return infer


def _sample_bbox_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _rank(inputs[0].shape, 1, "SampleDistortedBoundingBox", "image_size")
    _rank(inputs[1].shape, 3, "SampleDistortedBoundingBox", "bounding_boxes")
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, TensorShape([3])), (dtype, TensorShape([3])), (F32, TensorShape([1, 1, 4]))]


op_def_registry.register("CropAndResize", _crop_and_resize_infer)
op_def_registry.register("CropAndResizeGradImage", _crop_grad_image_infer)
op_def_registry.register("CropAndResizeGradBoxes", _crop_grad_boxes_infer)
op_def_registry.register("DrawBoundingBoxes", op_def_registry.same_as_input())
op_def_registry.register("DrawBoundingBoxesV2", op_def_registry.same_as_input())
for _type in (
    "NonMaxSuppression",
    "NonMaxSuppressionV2",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
):
    op_def_registry.register(_type, _nms_infer(_type))
for _type in ("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"):
    op_def_registry.register(_type, _sample_bbox_infer, stateful=True)


def _glimpse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    b, _, _, depth = _rank(inputs[0].shape, 4, "ExtractGlimpse", "input")
    # TF's shape function: offsets [batch, 2], their batch merged with the input's.
    offsets_b, pair = _rank(inputs[2].shape, 2, "ExtractGlimpse", "offsets")
    batch = _merged_dim(b, offsets_b)
    _check_dim(pair, 2)
    h, w = _size_dims(inputs[1], "ExtractGlimpse")
    return [(F32, TensorShape([batch, h, w, depth]))]


op_def_registry.register("ExtractGlimpse", _glimpse_infer, stateful=True)


def extract_glimpse(
    input: Any,
    size: Any,
    offsets: Any,
    centered: bool = True,
    normalized: bool = True,
    uniform_noise: bool = True,
    name: str | None = None,
) -> Tensor:
    """Windows of `size` at `offsets` ([y, x] per image); outside the image, noise."""
    with name_scope(name, "ExtractGlimpse", [input, size, offsets]) as scope:
        inputs = [
            convert_to_tensor(input, dtype=F32, name="input"),
            _int32(size, "size"),
            convert_to_tensor(offsets, dtype=F32, name="offsets"),
        ]
        attrs = {
            "centered": bool(centered),
            "normalized": bool(normalized),
            "uniform_noise": bool(uniform_noise),
            "noise": "uniform" if uniform_noise else "gaussian",
        }
        return _node("ExtractGlimpse", inputs, attrs, scope).outputs[0]


def crop_and_resize(
    image: Any,
    boxes: Any,
    box_ind: Any = None,
    crop_size: Any = None,
    method: str = "bilinear",
    extrapolation_value: float = 0,
    name: str | None = None,
    box_indices: Any = None,
) -> Tensor:
    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    box_ind = box_indices if box_ind is None else box_ind
    with name_scope(name, "CropAndResize", [image, boxes, box_ind, crop_size]) as scope:
        img = convert_to_tensor(image, name="image")
        bx = convert_to_tensor(boxes, dtype=F32, name="boxes")
        bi = _int32(box_ind, "box_ind")
        cs = _int32(crop_size, "crop_size")
        attrs = {
            "T": img.dtype.base_dtype,
            "method": str(method),
            "extrapolation_value": float(extrapolation_value),
        }
        return _node("CropAndResize", [img, bx, bi, cs], attrs, scope).outputs[0]


def draw_bounding_boxes(
    images: Any, boxes: Any, name: str | None = None, colors: Any = None
) -> Tensor:
    op_type = "DrawBoundingBoxes" if colors is None else "DrawBoundingBoxesV2"
    with name_scope(name, op_type, [images, boxes]) as scope:
        img = convert_to_tensor(images, name="images")
        inputs = [img, convert_to_tensor(boxes, dtype=F32, name="boxes")]
        if colors is not None:
            inputs.append(convert_to_tensor(colors, dtype=F32, name="colors"))
        return _node(op_type, inputs, {"T": img.dtype.base_dtype}, scope).outputs[0]


def _nms_common(boxes: Any, scores: Any, max_output_size: Any) -> list[Tensor]:
    bx = convert_to_tensor(boxes, name="boxes")
    sc = convert_to_tensor(scores, dtype=bx.dtype.base_dtype, name="scores")
    return [bx, sc, _int32(max_output_size, "max_output_size")]


def non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "non_max_suppression"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score]
        attrs = {"T": inputs[0].dtype.base_dtype, "T_threshold": F32}
        return _node("NonMaxSuppressionV3", inputs, attrs, None).outputs[0]


def non_max_suppression_with_scores(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    soft_nms_sigma: Any = 0.0,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with name_scope(name, "non_max_suppression_with_scores"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        sigma = convert_to_tensor(soft_nms_sigma, dtype=F32, name="soft_nms_sigma")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score, sigma]
        attrs = {"T": inputs[0].dtype.base_dtype, "pad_to_max_output_size": False}
        op = _node("NonMaxSuppressionV5", inputs, attrs, None)
        return op.outputs[0], op.outputs[1]


def non_max_suppression_padded(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_to_max_output_size: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with name_scope(name, "non_max_suppression_padded"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score]
        attrs = {
            "T": inputs[0].dtype.base_dtype,
            "T_threshold": F32,
            "pad_to_max_output_size": bool(pad_to_max_output_size),
        }
        op = _node("NonMaxSuppressionV4", inputs, attrs, None)
        return op.outputs[0], op.outputs[1]


def non_max_suppression_overlaps(
    overlaps: Any,
    scores: Any,
    max_output_size: Any,
    overlap_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "non_max_suppression_overlaps"):
        threshold = convert_to_tensor(overlap_threshold, dtype=F32, name="overlap_threshold")
        inputs = [
            convert_to_tensor(overlaps, dtype=F32, name="overlaps"),
            convert_to_tensor(scores, dtype=F32, name="scores"),
            _int32(max_output_size, "max_output_size"),
            threshold,
            convert_to_tensor(score_threshold, dtype=F32, name="score_threshold"),
        ]
        return _node("NonMaxSuppressionWithOverlaps", inputs, {}, None).outputs[0]


def _combined_nms_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    b = _rank(inputs[0].shape, 4, "CombinedNonMaxSuppression", "boxes")[0]
    _rank(inputs[1].shape, 3, "CombinedNonMaxSuppression", "scores")
    total = tensor_util.constant_value(inputs[3])
    width: int | None = None if total is None else int(total)
    per_class = tensor_util.constant_value(inputs[2])
    classes = inputs[1].shape[2].value if inputs[1].shape.ndims == 3 else None
    if attrs.get("pad_per_class", False):
        if width is not None and per_class is not None and classes is not None:
            width = min(width, int(per_class) * classes)
        else:
            width = None
    return [
        (F32, TensorShape([b, width, 4])),
        (F32, TensorShape([b, width])),
        (F32, TensorShape([b, width])),
        (dtypes.int32, TensorShape([b])),
    ]


op_def_registry.register("CombinedNonMaxSuppression", _combined_nms_infer)


def combined_non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size_per_class: Any,
    max_total_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_per_class: bool = False,
    clip_boxes: bool = True,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    with name_scope(name, "combined_non_max_suppression"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [
            convert_to_tensor(boxes, dtype=F32, name="boxes"),
            convert_to_tensor(scores, dtype=F32, name="scores"),
            _int32(max_output_size_per_class, "max_output_size_per_class"),
            _int32(max_total_size, "max_total_size"),
            iou,
            score,
        ]
        attrs = {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}
        op = _node("CombinedNonMaxSuppression", inputs, attrs, None)
        return op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]


def sample_distorted_bounding_box(
    image_size: Any,
    bounding_boxes: Any,
    seed: int | None = None,
    seed2: int | None = None,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = None,
    area_range: Any = None,
    max_attempts: Any = None,
    use_image_if_no_bounding_boxes: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    with name_scope(name, "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size, name="image_size")
        boxes = convert_to_tensor(bounding_boxes, dtype=F32, name="bounding_boxes")
        covered = convert_to_tensor(min_object_covered, dtype=F32, name="min_object_covered")
        # TF 1.15's v1 function passes its seeds to the op as given (no graph seed): without
        # them the op draws from a random seed on every run.
        attrs: dict[str, Any] = {
            "T": size.dtype.base_dtype,
            "seed": int(seed or 0),
            "seed2": int(seed2 or 0),
            "aspect_ratio_range": [float(v) for v in (aspect_ratio_range or [0.75, 1.33])],
            "area_range": [float(v) for v in (area_range or [0.05, 1.0])],
            "max_attempts": int(max_attempts or 100),
            "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes or False),
        }
        op = _node("SampleDistortedBoundingBoxV2", [size, boxes, covered], attrs, None)
        return op.outputs[0], op.outputs[1], op.outputs[2]
